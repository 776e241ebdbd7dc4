#include "support/redis_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "bloomkit/redis/key_slot.hpp"

namespace bloomkit::test {
namespace {

using namespace std::chrono_literals;
using redis::reply;

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (::access((std::filesystem::path(dir) / program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

bool port_free(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

// A port whose cluster bus port (+10000) is free too; both below the ephemeral range (32768+)
// so outgoing connections never take them.
int pick_port() {
  static std::mt19937 rng(std::random_device{}() ^ static_cast<unsigned>(::getpid()));
  std::uniform_int_distribution<int> dist(12000, 22700);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const int port = dist(rng);
    if (port_free(port) && port_free(port + 10000)) return port;
  }
  throw std::runtime_error("redis_server: no free port pair found");
}

// fork + exec; stdout/stderr go to `log`. The child dies with the thread that started it.
pid_t spawn(const std::vector<std::string>& args, const std::filesystem::path& log) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const std::string log_path = log.string();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    const int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::close(fd);
    }
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

// Waits for the child; SIGKILL after `limit`. Returns its exit status (-1 if killed).
int wait_for(pid_t pid, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (true) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (r < 0) return -1;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(5ms);
  }
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string tail(const std::string& text, std::size_t n = 1500) {
  return text.size() <= n ? text : text.substr(text.size() - n);
}

reply convert(const redisReply* r) {
  switch (r->type) {
    case REDIS_REPLY_STRING:
      return reply::make_string(std::string(r->str, r->len));
    case REDIS_REPLY_STATUS:
      return reply::make_status(std::string(r->str, r->len));
    case REDIS_REPLY_ERROR:
      return reply::make_error(std::string(r->str, r->len));
    case REDIS_REPLY_INTEGER:
      return reply::make_integer(r->integer);
    case REDIS_REPLY_ARRAY: {
      std::vector<reply> elements;
      for (std::size_t i = 0; i < r->elements; ++i) elements.push_back(convert(r->element[i]));
      return reply::make_array(std::move(elements));
    }
    default:
      return reply{};
  }
}

std::optional<reply> try_command(int port, const std::string& password,
                                 const std::vector<std::string>& args) {
  const timeval timeout{5, 0};
  redisContext* ctx = redisConnectWithTimeout("127.0.0.1", port, timeout);
  if (ctx == nullptr) return std::nullopt;
  if (ctx->err != 0) {
    redisFree(ctx);
    return std::nullopt;
  }
  redisSetTimeout(ctx, timeout);
  auto run = [&](const std::vector<std::string>& a) -> std::optional<reply> {
    std::vector<const char*> argv;
    std::vector<std::size_t> lengths;
    for (const auto& s : a) {
      argv.push_back(s.data());
      lengths.push_back(s.size());
    }
    void* raw = redisCommandArgv(ctx, static_cast<int>(a.size()), argv.data(), lengths.data());
    if (raw == nullptr) return std::nullopt;
    reply out = convert(static_cast<redisReply*>(raw));
    freeReplyObject(raw);
    return out;
  };
  std::optional<reply> result;
  if (password.empty() || run({"AUTH", password}).has_value()) result = run(args);
  redisFree(ctx);
  return result;
}

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

std::string field(const std::string& info, const std::string& name) {
  const auto at = info.find(name + ":");
  if (at == std::string::npos) return {};
  const auto start = at + name.size() + 1;
  return info.substr(start, info.find_first_of("\r\n", start) - start);
}

void wait_until(const std::function<bool()>& done, std::chrono::milliseconds limit,
                const std::function<std::string()>& what) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("timed out waiting for " + what());
    }
    std::this_thread::sleep_for(20ms);
  }
}

}  // namespace

// --- redis_server --------------------------------------------------------------------------

bool redis_server::available() {
  static const bool found = on_path("redis-server") && on_path("redis-cli");
  return found;
}

redis_server::redis_server(redis_server_options options) : options_(std::move(options)) {
  if (!available()) throw std::runtime_error("redis-server is not installed");
  for (int attempt = 0;; ++attempt) {
    port_ = pick_port();
    try {
      start();
      return;
    } catch (const std::runtime_error&) {
      kill();
      if (attempt >= 5) throw;  // a port taken between the check and the bind: try another
    }
  }
}

redis_server::~redis_server() {
  kill();
}

std::string redis_server::address() const {
  return "127.0.0.1:" + std::to_string(port_);
}

std::string redis_server::url() const {
  return "redis://" + (options_.requirepass.empty() ? "" : ":" + options_.requirepass + "@") +
         address();
}

void redis_server::start() {
  const auto& o = options_;
  std::vector<std::string> args = {"redis-server",
                                   "--port",
                                   std::to_string(port_),
                                   "--bind",
                                   "127.0.0.1",
                                   "--dir",
                                   dir().string(),
                                   "--daemonize",
                                   "no",
                                   "--logfile",
                                   "",
                                   "--save",
                                   "",
                                   "--appendonly",
                                   o.appendonly ? "yes" : "no",
                                   "--appendfsync",
                                   "always",
                                   "--enable-debug-command",
                                   "yes",
                                   "--repl-diskless-sync-delay",
                                   "0",
                                   "--protected-mode",
                                   "no"};
  if (o.cluster) {
    args.insert(args.end(), {"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                             "--cluster-node-timeout", std::to_string(o.cluster_node_timeout_ms)});
  }
  if (!o.requirepass.empty()) {
    args.insert(args.end(), {"--requirepass", o.requirepass, "--masterauth", o.requirepass});
  }
  for (const auto& u : o.users) {
    args.insert(args.end(), {"--user", u.name, "on", ">" + u.password, "~*", "&*", "+@all"});
  }
  args.insert(args.end(), o.extra_args.begin(), o.extra_args.end());
  pid_ = spawn(args, dir() / "redis.log");
  wait_until_ready();
}

void redis_server::wait_until_ready() {
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (true) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("redis-server on port " + std::to_string(port_) + " exited; log:\n" +
                               tail(read_text(dir() / "redis.log")));
    }
    if (const auto r = try_command(port_, options_.requirepass, {"PING"})) {
      if (!r->is_error() || r->str().rfind("LOADING", 0) != 0) return;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("redis-server on port " + std::to_string(port_) +
                               " does not answer PING; log:\n" +
                               tail(read_text(dir() / "redis.log")));
    }
    std::this_thread::sleep_for(10ms);
  }
}

void redis_server::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  wait_for(pid_, 10s);
  pid_ = -1;
}

void redis_server::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  wait_for(pid_, 10s);
  pid_ = -1;
}

void redis_server::restart() {
  stop();
  start();
}

reply redis_server::raw(const std::vector<std::string>& args) const {
  auto r = try_command(port_, options_.requirepass, args);
  if (!r) throw std::runtime_error("cannot reach redis-server at " + address());
  return std::move(*r);
}

// --- redis_cluster -------------------------------------------------------------------------

redis_cluster::redis_cluster(redis_cluster_options options) : options_(std::move(options)) {
  const int count = options_.masters * (1 + options_.replicas);
  redis_server_options server;
  server.cluster = true;
  server.cluster_node_timeout_ms = options_.node_timeout_ms;
  server.requirepass = options_.requirepass;
  for (int i = 0; i < count; ++i) nodes_.push_back(std::make_unique<redis_server>(server));

  std::vector<std::string> args = {"redis-cli", "--cluster", "create"};
  for (const auto& n : nodes_) args.push_back(n->address());
  args.insert(args.end(),
              {"--cluster-replicas", std::to_string(options_.replicas), "--cluster-yes"});
  if (!options_.requirepass.empty()) {
    args.insert(args.end(), {"-a", options_.requirepass, "--no-auth-warning"});
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
  std::string out = "redis-cluster://";
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
