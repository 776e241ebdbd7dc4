#pragma once
// Reading RedisBloom's packed little-endian integers (the BF.SCANDUMP and CF.SCANDUMP header
// chunks) through a cursor.

#include <cstdint>

namespace bloomkit::redisbloom {

// The `bytes`-byte (1 to 8) little-endian integer at p; p moves past it.
inline std::uint64_t read_le(const unsigned char*& p, int bytes) noexcept {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  p += bytes;
  return v;
}

}  // namespace bloomkit::redisbloom
