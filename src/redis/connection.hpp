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

struct credentials {
  std::string user;
  std::string password;
  int db = 0;
};

class connection {
 public:
  // `tls` null: plain TCP. The context is shared by every connection of a client.
  connection(endpoint where, const credentials& auth, const client_options& options,
             std::shared_ptr<const tls_context> tls);
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

  void set_read_timeout(std::chrono::milliseconds timeout) { read_timeout_ = timeout; }

 private:
  io_result failure(std::string_view what, transfer t);
  // The next reply from the server, reading as much as needed; nullptr after a failure
  // (`outcome` says which).
  void* next_reply(io_result& outcome);
  // A first byte that starts a TLS record on a plaintext connection: the port speaks TLS.
  void check_not_tls(char first_byte);
  // Appended to the reason of a connection that broke before its first answer.
  std::string unanswered_hint() const;

  endpoint where_;
  credentials auth_;
  client_options options_;
  std::shared_ptr<const tls_context> tls_;
  transport stream_;
  redisReader* reader_ = nullptr;
  std::string out_;        // RESP of the commands being sent
  std::vector<char> in_;   // bytes read from the transport, before the reader takes them
  bool answered_ = false;  // something was read since the connect
  std::chrono::milliseconds read_timeout_;
  std::uint64_t generation_ = 0;
};

}  // namespace bloomkit::redis::detail
