#pragma once
// Connection URLs of bloomkit::redis (public: the connection settings that the CLI,
// examples/cache_guard and bindings take from their users and check before connecting):
//   redis://[user:password@]host[:port][/db]            one server (AUTH, then SELECT db)
//   redis-cluster://[user:password@]host[:port][,host[:port]...]   seed nodes of a cluster
//   redis-sentinel://[user:password@]host[:port][,host[:port]...]/MASTER_NAME[/db]
//                                                       the master that these sentinels name
//   rediss://, rediss-cluster://, rediss-sentinel://    the same over TLS (client_options::tls)
// The port defaults to 6379 (26379 for sentinels), db to 0. The user and password of a
// sentinel URL are the master's; the sentinels' own come from BLOOMKIT_SENTINEL_AUTH
// (settings_from_environment) or url::sentinel_user / sentinel_password. "user:password" sends AUTH
// user password, ":password" or "password" sends AUTH password (as redis-cli does); "user:" names
// an ACL user whose password comes from elsewhere (REDISCLI_AUTH). User and password may be
// %-encoded; the password ends at the last '@', so it may also hold '@', ':', '/' and ',' as they
// are, but '?' and '#' only
// %-encoded (%3F, %23). IPv6 hosts are written in brackets: redis://[::1]:6379.
// No message shows a password: URLs in messages have it replaced by "***" (see parse_url).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bloomkit::redis {

struct endpoint {
  std::string host;
  int port = 6379;
  std::string to_string() const;  // "host:port" ("[::1]:6379" for IPv6)
  friend bool operator==(const endpoint&, const endpoint&) = default;
};

struct url {
  bool cluster = false;         // redis-cluster:// (rediss-cluster://)
  bool sentinel = false;        // redis-sentinel:// (rediss-sentinel://)
  bool tls = false;             // rediss...: every connection (sentinels included) is TLS
  std::vector<endpoint> nodes;  // the server; the seeds of a cluster; the sentinels
  std::string master_name;      // the sentinels' name of the master (sentinel only)
  std::string user;             // empty: AUTH with the password only
  std::string password;         // empty: no AUTH
  int db = 0;                   // SELECT db (not on a cluster)
  // AUTH for the sentinels (sentinel only; not part of the URL's text).
  std::string sentinel_user;
  std::string sentinel_password;
  // The URL without the password: "redis://user@127.0.0.1:6379/2".
  std::string to_string() const;
};

// Throws bloomkit::error(errc::invalid_argument) naming the URL and the problem. The URL in the
// message hides whatever may be a password, also in malformed URLs: the user info after the user
// name (all of it without "user:"), a port that is not a number (a password whose "@host" is
// missing) and what follows it, and the values of a query string or fragment.
url parse_url(std::string_view text);

inline constexpr std::string_view default_url = "redis://127.0.0.1:6379";
inline constexpr const char* url_variable = "BLOOMKIT_REDIS_URL";
inline constexpr const char* password_variable = "REDISCLI_AUTH";  // as redis-cli reads it
// The sentinels' password ("password" or "user:password") for redis-sentinel:// URLs.
inline constexpr const char* sentinel_password_variable = "BLOOMKIT_SENTINEL_AUTH";

// How bloomkit's tools (the CLI, examples/cache_guard, bindings) find their server, so that a
// password need not be on a command line, where `ps` shows it.
struct connection_settings {
  redis::url url;  // password included, from the URL or from REDISCLI_AUTH
};

// The URL given (`--url`), else BLOOMKIT_REDIS_URL, else default_url; when that URL has no
// password, REDISCLI_AUTH gives it; a sentinel URL's sentinels get BLOOMKIT_SENTINEL_AUTH. Unset
// and empty variables are the same. Throws as parse_url; a bad URL from the environment is named by
// its variable ("BLOOMKIT_REDIS_URL: invalid ..."). Reads the environment (getenv): call it before
// starting threads that may change it.
connection_settings settings_from_environment(std::optional<std::string_view> url);

}  // namespace bloomkit::redis
