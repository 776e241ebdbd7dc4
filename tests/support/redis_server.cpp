#include "support/redis_server.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "support/server_process.hpp"
#include "support/tls_certificates.hpp"

namespace bloomkit::test {

using namespace std::chrono_literals;
using redis::reply;

bool tls_by_default() {
  static const bool on = [] {
    const char* v = std::getenv("BLOOMKIT_TEST_REDIS_TLS");
    if (v == nullptr || *v == '\0' || std::string(v) == "0") return false;
    // Clients with default options verify against OpenSSL's default store, which SSL_CERT_FILE
    // replaces: the tests' own CA, so the unchanged tests connect over TLS.
    ::setenv("SSL_CERT_FILE", tls_certificates::shared().ca().c_str(), 1);
    return true;
  }();
  return on;
}

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
  return std::string(options_.tls.enabled ? "rediss://" : "redis://") +
         (options_.requirepass.empty() ? "" : ":" + options_.requirepass + "@") + address();
}

raw_target redis_server::raw_target_() const {
  if (options_.tls.enabled) return {0, dir() / "redis.sock"};
  return {port_, {}};
}

void redis_server::start() {
  const auto& o = options_;
  if (o.sentinel) {
    start_sentinel();
    return;
  }
  std::vector<std::string> args = {"redis-server"};
  add_common_args(args);
  args.insert(args.end(),
              {"--save", "", "--appendonly", o.appendonly ? "yes" : "no", "--appendfsync", "always",
               "--enable-debug-command", "yes", "--repl-diskless-sync-delay", "0"});
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
  add_tls_args(args);
  args.insert(args.end(), o.extra_args.begin(), o.extra_args.end());
  pid_ = spawn(args, dir() / "redis.log");
  wait_until_ready();
}

void redis_server::add_common_args(std::vector<std::string>& args) const {
  args.insert(args.end(), {"--port", options_.tls.enabled ? "0" : std::to_string(port_), "--bind",
                           "127.0.0.1", "--dir", dir().string(), "--daemonize", "no", "--logfile",
                           "", "--protected-mode", "no"});
}

void redis_server::add_tls_args(std::vector<std::string>& args) const {
  const auto& tls = options_.tls;
  if (!tls.enabled) return;
  const auto& certs = tls_certificates::shared();
  const certificate& own = tls.server_certificate ? *tls.server_certificate : certs.server();
  // TCP speaks TLS only; the fixture's own commands (raw()) go through a unix socket. Replicas
  // and cluster nodes talk TLS to each other, presenting the server certificate.
  args.insert(
      args.end(),
      {"--tls-port", std::to_string(port_), "--tls-cert-file", own.cert.string(), "--tls-key-file",
       own.key.string(), "--tls-ca-cert-file", certs.ca().string(), "--tls-auth-clients",
       tls.require_client_certificate ? "yes" : "optional", "--tls-replication", "yes",
       "--unixsocket", (dir() / "redis.sock").string(), "--unixsocketperm", "700"});
  if (options_.cluster) args.insert(args.end(), {"--tls-cluster", "yes"});
}

void redis_server::start_sentinel() {
  const auto& s = *options_.sentinel;
  const auto config = dir() / "sentinel.conf";
  {
    std::ofstream out(config);
    out << "sentinel monitor " << s.master_name << " 127.0.0.1 " << s.master_port << " " << s.quorum
        << "\n"
        << "sentinel down-after-milliseconds " << s.master_name << " " << s.down_after_ms << "\n"
        << "sentinel failover-timeout " << s.master_name << " " << s.failover_timeout_ms << "\n"
        << "sentinel parallel-syncs " << s.master_name << " 1\n";
    if (!s.master_password.empty()) {
      out << "sentinel auth-pass " << s.master_name << " " << s.master_password << "\n";
    }
  }
  std::vector<std::string> args = {"redis-server", config.string(), "--sentinel"};
  add_common_args(args);
  if (!options_.requirepass.empty())
    args.insert(args.end(), {"--requirepass", options_.requirepass});
  add_tls_args(args);
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
    if (const auto r = try_command(raw_target_(), options_.requirepass, {"PING"})) {
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
  auto r = try_command(raw_target_(), options_.requirepass, args);
  if (!r) throw std::runtime_error("cannot reach redis-server at " + address());
  return std::move(*r);
}

long long calls_of(const redis_server& s, const std::string& command) {
  const std::string stats = s.raw({"INFO", "COMMANDSTATS"}).str();
  const auto at = stats.find("cmdstat_" + command + ":calls=");
  if (at == std::string::npos) return 0;
  return std::stoll(stats.substr(at + command.size() + 15));
}

long long reads_processed(const redis_server& s) {
  const std::string info = s.raw({"INFO", "STATS"}).str();
  const auto at = info.find("total_reads_processed:") + 22;
  return std::stoll(info.substr(at, info.find('\r', at) - at));
}

}  // namespace bloomkit::test
