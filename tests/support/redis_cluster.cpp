#include <algorithm>
#include <set>
#include <stdexcept>

#include "support/redis_server.hpp"
#include "support/server_process.hpp"
#include "support/tls_certificates.hpp"

namespace bloomkit::test {
namespace {

using namespace std::chrono_literals;
using redis::reply;

// In a slot_map_of() string ("first-last:master/replica/... "), whether the port is a master or a
// replica of some range.
bool mentioned_after(const std::string& map, char before, int port) {
  const auto p = before + std::to_string(port);
  return map.find(p + " ") != std::string::npos || map.find(p + "/") != std::string::npos;
}
bool serves_as_master(const std::string& map, int port) {
  return mentioned_after(map, ':', port);
}
bool serves_as_replica(const std::string& map, int port) {
  return mentioned_after(map, '/', port);
}

}  // namespace

// --- redis_cluster -------------------------------------------------------------------------

redis_cluster::redis_cluster(redis_cluster_options options) : options_(std::move(options)) {
  const int count = options_.masters * (1 + options_.replicas);
  redis_server_options server;
  server.cluster = true;
  server.cluster_node_timeout_ms = options_.node_timeout_ms;
  server.requirepass = options_.requirepass;
  server.tls = options_.tls;
  for (int i = 0; i < count; ++i) nodes_.push_back(std::make_unique<redis_server>(server));

  std::vector<std::string> args = {"redis-cli", "--cluster", "create"};
  for (const auto& n : nodes_) args.push_back(n->address());
  args.insert(args.end(),
              {"--cluster-replicas", std::to_string(options_.replicas), "--cluster-yes"});
  if (!options_.requirepass.empty()) {
    args.insert(args.end(), {"-a", options_.requirepass, "--no-auth-warning"});
  }
  if (options_.tls.enabled) {
    const auto& certs = tls_certificates::shared();
    args.insert(args.end(), {"--tls", "--cacert", certs.ca().string(), "--cert",
                             certs.client().cert.string(), "--key", certs.client().key.string()});
  }
  const auto log = nodes_.front()->dir() / "cluster-create.log";
  if (wait_for(spawn(args, log), 60s) != 0) {
    throw std::runtime_error("redis-cli --cluster create failed:\n" + tail(read_text(log)));
  }
  wait_until_consistent();
}

redis_cluster::~redis_cluster() {
  for (auto& n : nodes_) n->kill();
}

std::string redis_cluster::url() const {
  std::string out = options_.tls.enabled ? "rediss-cluster://" : "redis-cluster://";
  if (!options_.requirepass.empty()) out += ":" + options_.requirepass + "@";
  bool first = true;
  for (const auto& n : nodes_) {
    if (!n->running()) continue;
    if (!first) out += ',';
    out += n->address();
    first = false;
  }
  return out;
}

std::string redis_cluster::node_id(std::size_t i) const {
  return nodes_[i]->raw({"CLUSTER", "MYID"}).str();
}

std::string redis_cluster::slot_map_of(std::size_t i) const {
  // "first-last:master_port[/replica_port...]" per range, sorted.
  const reply r = nodes_[i]->raw({"CLUSTER", "SLOTS"});
  if (r.type() != reply::kind::array) return "error: " + r.to_string();
  std::vector<std::string> ranges;
  for (const auto& range : r.elements()) {
    const auto& f = range.elements();
    std::string line = std::to_string(f[0].integer()) + "-" + std::to_string(f[1].integer()) + ":";
    std::vector<long long> replicas;
    for (std::size_t k = 3; k < f.size(); ++k) replicas.push_back(f[k].elements()[1].integer());
    std::sort(replicas.begin(), replicas.end());
    line += std::to_string(f[2].elements()[1].integer());
    for (const auto p : replicas) {
      line += '/';
      line += std::to_string(p);
    }
    ranges.push_back(line);
  }
  std::sort(ranges.begin(), ranges.end());
  std::string out;
  for (const auto& s : ranges) out += s + " ";
  return out;
}

void redis_cluster::wait_until_consistent(std::chrono::seconds limit) const {
  std::string why;  // the last reason it was not consistent, for the timeout message
  wait_until(
      [&] {
        std::string reference;
        std::string current_epoch;
        std::set<std::string> master_epochs;
        for (std::size_t i = 0; i < nodes_.size(); ++i) {
          if (!nodes_[i]->running()) continue;
          const auto name = nodes_[i]->address();
          const auto info = nodes_[i]->raw({"CLUSTER", "INFO"});
          if (info.is_error() || field(info.str(), "cluster_state") != "ok") {
            why = name + " is not ok: " +
                  (info.is_error() ? info.str() : field(info.str(), "cluster_state"));
            return false;
          }
          // Every node knows the latest epoch and masters' epochs are distinct: otherwise the
          // next slot migration's epoch bump can collide with an earlier one, and a node that
          // saw the older owner with the higher epoch would keep a stale slot forever.
          const auto epoch = field(info.str(), "cluster_current_epoch");
          if (current_epoch.empty()) current_epoch = epoch;
          if (epoch != current_epoch) {
            why = name + " has current epoch " + epoch + ", another node " + current_epoch;
            return false;
          }
          const auto map = slot_map_of(i);
          if (serves_as_master(map, nodes_[i]->port()) &&
              !master_epochs.insert(field(info.str(), "cluster_my_epoch")).second) {
            why = name + " shares its config epoch with another master";
            return false;
          }
          if (reference.empty()) reference = map;
          if (map != reference) {
            why = name + " has slot map " + map + "; another node has " + reference;
            return false;
          }
          const auto replication = nodes_[i]->raw({"INFO", "replication"}).str();
          if (field(replication, "role") == "slave" &&
              field(replication, "master_link_status") != "up") {
            why = name + ": replica not in sync";
            return false;
          }
        }
        // Replicas in the map are running (a killed replica drops out of CLUSTER SLOTS late).
        for (const auto& n : nodes_) {
          if (!n->running() &&
              (serves_as_master(reference, n->port()) || serves_as_replica(reference, n->port()))) {
            why = "the stopped node " + n->address() + " is still in the slot map";
            return false;
          }
        }
        return true;
      },
      limit,
      [&] {
        return "a consistent cluster (cluster_state:ok and one slot map on every node); " + why;
      });
}

std::vector<std::size_t> redis_cluster::masters() const {
  std::vector<std::pair<int, std::size_t>> firsts;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (!nodes_[i]->running()) continue;
    const auto r = nodes_[i]->raw({"CLUSTER", "SLOTS"});
    for (const auto& range : r.elements()) {
      if (range.elements()[2].elements()[1].integer() == nodes_[i]->port()) {
        firsts.emplace_back(static_cast<int>(range.elements()[0].integer()), i);
        break;
      }
    }
  }
  std::sort(firsts.begin(), firsts.end());
  std::vector<std::size_t> out;
  for (const auto& [first, i] : firsts) out.push_back(i);
  return out;
}

std::size_t redis_cluster::owner_of_slot(int slot) const {
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (!nodes_[i]->running()) continue;
    const auto r = nodes_[i]->raw({"CLUSTER", "SLOTS"});
    for (const auto& range : r.elements()) {
      const auto& f = range.elements();
      if (f[0].integer() <= slot && slot <= f[1].integer()) {
        const auto port = f[2].elements()[1].integer();
        for (std::size_t k = 0; k < nodes_.size(); ++k) {
          if (nodes_[k]->port() == port) return k;
        }
      }
    }
    break;  // one running node's view is enough
  }
  throw std::runtime_error("no master serves slot " + std::to_string(slot));
}

std::size_t redis_cluster::kill_master(std::size_t i) {
  const std::string id = node_id(i);
  std::vector<std::size_t> replicas;
  for (std::size_t k = 0; k < nodes_.size(); ++k) {
    if (k == i || !nodes_[k]->running()) continue;
    const auto info = nodes_[k]->raw({"INFO", "replication"}).str();
    if (field(info, "role") == "slave" &&
        field(info, "master_port") == std::to_string(nodes_[i]->port())) {
      replicas.push_back(k);
    }
  }
  if (replicas.empty()) throw std::runtime_error("kill_master: node has no replica");
  nodes_[i]->kill();
  std::size_t promoted = replicas.front();
  wait_until(
      [&] {
        for (const auto k : replicas) {
          const auto info = nodes_[k]->raw({"INFO", "replication"}).str();
          if (field(info, "role") == "master") {
            promoted = k;
            return true;
          }
        }
        return false;
      },
      30s, [] { return std::string("a replica of the killed master to be promoted"); });
  wait_until_consistent();
  return promoted;
}

void redis_cluster::begin_slot_migration(int slot, std::size_t from, std::size_t to) {
  const auto s = std::to_string(slot);
  const auto importing = nodes_[to]->raw({"CLUSTER", "SETSLOT", s, "IMPORTING", node_id(from)});
  const auto migrating = nodes_[from]->raw({"CLUSTER", "SETSLOT", s, "MIGRATING", node_id(to)});
  if (importing.is_error() || migrating.is_error()) {
    throw std::runtime_error("begin_slot_migration: " + importing.to_string() + " / " +
                             migrating.to_string());
  }
}

std::size_t redis_cluster::move_slot_keys(int slot, std::size_t from, std::size_t to,
                                          std::size_t max_keys) {
  std::size_t moved = 0;
  while (moved < max_keys) {
    const auto batch = std::min<std::size_t>(100, max_keys - moved);
    const auto keys = nodes_[from]->raw(
        {"CLUSTER", "GETKEYSINSLOT", std::to_string(slot), std::to_string(batch)});
    if (keys.elements().empty()) break;
    std::vector<std::string> args = {"MIGRATE", "127.0.0.1", std::to_string(nodes_[to]->port()),
                                     "",        "0",         "5000"};
    if (!options_.requirepass.empty()) args.insert(args.end(), {"AUTH", options_.requirepass});
    args.push_back("KEYS");
    for (const auto& k : keys.elements()) args.push_back(k.str());
    const auto r = nodes_[from]->raw(args);
    if (r.is_error()) throw std::runtime_error("MIGRATE failed: " + r.str());
    moved += keys.elements().size();
  }
  return moved;
}

void redis_cluster::finish_slot_migration(int slot, std::size_t from, std::size_t to) {
  const auto s = std::to_string(slot);
  const auto target = node_id(to);
  // The target first, then the source, then the other masters (the documented order).
  std::vector<std::size_t> order = {to, from};
  for (const auto m : masters()) {
    if (m != to && m != from) order.push_back(m);
  }
  for (const auto k : order) {
    const auto r = nodes_[k]->raw({"CLUSTER", "SETSLOT", s, "NODE", target});
    if (r.is_error()) throw std::runtime_error("CLUSTER SETSLOT NODE failed: " + r.str());
  }
  wait_until_consistent();
}

void redis_cluster::migrate_slot(int slot, std::size_t to) {
  const auto from = owner_of_slot(slot);
  if (from == to) return;
  begin_slot_migration(slot, from, to);
  move_slot_keys(slot, from, to);
  finish_slot_migration(slot, from, to);
}

}  // namespace bloomkit::test
