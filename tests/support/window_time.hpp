#pragma once
// A time for tests of window filters in Redis: slices expire by the server's clock (EXPIREAT),
// so the times a test sets (--now, set_now) lie ahead of it, never behind.

#include <chrono>
#include <cstdint>

namespace bloomkit::test {

// The start of tomorrow (UTC): a boundary of every slice length that divides a day.
inline std::uint64_t start_of_tomorrow() {
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  return (static_cast<std::uint64_t>(seconds) / 86400 + 1) * 86400;
}

}  // namespace bloomkit::test
