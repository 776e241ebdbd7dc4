#pragma once
// A master, its replicas and the sentinels watching them, as real processes (redis_server.hpp):
// the fixture for redis-sentinel:// URLs and failovers. TLS when the servers' default is.

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "support/redis_server.hpp"

namespace bloomkit::test {

struct redis_sentinel_options {
  int sentinels = 3;
  int replicas = 2;  // two: after a failover the new master still has one to WAIT for
  std::string master_name = "mymaster";
  std::string sentinel_password;  // requirepass of the sentinels
  int down_after_ms = 1000;
};

class redis_sentinels {
 public:
  // Starts the master, its replicas (in sync) and the sentinels, and waits until every sentinel
  // knows every replica and every other sentinel (so that a failover can be elected).
  explicit redis_sentinels(redis_sentinel_options options = {});

  // "redis[s]-sentinel://127.0.0.1:p1,127.0.0.1:p2,.../mymaster"
  std::string url() const;
  std::size_t size() const { return nodes_.size(); }
  redis_server& node(std::size_t i) { return *nodes_[i]; }
  redis_server& sentinel(std::size_t i) { return *sentinels_[i]; }
  // The node the sentinels name as master now.
  std::size_t master() const;
  // Kills the master with SIGKILL and waits until the sentinels name a promoted replica that
  // says ROLE master. Returns its index.
  std::size_t kill_master();

 private:
  std::size_t index_of_port(int port) const;

  redis_sentinel_options options_;
  std::vector<std::unique_ptr<redis_server>> nodes_;
  std::vector<std::unique_ptr<redis_server>> sentinels_;
};

}  // namespace bloomkit::test
