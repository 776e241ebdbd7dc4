#pragma once
// MurmurHash3 x64 128 (seed 0), the hash under every interop scheme (Guava's murmur3_128,
// bits-and-blooms' sum256, go-zero's Sum64), computed by Debian's libmurmurhash (lmmh_x64_128).

#include <string_view>

#include "bloomkit/hashing.hpp"

namespace bloomkit::compat {

// The two 64-bit halves h1 (low) and h2 (high) as the reference implementation returns them:
// Guava's HashCode bytes are h1 then h2 in little-endian order, so asLong() is h1; Go's
// murmur3.Sum128 returns (h1, h2) and Sum64 returns h1.
// Keys longer than 2^32 - 1 bytes hash their first 2^32 - 1 bytes (libmurmurhash takes an
// unsigned int length); no peer can hold such keys (Java arrays stop below 2^31).
digest128 murmur3_x64_128(std::string_view key) noexcept;

}  // namespace bloomkit::compat
