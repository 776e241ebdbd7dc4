#pragma once
// Real redis-server processes for tests: a single server (redis_server) and a Redis Cluster
// (redis_cluster), each on 127.0.0.1 at free ports in its own temp dir, stopped by PID when the
// object dies (also when a test fails; if the test process dies, the kernel kills them through
// PR_SET_PDEATHSIG, which fires when the *thread* that started them ends: start servers from the
// test's main thread or a thread that outlives them). Servers talk to the tests through raw hiredis
// (raw()), independent of the client under test. Tests start with BLOOMKIT_REQUIRE_REDIS() to skip
// when redis-server is not installed (scripts/setup installs it).

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bloomkit/redis/client.hpp"
#include "support/server_process.hpp"
#include "support/temp_dir.hpp"
#include "support/tls_certificates.hpp"

#define BLOOMKIT_REQUIRE_REDIS()                                                   \
  do {                                                                             \
    if (!::bloomkit::test::redis_server::available()) {                            \
      GTEST_SKIP() << "redis-server is not installed (scripts/setup installs it)"; \
    }                                                                              \
  } while (false)

namespace bloomkit::test {

// True when the environment variable BLOOMKIT_TEST_REDIS_TLS is set (not "0"): every fixture
// server then speaks TLS by default (url() gives rediss://), and SSL_CERT_FILE names the test CA
// so that clients with default options trust it. CTest runs the Redis suites once plain and once
// so (tests/redis/CMakeLists.txt, TLS_SUITES).
bool tls_by_default();

struct redis_tls_options {
  bool enabled = tls_by_default();
  bool require_client_certificate = false;  // tls-auth-clients yes (else optional)
  // The server's certificate; nullptr: tls_certificates::shared().server().
  const certificate* server_certificate = nullptr;
};

// A sentinel (redis-server --sentinel) watching one master.
struct redis_sentinel_config {
  std::string master_name = "mymaster";
  int master_port = 0;
  int quorum = 2;
  int down_after_ms = 1000;
  int failover_timeout_ms = 5000;
  std::string master_password;  // sentinel auth-pass
};

struct redis_acl_user {
  std::string name;
  std::string password;  // the user gets every command and key
};

struct redis_server_options {
  bool cluster = false;  // cluster-enabled yes
  int cluster_node_timeout_ms = 1000;
  bool appendonly = false;  // appendonly yes (appendfsync always): data survives restart()
  std::string requirepass;  // password of the default user
  std::vector<redis_acl_user> users;
  std::vector<std::string> extra_args;  // more "--name value" arguments
  redis_tls_options tls;
  // Set: a sentinel, not a data server (requirepass is then the sentinel's own password).
  std::optional<redis_sentinel_config> sentinel;
};

class redis_server {
 public:
  static bool available();  // redis-server and redis-cli are on PATH

  // Starts the server and waits until it answers PING. Throws std::runtime_error on failure.
  explicit redis_server(redis_server_options options = {});
  ~redis_server();
  redis_server(const redis_server&) = delete;
  redis_server& operator=(const redis_server&) = delete;

  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }
  std::string address() const;  // "127.0.0.1:port"
  std::string url() const;      // "redis[s]://[:password@]127.0.0.1:port"
  const std::filesystem::path& dir() const { return dir_.path(); }
  const redis_server_options& options() const { return options_; }

  void stop();     // SIGTERM (clean shutdown, AOF flushed), wait; SIGKILL after 10 s
  void kill();     // SIGKILL, wait: a crash
  void restart();  // stop if running, start again on the same port and dir

  // One command over a fresh hiredis connection (authenticated with requirepass if set; over
  // the unix socket when TCP speaks TLS). Throws std::runtime_error if the server cannot be
  // reached.
  redis::reply raw(const std::vector<std::string>& args) const;

 private:
  void start();
  void start_sentinel();
  // Port (0 when TCP speaks TLS only), bind, dir, foreground, log to stdout, no protected mode.
  void add_common_args(std::vector<std::string>& args) const;
  void add_tls_args(std::vector<std::string>& args) const;
  raw_target raw_target_() const;
  void wait_until_ready();

  redis_server_options options_;
  temp_dir dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

struct redis_cluster_options {
  int masters = 3;
  int replicas = 0;  // per master
  int node_timeout_ms = 1000;
  std::string requirepass;
  redis_tls_options tls;
};

class redis_cluster {
 public:
  // Starts masters * (1 + replicas) servers, joins them with redis-cli --cluster create and waits
  // until every node reports cluster_state:ok with the same slot map (replicas in sync).
  explicit redis_cluster(redis_cluster_options options = {});
  ~redis_cluster();

  std::size_t size() const { return nodes_.size(); }
  redis_server& node(std::size_t i) { return *nodes_[i]; }
  // "redis-cluster://127.0.0.1:p1,127.0.0.1:p2,..." over every node started.
  std::string url() const;
  std::string node_id(std::size_t i) const;  // CLUSTER MYID
  // Indices of the current masters (running nodes that own slots), in slot order.
  std::vector<std::size_t> masters() const;
  std::size_t owner_of_slot(int slot) const;  // index of the master serving the slot

  // Waits until every running node says cluster_state:ok and all agree on the slot map.
  void wait_until_consistent(std::chrono::seconds limit = std::chrono::seconds(30)) const;

  // Kills master `i` with SIGKILL and waits until one of its replicas took over its slots and
  // the cluster is ok again. Returns the index of the new master.
  std::size_t kill_master(std::size_t i);

  // Slot migration in the steps of the protocol, so a test can run traffic in between:
  //   begin: target IMPORTING, source MIGRATING (missing keys of the slot now answer ASK);
  //   move_keys: MIGRATE up to max_keys keys of the slot from source to target;
  //   finish: SETSLOT NODE target on every master (the slot now answers MOVED at the source).
  void begin_slot_migration(int slot, std::size_t from, std::size_t to);
  std::size_t move_slot_keys(int slot, std::size_t from, std::size_t to,
                             std::size_t max_keys = static_cast<std::size_t>(-1));
  void finish_slot_migration(int slot, std::size_t from, std::size_t to);
  void migrate_slot(int slot, std::size_t to);  // all three steps

 private:
  std::string slot_map_of(std::size_t i) const;  // normalized CLUSTER SLOTS of node i

  redis_cluster_options options_;
  std::vector<std::unique_ptr<redis_server>> nodes_;
};

// calls= of one command in the server's INFO COMMANDSTATS (0 when it never ran).
long long calls_of(const redis_server& s, const std::string& command);
// INFO STATS' total_reads_processed: the reads the server did on client sockets (a pipeline sent
// with one write arrives in one read on the loopback).
long long reads_processed(const redis_server& s);

}  // namespace bloomkit::test
