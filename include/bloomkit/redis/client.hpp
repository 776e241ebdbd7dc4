#pragma once
// bloomkit::redis::client: a connection to one Redis server, to a Redis Cluster, or to the
// master that Redis Sentinels name; plain TCP or TLS (rediss://). hiredis's reply parser and
// OpenSSL underneath, kept out of this header.
//
// - Error replies come back as reply{kind::error}; the caller decides what they mean (WRONGTYPE ->
//   errc::wrong_type naming the key, ...). The client handles by itself: MOVED (update the slot
//   map, retry on the new owner), ASK (ASKING + retry on the target, map unchanged), TRYAGAIN /
//   CLUSTERDOWN / LOADING (retry after retry_delay, up to max_retries; then the error reply is
//   returned), and broken connections (reconnect + retry up to max_retries, then
//   errc::unreachable naming host:port). A command without a reply within command_timeout throws
//   errc::timeout (the connection is dropped: its late reply must not answer the next command).
//   AUTH refused, or NOAUTH from the server: errc::auth_failed. Bad URL: errc::invalid_argument.
// - Sentinel: the master comes from the sentinels (SENTINEL get-master-addr-by-name) and must
//   say ROLE master; a broken connection or a READONLY reply (a demoted master) asks them again
//   before the retry, so a failover costs retries, not an error, when they outlast it.
// - TLS: the server's certificate is verified (tls_options); a certificate the client refuses,
//   a server that refuses the client's, and a plaintext server on a TLS URL (or the reverse)
//   throw errc::unreachable naming host:port at once (no retries: they cannot help).
// - Retries after a lost connection may run a command twice. Fine for idempotent commands
//   (BITFIELD SET, SET, HSET, GET, ...); do not send INCR-like commands through a client that
//   must not repeat them.
// - Reconnection is lazy: after a server restart the next command reconnects; the client object
//   never needs to be recreated.
// - A client is used by one thread at a time; give each thread its own client. execute_many may
//   use threads internally (one per cluster node group); they never outlive the call.

#include <chrono>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/redis/url.hpp"

namespace bloomkit::redis {

// TLS for rediss:// URLs. Given with a redis:// URL (any of the files or server_name), connect
// refuses them (errc::invalid_argument): a plaintext connection would silently ignore them.
// Every file must be a readable regular file (a FIFO, directory or device is refused at once,
// naming the option and the file: OpenSSL would block reading a FIFO for ever).
struct tls_options {
  // PEM file of the CA certificates to trust; empty: the system's store (OpenSSL's default
  // paths, which SSL_CERT_FILE / SSL_CERT_DIR override).
  std::string ca_file;
  // A client certificate (PEM, chain allowed) and its key, for servers that require one
  // (tls-auth-clients yes). Both or neither.
  std::string cert_file;
  std::string key_file;
  // The passphrase of an encrypted key_file (the CLI takes it from BLOOMKIT_TLS_KEY_PASSPHRASE).
  // Nothing ever prompts for one: an encrypted key without it is an error saying so.
  std::string key_passphrase;
  // The name the server's certificate must carry, also sent as SNI; empty: the host of the URL
  // (or the address a cluster or sentinel names). An IP address is checked against the
  // certificate's IP entries.
  std::string server_name;
};

// Where bloomkit's tools (the CLI) read tls_options::key_passphrase from: a passphrase on a
// command line shows in `ps`.
inline constexpr const char* key_passphrase_variable = "BLOOMKIT_TLS_KEY_PASSPHRASE";

struct client_options {
  std::chrono::milliseconds connect_timeout{2000};
  std::chrono::milliseconds command_timeout{5000};
  int max_redirects = 16;  // MOVED/ASK hops per command
  int max_retries = 3;     // reconnect attempts on a broken connection / failover
  std::chrono::milliseconds retry_delay{100};  // before the first retry; doubles on each next one
  tls_options tls;                             // for rediss:// URLs
};

// An owning value copy of a server reply.
class reply {
 public:
  enum class kind { nil, integer, string, status, array, error };

  reply() = default;  // nil
  static reply make_nil() { return {}; }
  static reply make_integer(long long value);
  static reply make_string(std::string bytes);
  static reply make_status(std::string text);
  static reply make_error(std::string text);
  static reply make_array(std::vector<reply> elements);

  kind type() const { return kind_; }
  bool is_error() const { return kind_ == kind::error; }
  bool is_nil() const { return kind_ == kind::nil; }
  long long integer() const;                   // throws bloomkit::error if not an integer
  const std::string& str() const;              // string / status / error text; throws otherwise
  const std::vector<reply>& elements() const;  // array elements; throws if not an array
  // A short human-readable form for messages and tests: 42, "abc", OK, (error) ERR ..., [1, 2].
  std::string to_string() const;

 private:
  kind kind_ = kind::nil;
  long long integer_ = 0;
  std::string str_;
  std::vector<reply> elements_;
};

// Binary-safe arguments.
struct command {
  std::vector<std::string> args;
  std::size_t key_index = 1;  // which arg is the routing key; 0 = no key (any node)
};

namespace detail {
struct client_access;  // internal access point (src/redis/client/client_stats.hpp)
}

class client {
 public:
  // Connects now (and, for a cluster, loads the slot map; for sentinels, finds the master), so
  // a bad address, password, certificate or URL fails here. Throws bloomkit::error:
  // invalid_argument, unreachable, auth_failed, timeout.
  static client connect(std::string_view url, client_options options = {});
  // The same with a parsed URL (e.g. settings_from_environment(...).url, whose password may come
  // from REDISCLI_AUTH). A URL naming a user without a password: errc::invalid_argument.
  static client connect(const url& target, client_options options = {});

  client(client&&) noexcept;
  client& operator=(client&&) noexcept;
  client(const client&) = delete;
  client& operator=(const client&) = delete;
  ~client();

  reply execute(const command& c);
  // Pipelined (per node, node groups in parallel in a cluster); replies in input order.
  std::vector<reply> execute_many(std::span<const command> cs);
  // The same command on every master (e.g. INFO, FLUSHALL); one reply per master, in the order
  // of masters().
  std::vector<reply> execute_on_masters(const command& c);
  // One command per master: per_master[i] runs on masters()[i] (e.g. SCAN with each master's
  // cursor). per_master.size() must be master_count() (errc::invalid_argument otherwise).
  std::vector<reply> execute_on_masters(std::span<const command> per_master);

  bool is_cluster() const;
  std::size_t master_count() const;          // 1 for a single node
  std::vector<std::string> masters() const;  // "host:port" of each master (slot-map order)

  // WAIT replicas timeout on every master this client sent commands to since the last call;
  // returns the smallest acknowledged count. A master whose connection broke since then counts
  // 0 (its writes may be lost). Nothing sent since the last call: returns `replicas`.
  long long wait_replicas(int replicas, std::chrono::milliseconds timeout);

  std::string describe() const;  // "redis://127.0.0.1:6379" (never the password)
  const client_options& options() const;

 private:
  friend struct detail::client_access;
  struct impl;
  explicit client(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

}  // namespace bloomkit::redis
