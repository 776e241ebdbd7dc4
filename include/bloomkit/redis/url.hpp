#pragma once
// Connection URLs of bloomkit::redis:
//   redis://[user:password@]host[:port][/db]            one server (AUTH, then SELECT db)
//   redis-cluster://[user:password@]host[:port][,host[:port]...]   seed nodes of a cluster
// The port defaults to 6379, db to 0. "user:password" sends AUTH user password, ":password" or
// "password" sends AUTH password (as redis-cli does). User and password may be %-encoded.
// IPv6 hosts are written in brackets: redis://[::1]:6379.

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
  bool cluster = false;         // redis-cluster://
  std::vector<endpoint> nodes;  // one for redis://, one or more seeds for redis-cluster://
  std::string user;             // empty: AUTH with the password only
  std::string password;         // empty: no AUTH
  int db = 0;                   // SELECT db (redis:// only)
  // The URL without the password: "redis://user@127.0.0.1:6379/2".
  std::string to_string() const;
};

// Throws bloomkit::error(errc::invalid_argument) naming the URL (password hidden) and the problem.
url parse_url(std::string_view text);

}  // namespace bloomkit::redis
