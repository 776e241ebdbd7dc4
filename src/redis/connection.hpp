#pragma once
// One connection to one Redis server (internal): a blocking hiredis context, opened lazily,
// authenticated and SELECTed on every (re)connect. Pipelines are split into a send phase and a
// read phase so that a cluster client can send to every node first and then read the node groups
// in parallel.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/url.hpp"

struct redisContext;

namespace bloomkit::redis::detail {

// How a send or read phase ended.
enum class io_status {
  ok,
  broken,   // could not connect, or the connection broke: retry after a reconnect
  timeout,  // no reply within the command timeout (the connection is dropped)
};

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
  connection(endpoint where, const credentials& auth, const client_options& options);
  ~connection();
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;

  const endpoint& where() const { return where_; }
  bool connected() const { return context_ != nullptr; }
  // Incremented on every successful connect: a change means the server may have lost what this
  // client sent before (used by wait_replicas).
  std::uint64_t generation() const { return generation_; }

  // Connects if not connected. Broken: cannot connect (message names host:port). Throws
  // errc::auth_failed when AUTH is refused and errc::invalid_argument when SELECT is.
  io_result ensure_connected();
  void drop();

  // Appends the commands and writes them out. Connects first if needed.
  io_result send(const std::vector<outgoing>& batch);
  // Reads the replies of the batch last sent, in order (ASKING replies are skipped). On failure
  // `replies` holds those read so far and the connection is dropped.
  io_result read(const std::vector<outgoing>& batch, std::vector<reply>& replies);
  // send + read of one command; throws errc::unreachable / errc::timeout on failure.
  reply call(const command& c);

  void set_read_timeout(std::chrono::milliseconds timeout);

 private:
  io_result failure(std::string_view what, int saved_errno);

  endpoint where_;
  credentials auth_;
  client_options options_;
  redisContext* context_ = nullptr;
  std::uint64_t generation_ = 0;
};

}  // namespace bloomkit::redis::detail
