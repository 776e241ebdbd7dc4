#include "bloomkit/redis/url.hpp"

#include <charconv>

#include "bloomkit/error.hpp"

namespace bloomkit::redis {
namespace {

constexpr std::string_view single_scheme = "redis://";
constexpr std::string_view cluster_scheme = "redis-cluster://";

// The URL as it may appear in a message: the password replaced by "***".
std::string redacted(std::string_view text) {
  const auto scheme_end = text.find("://");
  const auto at = text.rfind('@');
  if (scheme_end == std::string_view::npos || at == std::string_view::npos || at < scheme_end) {
    return std::string(text);
  }
  const auto userinfo = text.substr(scheme_end + 3, at - scheme_end - 3);
  const auto colon = userinfo.find(':');
  const std::string user =
      colon == std::string_view::npos ? "" : std::string(userinfo.substr(0, colon));
  return std::string(text.substr(0, scheme_end + 3)) + user + (user.empty() ? "***" : ":***") +
         std::string(text.substr(at));
}

[[noreturn]] void fail(std::string_view text, const std::string& problem) {
  throw error(errc::invalid_argument, "invalid Redis URL \"" + redacted(text) + "\": " + problem);
}

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

endpoint parse_endpoint(std::string_view hostport, std::string_view url) {
  endpoint ep;
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
    fail(url, "port \"" + std::string(port_text) + "\" is not a number in 1-65535");
  }
  return ep;
}

}  // namespace

std::string endpoint::to_string() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::string url::to_string() const {
  std::string out(cluster ? cluster_scheme : single_scheme);
  if (!user.empty()) out += user + "@";
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (i > 0) out += ',';
    out += nodes[i].to_string();
  }
  if (db != 0) {
    out += '/';
    out += std::to_string(db);
  }
  return out;
}

url parse_url(std::string_view text) {
  url result;
  std::string_view rest;
  if (text.starts_with(single_scheme)) {
    rest = text.substr(single_scheme.size());
  } else if (text.starts_with(cluster_scheme)) {
    result.cluster = true;
    rest = text.substr(cluster_scheme.size());
  } else {
    fail(text, "expected redis://host:port or redis-cluster://host:port,...");
  }

  // Path: "/db" (single server only).
  if (const auto slash = rest.find('/'); slash != std::string_view::npos) {
    const auto path = rest.substr(slash + 1);
    rest = rest.substr(0, slash);
    if (!path.empty()) {
      if (result.cluster)
        fail(text, "a cluster has no databases; remove \"/" + std::string(path) + "\"");
      if (!parse_number(path, 0, 1 << 30, result.db)) {
        fail(text, "database \"" + std::string(path) + "\" is not a non-negative number");
      }
    }
  }
  if (rest.find_first_of("?#") != std::string_view::npos) {
    fail(text, "query strings and fragments are not supported");
  }

  // Userinfo: everything up to the last '@' (a password may contain '@' only %-encoded, but be
  // lenient and split at the last one).
  if (const auto at = rest.rfind('@'); at != std::string_view::npos) {
    const auto userinfo = rest.substr(0, at);
    rest = rest.substr(at + 1);
    if (const auto colon = userinfo.find(':'); colon != std::string_view::npos) {
      result.user = percent_decode("user", userinfo.substr(0, colon), text);
      result.password = percent_decode("password", userinfo.substr(colon + 1), text);
    } else {
      result.password = percent_decode("password", userinfo, text);
    }
    if (result.password.empty()) fail(text, "empty password");
  }

  if (rest.empty()) fail(text, "missing host");
  std::size_t start = 0;
  while (true) {
    const auto comma = rest.find(',', start);
    const auto part =
        rest.substr(start, comma == std::string_view::npos ? rest.npos : comma - start);
    if (part.empty()) fail(text, "empty host in the node list");
    result.nodes.push_back(parse_endpoint(part, text));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (!result.cluster && result.nodes.size() > 1) {
    fail(text, "several hosts need redis-cluster://");
  }
  return result;
}

}  // namespace bloomkit::redis
