#pragma once
// What the parts of the service share (service.cpp: loading the filter; service_recovery.cpp:
// trusting and reloading it; service_routes.cpp: the HTTP handlers).

#include <charconv>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "bloomkit/error.hpp"
#include "http_server.hpp"

namespace cache_guard {

using clock = std::chrono::steady_clock;

// Errors that say the filter is missing or broken (rather than Redis being unreachable or
// busy): a reload recreates it.
inline bool filter_is_broken(bloomkit::errc code) {
  using bloomkit::errc;
  return code == errc::not_found || code == errc::wrong_type || code == errc::incompatible ||
         code == errc::corrupt_file;  // a corrupt meta
}

// The id of /item/{id}: a positive decimal integer that fits int64.
inline std::optional<std::int64_t> parse_id(const std::string& text) {
  std::int64_t id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size() || id <= 0 || text[0] == '+') {
    return std::nullopt;
  }
  return id;
}

inline void reply_text(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body, "text/plain");
}

// The id of the request's /item/{id}; nullopt after answering 400.
inline std::optional<std::int64_t> item_id(const httplib::Request& req, httplib::Response& res) {
  const std::string text = req.matches[1];
  const auto id = parse_id(text);
  if (!id) reply_text(res, 400, "bad id \"" + text + "\": expected a positive integer\n");
  return id;
}

inline double seconds_since(clock::time_point start) {
  return std::chrono::duration<double>(clock::now() - start).count();
}

}  // namespace cache_guard
