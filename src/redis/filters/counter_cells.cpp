#include "counter_cells.hpp"

#include <algorithm>
#include <vector>

#include "../client/reply_errors.hpp"

namespace bloomkit::redis::detail {

std::uint64_t nonzero_counters(client& c, const std::string& key, std::uint64_t counters) {
  constexpr std::uint64_t chunk = std::uint64_t{1} << 20;
  const std::uint64_t bytes = (counters + 1) / 2;
  std::vector<command> cs;
  for (std::uint64_t at = 0; at < bytes; at += chunk) {
    const std::uint64_t end = std::min(bytes, at + chunk) - 1;
    cs.push_back(command{{"GETRANGE", key, std::to_string(at), std::to_string(end)}, 1});
  }
  std::uint64_t n = 0;
  std::uint64_t cell = 0;
  for (const auto& r : c.execute_many(cs)) {
    check_reply(r, "GETRANGE " + key);
    for (const char ch : r.str()) {
      const auto b = static_cast<unsigned char>(ch);
      // Counter 2i is the high nibble (Redis numbers bits MSB-first); the low nibble of the last
      // byte of an odd count holds no counter (maybe the guard bit).
      n += (b >> 4) != 0;
      if (cell + 1 < counters) n += (b & 15) != 0;
      cell += 2;
    }
  }
  return n;
}

}  // namespace bloomkit::redis::detail
