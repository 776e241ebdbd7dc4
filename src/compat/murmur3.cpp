#include "bloomkit/compat/murmur3.hpp"

#include <murmurhash.h>

#include <algorithm>
#include <cstdint>
#include <limits>

namespace bloomkit::compat {

digest128 murmur3_x64_128(std::string_view key) noexcept {
  std::uint64_t out[2];
  const auto length = static_cast<unsigned int>(
      std::min<std::size_t>(key.size(), std::numeric_limits<unsigned int>::max()));
  lmmh_x64_128(key.data(), length, 0, out);
  return {out[0], out[1]};
}

}  // namespace bloomkit::compat
