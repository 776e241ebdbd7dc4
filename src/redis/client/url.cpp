#include "bloomkit/redis/url.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "bloomkit/error.hpp"

namespace bloomkit::redis {
namespace {

constexpr std::string_view hidden = "***";
constexpr int default_port = 6379;
constexpr int default_sentinel_port = 26379;

// The schemes, longest first where one is a prefix of another.
struct scheme {
  std::string_view text;
  bool tls;
  bool cluster;
  bool sentinel;
};
constexpr scheme schemes[] = {
    {"redis://", false, false, false},         {"rediss://", true, false, false},
    {"redis-cluster://", false, true, false},  {"rediss-cluster://", true, true, false},
    {"redis-sentinel://", false, false, true}, {"rediss-sentinel://", true, false, true},
};

std::string_view scheme_of(const url& u) {
  for (const auto& s : schemes) {
    if (s.tls == u.tls && s.cluster == u.cluster && s.sentinel == u.sentinel) return s.text;
  }
  return schemes[0].text;
}

bool is_digits(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// --- redaction: the URL as a message may show it ----------------------------------------------
// It works on any text, well-formed or not, and hides everything that could be a password under
// any reading of it.

// The scheme at the start of `text` as far as redaction is concerned: "any-scheme://", or a typo
// of ours ("redis:", "redis:/", "redis-cluster:/"); 0 if none.
std::size_t scheme_length(std::string_view text) {
  if (const auto end = text.find("://"); end != std::string_view::npos && end > 0) {
    const auto name = text.substr(0, end);
    const bool is_scheme = std::all_of(name.begin(), name.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '+' || c == '-' || c == '.';
    });
    if (is_scheme) return end + 3;
  }
  for (const std::string_view name : {"redis-cluster:", "rediss-cluster:", "redis-sentinel:",
                                      "rediss-sentinel:", "rediss:", "redis:"}) {
    if (text.starts_with(name)) {
      const auto end = text.find_first_not_of('/', name.size());
      return end == std::string_view::npos ? text.size() : end;
    }
  }
  return 0;
}

// In "host:port,host:port/db": the position just past the first ':' that a number does not
// follow, npos if none. What follows it may be a password whose "@host" is missing (as in
// "redis://user:password"), so it is hidden. Bracketed IPv6 addresses are skipped; an
// unbracketed one is hidden too; after an unterminated '[' (which the parser reports), nothing.
std::size_t hidden_from(std::string_view hosts) {
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    if (hosts[i] == '[') {
      const auto close = hosts.find(']', i);
      if (close == std::string_view::npos) return close;
      i = close;
    } else if (hosts[i] == ':') {
      const auto end = std::min(hosts.find_first_of(",/", i + 1), hosts.size());
      if (!is_digits(hosts.substr(i + 1, end - i - 1))) return i + 1;
    }
  }
  return std::string_view::npos;
}

// "?a=1&b#frag" -> "?a=***&***#***": any value may be a password (?password=).
std::string redacted_query(std::string_view query) {
  std::string out;
  std::size_t start = 0;
  while (start < query.size()) {
    out += query[start];  // '?', '&' or '#'
    const auto end = std::min(query.find_first_of("?&#", start + 1), query.size());
    const auto item = query.substr(start + 1, end - start - 1);
    if (const auto equals = item.find('='); equals != std::string_view::npos) {
      out += std::string(item.substr(0, equals + 1)) + std::string(hidden);
    } else if (!item.empty()) {
      out += hidden;
    }
    start = end;
  }
  return out;
}

std::string redacted(std::string_view text) {
  const auto scheme = scheme_length(text);
  std::string out(text.substr(0, scheme));
  auto rest = text.substr(scheme);
  const auto at = rest.rfind('@');
  const auto query = rest.find_first_of("?#");
  if (at != std::string_view::npos) {
    // User info: the user name stays ("alice:***@"), the rest is hidden.
    const auto colon = rest.find(':');
    if (colon > 0 && colon < at && colon < query) out += std::string(rest.substr(0, colon + 1));
    out += hidden;
    // A '?' or '#' before the '@' may be in the password, or the '@' in a query value: the
    // text after the '@' may be either, so it is hidden too.
    if (query < at) return out;
    out += '@';
    rest = rest.substr(at + 1);
  }
  const auto query_start = std::min(rest.find_first_of("?#"), rest.size());
  const auto hosts = rest.substr(0, query_start);
  if (const auto from = hidden_from(hosts); from != std::string_view::npos) {
    return out + std::string(hosts.substr(0, from)) + std::string(hidden);
  }
  return out + std::string(hosts) + redacted_query(rest.substr(query_start));
}

[[noreturn]] void fail(std::string_view text, const std::string& problem) {
  throw error(errc::invalid_argument, "invalid Redis URL \"" + redacted(text) + "\": " + problem);
}

// --- parsing -------------------------------------------------------------------------------

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decode(std::string_view text, std::string_view part, std::string_view url) {
  std::string out;
  out.reserve(part.size());
  for (std::size_t i = 0; i < part.size(); ++i) {
    if (part[i] != '%') {
      out += part[i];
      continue;
    }
    if (i + 2 >= part.size() || hex_value(part[i + 1]) < 0 || hex_value(part[i + 2]) < 0) {
      fail(url, "bad %-escape in the " + std::string(text));
    }
    const int hi = hex_value(part[i + 1]);
    const int lo = hex_value(part[i + 2]);
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

// Parses a decimal number in [min, max]; false if not a plain number or out of range.
bool parse_number(std::string_view digits, int min, int max, int& value) {
  if (digits.empty()) return false;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return ec == std::errc() && end == digits.data() + digits.size() && value >= min && value <= max;
}

endpoint parse_endpoint(std::string_view hostport, std::string_view url, int port) {
  endpoint ep;
  ep.port = port;
  std::string_view port_text;
  bool has_port = false;
  if (hostport.starts_with('[')) {  // [IPv6]:port
    const auto close = hostport.find(']');
    if (close == std::string_view::npos) fail(url, "unterminated '[' in host");
    ep.host = std::string(hostport.substr(1, close - 1));
    const auto rest = hostport.substr(close + 1);
    if (!rest.empty()) {
      if (rest[0] != ':') fail(url, "expected ':port' after ']'");
      port_text = rest.substr(1);
      has_port = true;
    }
  } else {
    const auto colon = hostport.rfind(':');
    if (colon != std::string_view::npos) {
      if (hostport.find(':') != colon) fail(url, "IPv6 hosts must be written in brackets");
      ep.host = std::string(hostport.substr(0, colon));
      port_text = hostport.substr(colon + 1);
      has_port = true;
    } else {
      ep.host = std::string(hostport);
    }
  }
  if (ep.host.empty()) fail(url, "missing host");
  if (has_port && !parse_number(port_text, 1, 65535, ep.port)) {
    // Not a number: maybe "redis://user:password" without its "@host"; never echo it.
    fail(url, is_digits(port_text)
                  ? "port \"" + std::string(port_text) + "\" is not a number in 1-65535"
                  : "port (hidden: it may be a password) is not a number in 1-65535");
  }
  return ep;
}

// A query string or fragment, which this parser does not accept: why, without its values.
[[noreturn]] void fail_on_query(std::string_view text, std::string_view query, bool before_at) {
  if (query.find("password=") != std::string_view::npos) {
    fail(text,
         "a password in the query string is not supported: write "
         "redis://[user]:password@host or set REDISCLI_AUTH");
  }
  if (before_at) {
    fail(text, "'?' or '#' before the '@': %-encode them in a password (%3F, %23)");
  }
  fail(text, "query strings and fragments are not supported");
}

const char* non_empty_variable(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

}  // namespace

std::string endpoint::to_string() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::string url::to_string() const {
  std::string out(scheme_of(*this));
  if (!user.empty()) out += user + "@";
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (i > 0) out += ',';
    out += nodes[i].to_string();
  }
  if (sentinel) out += "/" + master_name;
  if (db != 0) {
    out += '/';
    out += std::to_string(db);
  }
  return out;
}

url parse_url(std::string_view text) {
  url result;
  std::string_view rest;
  const scheme* kind = nullptr;
  for (const auto& s : schemes) {
    if (text.starts_with(s.text)) kind = &s;
  }
  if (kind == nullptr) fail(text, "expected redis://host:port or redis-cluster://host:port,...");
  result.tls = kind->tls;
  result.cluster = kind->cluster;
  result.sentinel = kind->sentinel;
  rest = text.substr(kind->text.size());

  const auto at = rest.rfind('@');
  if (const auto query = rest.find_first_of("?#"); query != std::string_view::npos) {
    fail_on_query(text, rest.substr(query), at != std::string_view::npos && query < at);
  }

  // User info: everything up to the last '@', so that a password may hold '@', ':' and '/'.
  if (at != std::string_view::npos) {
    const auto userinfo = rest.substr(0, at);
    rest = rest.substr(at + 1);
    if (const auto colon = userinfo.find(':'); colon != std::string_view::npos) {
      result.user = percent_decode("user", userinfo.substr(0, colon), text);
      result.password = percent_decode("password", userinfo.substr(colon + 1), text);
    } else {
      result.password = percent_decode("password", userinfo, text);
    }
    // "user:@host" leaves the password to REDISCLI_AUTH; "@host" and ":@host" are mistakes.
    if (result.user.empty() && result.password.empty()) fail(text, "empty password");
  }

  // Hosts, then "/db" (single server only): a bad port is reported before what follows it.
  const auto slash = rest.find('/');
  const auto hosts = rest.substr(0, slash);
  if (hosts.empty()) fail(text, "missing host");
  std::size_t start = 0;
  while (true) {
    const auto comma = hosts.find(',', start);
    const auto part =
        hosts.substr(start, comma == std::string_view::npos ? hosts.npos : comma - start);
    if (part.empty()) fail(text, "empty host in the node list");
    result.nodes.push_back(
        parse_endpoint(part, text, result.sentinel ? default_sentinel_port : default_port));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (!result.cluster && !result.sentinel && result.nodes.size() > 1) {
    fail(text, result.tls ? "several hosts need rediss-cluster:// (or rediss-sentinel://)"
                          : "several hosts need redis-cluster://");
  }
  if (result.sentinel) {
    // "/MASTER_NAME[/db]"
    auto path = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    const auto next = path.find('/');
    result.master_name = std::string(path.substr(0, next));
    if (result.master_name.empty()) {
      fail(text, "missing the master's name: " + std::string(kind->text) +
                     "host:port[,host:port...]/MASTER_NAME[/db]");
    }
    path = next == std::string_view::npos ? std::string_view() : path.substr(next + 1);
    if (!path.empty() && !parse_number(path, 0, 1 << 30, result.db)) {
      fail(text, "database \"" + std::string(path) + "\" is not a non-negative number");
    }
    return result;
  }
  if (slash != std::string_view::npos) {
    const auto path = rest.substr(slash + 1);
    if (!path.empty()) {
      if (result.cluster)
        fail(text, "a cluster has no databases; remove \"/" + std::string(path) + "\"");
      if (!parse_number(path, 0, 1 << 30, result.db)) {
        fail(text, "database \"" + std::string(path) + "\" is not a non-negative number");
      }
    }
  }
  return result;
}

connection_settings settings_from_environment(std::optional<std::string_view> url) {
  connection_settings settings;
  if (url) {
    settings.url = parse_url(*url);
  } else if (const char* from_environment = non_empty_variable(url_variable)) {
    settings.url = bloomkit::detail::with_context([] { return std::string(url_variable) + ": "; },
                                                  [&] { return parse_url(from_environment); });
  } else {
    settings.url = parse_url(default_url);
  }
  if (settings.url.password.empty()) {
    if (const char* password = non_empty_variable(password_variable)) {
      settings.url.password = password;
    }
  }
  if (settings.url.sentinel && settings.url.sentinel_password.empty()) {
    // "password" or "user:password", as the URL's user info.
    if (const char* auth = non_empty_variable(sentinel_password_variable)) {
      const std::string_view text(auth);
      const auto colon = text.find(':');
      if (colon == std::string_view::npos) {
        settings.url.sentinel_password = text;
      } else {
        settings.url.sentinel_user = text.substr(0, colon);
        settings.url.sentinel_password = text.substr(colon + 1);
      }
    }
  }
  return settings;
}

}  // namespace bloomkit::redis
