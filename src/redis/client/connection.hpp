#pragma once
// One connection to one Redis server (internal): a transport (TCP or TLS) plus hiredis's reply
// parser, opened lazily, authenticated and SELECTed on every (re)connect. Pipelines are split
// into a send phase and a read phase so that a cluster client can send to every node first and
// then read the node groups in parallel.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/url.hpp"
#include "transport.hpp"

struct redisReader;
struct redisReplyObjectFunctions;

namespace bloomkit::redis::detail {

class tls_context;

struct io_result {
  io_status status = io_status::ok;
  std::string message;  // names host:port
};

// One command of a pipeline, optionally preceded by ASKING (ASK redirection).
struct outgoing {
  const command* cmd = nullptr;
  bool asking = false;
};

// Who is at the other end: a Redis server, or a Sentinel (whose replies are a few short strings,
// so it gets tighter limits; see reply_limits in connection.cpp). Messages name it so.
enum class peer { redis, sentinel };

struct credentials {
  std::string user;
  std::string password;
  int db = 0;
};

class connection {
 public:
  // `tls` null: plain TCP. The context is shared by every connection of a client.
  connection(endpoint where, const credentials& auth, const client_options& options,
             std::shared_ptr<const tls_context> tls, peer kind = peer::redis);
  ~connection();
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;

  const endpoint& where() const { return where_; }
  bool connected() const { return stream_.is_open(); }
  // Incremented on every successful connect: a change means the server may have lost what this
  // client sent before (used by wait_replicas).
  std::uint64_t generation() const { return generation_; }

  // Connects if not connected. Broken: cannot connect (message names host:port). Throws
  // errc::auth_failed when AUTH is refused, errc::invalid_argument when SELECT is, and
  // errc::unreachable for TLS failures that a retry cannot fix (transport::open).
  io_result ensure_connected();
  void drop();

  // Encodes the commands and writes them out. Connects first if needed.
  io_result send(const std::vector<outgoing>& batch);
  // Reads the replies of the batch last sent, in order (ASKING replies are skipped). On failure
  // `replies` holds those read so far and the connection is dropped.
  io_result read(const std::vector<outgoing>& batch, std::vector<reply>& replies);
  // One command and its reply (for the handshake's AUTH and SELECT).
  io_result round_trip(const command& c, std::vector<reply>& replies);
  // send + read of one command; throws errc::unreachable / errc::timeout on failure.
  reply call(const command& c);

  // How long one reply may take to arrive whole (command_timeout unless changed, e.g. by WAIT).
  void set_read_timeout(std::chrono::milliseconds timeout) { read_timeout_ = timeout; }

  // What one reply may hold, checked as it arrives: hiredis allocates the element pointers an
  // array announces before they arrive (16 GiB for "*2147483647", then a free touching every one:
  // a 44 s stall), and a reply larger than a peer ever sends is not worth waiting for.
  struct reply_guard {
    std::size_t max_elements = 0;  // announced by the arrays of one reply, nested ones included
    std::size_t max_bytes = 0;     // of one reply
    std::size_t elements = 0;      // announced so far by the reply being read
    std::size_t bytes = 0;         // of the reply being read, so far
    long long refused = -1;        // the array length refused, -1 if none
    const redisReplyObjectFunctions* base = nullptr;  // hiredis's own (createArray is wrapped)
  };

 private:
  io_result failure(std::string_view what, transfer t);
  // Drops the connection: broken, with this message.
  io_result failure(std::string message);
  // The next reply from the server, reading as much as needed; nullptr after a failure
  // (`outcome` says which).
  void* next_reply(io_result& outcome);
  // A first byte that starts a TLS record on a plaintext connection: the port speaks TLS.
  void check_not_tls(char first_byte);
  // Appended to the reason of a connection that broke before its first answer.
  std::string unanswered_hint() const;
  // "Redis at h:p" / "Sentinel at h:p".
  std::string who() const;

  endpoint where_;
  credentials auth_;
  client_options options_;
  std::shared_ptr<const tls_context> tls_;
  transport stream_;
  peer kind_;
  redisReader* reader_ = nullptr;
  reply_guard guard_;
  std::unique_ptr<redisReplyObjectFunctions> functions_;  // hiredis's, createArray guarded
  std::string out_;                                       // RESP of the commands being sent
  std::vector<char> in_;   // bytes read from the transport, before the reader takes them
  bool answered_ = false;  // something was read since the connect
  std::chrono::milliseconds read_timeout_;
  std::uint64_t generation_ = 0;
};

}  // namespace bloomkit::redis::detail
