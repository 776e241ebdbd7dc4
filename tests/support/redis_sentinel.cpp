#include "support/redis_sentinel.hpp"

#include <stdexcept>

#include "support/server_process.hpp"

namespace bloomkit::test {

using namespace std::chrono_literals;

redis_sentinels::redis_sentinels(redis_sentinel_options options) : options_(std::move(options)) {
  nodes_.push_back(std::make_unique<redis_server>());
  const int master_port = nodes_.front()->port();
  for (int i = 0; i < options_.replicas; ++i) {
    redis_server_options replica;
    replica.extra_args = {"--replicaof", "127.0.0.1", std::to_string(master_port)};
    nodes_.push_back(std::make_unique<redis_server>(replica));
  }
  wait_until(
      [&] {
        for (std::size_t i = 1; i < nodes_.size(); ++i) {
          if (field(nodes_[i]->raw({"INFO", "replication"}).str(), "master_link_status") != "up") {
            return false;
          }
        }
        return true;
      },
      30s, [] { return std::string("the replicas to sync"); });
  for (int i = 0; i < options_.sentinels; ++i) {
    redis_server_options sentinel;
    sentinel.requirepass = options_.sentinel_password;
    sentinel.sentinel = redis_sentinel_config{};
    sentinel.sentinel->master_name = options_.master_name;
    sentinel.sentinel->master_port = master_port;
    sentinel.sentinel->quorum = options_.sentinels / 2 + 1;
    sentinel.sentinel->down_after_ms = options_.down_after_ms;
    sentinels_.push_back(std::make_unique<redis_server>(sentinel));
  }
  wait_until(
      [&] {
        for (const auto& s : sentinels_) {
          const auto replicas = s->raw({"SENTINEL", "REPLICAS", options_.master_name});
          const auto others = s->raw({"SENTINEL", "SENTINELS", options_.master_name});
          if (replicas.is_error() || others.is_error() ||
              replicas.elements().size() != static_cast<std::size_t>(options_.replicas) ||
              others.elements().size() != sentinels_.size() - 1) {
            return false;
          }
        }
        return true;
      },
      60s, [] { return std::string("the sentinels to discover the replicas and each other"); });
}

std::string redis_sentinels::url() const {
  std::string out =
      nodes_.front()->options().tls.enabled ? "rediss-sentinel://" : "redis-sentinel://";
  for (std::size_t i = 0; i < sentinels_.size(); ++i) {
    if (i > 0) out += ',';
    out += sentinels_[i]->address();
  }
  return out + "/" + options_.master_name;
}

std::size_t redis_sentinels::index_of_port(int port) const {
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i]->port() == port) return i;
  }
  throw std::runtime_error("redis_sentinels: no node on port " + std::to_string(port));
}

std::size_t redis_sentinels::master() const {
  for (const auto& s : sentinels_) {
    if (!s->running()) continue;
    const auto r = s->raw({"SENTINEL", "GET-MASTER-ADDR-BY-NAME", options_.master_name});
    if (r.type() == redis::reply::kind::array && r.elements().size() == 2) {
      return index_of_port(std::stoi(r.elements()[1].str()));
    }
  }
  throw std::runtime_error("redis_sentinels: no sentinel names a master");
}

std::size_t redis_sentinels::kill_master() {
  const std::size_t old = master();
  nodes_[old]->kill();
  std::size_t promoted = old;
  wait_until(
      [&] {
        promoted = master();
        if (promoted == old) return false;
        const auto role = nodes_[promoted]->raw({"ROLE"});
        return role.type() == redis::reply::kind::array && role.elements()[0].str() == "master";
      },
      30s, [] { return std::string("the sentinels to promote a replica"); });
  return promoted;
}

}  // namespace bloomkit::test
