#pragma once
// Internal: the hashing and geometry of one binary fuse table (Graf & Lemire 2022, "Binary Fuse
// Filters: Fast and Smaller Than Xor Filters"), 3-wise, with packed b-bit cells.
//
// A key hash h (XXH3-64 of the key) in a table of seed `seed`:
//   x = mix(h + seed)                      (murmur3's 64-bit finalizer: a bijection, so distinct
//                                           hashes stay distinct and x gives h back: unmix)
//   start segment s = multiply-high(x, segment_count)
//   cell j (j = 0, 1, 2) = (s + j) * segment_length + ((x >> 18j) mod segment_length)
//   fingerprint = low b bits of h          (independent of the seed: the same for every shard)
// and the key is present when the three cells XOR to its fingerprint. Cell i is the b-bit
// little-endian value at bit i*b of the table's bytes.

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "bloomkit/detail/multiply_high.hpp"

namespace bloomkit::detail {

inline constexpr std::uint64_t fuse_mix_a = 0xff51afd7ed558ccdULL;
inline constexpr std::uint64_t fuse_mix_b = 0xc4ceb9fe1a85ec53ULL;

// The inverse of an odd number modulo 2^64 (Newton's iteration doubles the correct bits).
constexpr std::uint64_t odd_inverse(std::uint64_t a) noexcept {
  std::uint64_t x = a;  // correct to 3 bits for odd a
  for (int i = 0; i < 6; ++i) x *= 2 - a * x;
  return x;
}

constexpr std::uint64_t fuse_mix(std::uint64_t v) noexcept {
  v ^= v >> 33;
  v *= fuse_mix_a;
  v ^= v >> 33;
  v *= fuse_mix_b;
  v ^= v >> 33;
  return v;
}

// unmix(fuse_mix(v)) == v: a construction keeps only x and recovers h (and so the fingerprint).
constexpr std::uint64_t fuse_unmix(std::uint64_t v) noexcept {
  v ^= v >> 33;  // x ^ x >> 33 undoes itself: 33 >= 32
  v *= odd_inverse(fuse_mix_b);
  v ^= v >> 33;
  v *= odd_inverse(fuse_mix_a);
  v ^= v >> 33;
  return v;
}

// The largest segment: 3 fields of 18 bits of x give the offsets.
inline constexpr std::uint32_t fuse_max_segment_bits = 18;

// The shape of one table: cells = (segment_count + 2) * segment_length.
struct fuse_geometry {
  std::uint32_t segment_length = 0;  // a power of two, at most 2^18
  std::uint32_t segment_count = 0;   // >= 1
  std::uint64_t cells() const noexcept {
    return (static_cast<std::uint64_t>(segment_count) + 2) * segment_length;
  }
};

// The paper's sizing for 3-wise fuse graphs: segment length 2^floor(ln n / ln 3.33 + 2.25),
// and cells >= n * max(1.125, 0.875 + 0.25 ln(10^6) / ln n).
inline fuse_geometry fuse_geometry_for(std::uint64_t n) noexcept {
  const double keys = static_cast<double>(n < 2 ? 2 : n);
  int bits = static_cast<int>(std::floor(std::log(keys) / std::log(3.33) + 2.25));
  if (bits > static_cast<int>(fuse_max_segment_bits)) bits = fuse_max_segment_bits;
  const std::uint64_t length = std::uint64_t{1} << bits;
  const double factor =
      n < 2 ? 0.0 : std::fmax(1.125, 0.875 + 0.25 * std::log(1e6) / std::log(keys));
  const auto wanted = static_cast<std::uint64_t>(std::ceil(static_cast<double>(n) * factor));
  const std::uint64_t segments = (wanted + length - 1) / length;
  return {static_cast<std::uint32_t>(length),
          static_cast<std::uint32_t>(segments > 2 ? segments - 2 : 1)};
}

// The three cells of x.
[[gnu::always_inline]] inline std::array<std::uint64_t, 3> fuse_cells(std::uint64_t x,
                                                                      fuse_geometry g) noexcept {
  const std::uint64_t mask = g.segment_length - 1;
  const std::uint64_t first = multiply_high(x, g.segment_count) * g.segment_length;
  return {first + (x & mask), first + g.segment_length + ((x >> 18) & mask),
          first + 2 * std::uint64_t{g.segment_length} + ((x >> 36) & mask)};
}

// Where key hash h sits in a shard of `seed`: the x its cells come from (the construction keeps
// x), and its three cells. The one definition for builds, lookups and the Redis layout.
constexpr std::uint64_t fuse_key(std::uint64_t h, std::uint64_t seed) noexcept {
  return fuse_mix(h + seed);
}
[[gnu::always_inline]] inline std::array<std::uint64_t, 3> fuse_key_cells(
    std::uint64_t h, std::uint64_t seed, fuse_geometry g) noexcept {
  return fuse_cells(fuse_key(h, seed), g);
}

[[gnu::always_inline]] inline std::uint32_t fuse_fingerprint(std::uint64_t h,
                                                             std::uint32_t bits) noexcept {
  return static_cast<std::uint32_t>(h & ((std::uint64_t{1} << bits) - 1));
}

// The packed cell at index i of b bits; the bytes extend 8 bytes past the last cell.
[[gnu::always_inline]] inline std::uint32_t load_cell(const unsigned char* bytes, std::uint64_t i,
                                                      std::uint32_t bits) noexcept {
  const std::uint64_t bit = i * bits;
  std::uint64_t word;
  std::memcpy(&word, bytes + (bit >> 3), sizeof word);  // little-endian hosts only (DESIGN.md)
  return static_cast<std::uint32_t>((word >> (bit & 7)) & ((std::uint64_t{1} << bits) - 1));
}

inline void store_cell(unsigned char* bytes, std::uint64_t i, std::uint32_t bits,
                       std::uint32_t value) noexcept {
  const std::uint64_t bit = i * bits;
  std::uint64_t word;
  std::memcpy(&word, bytes + (bit >> 3), sizeof word);
  const std::uint64_t mask = ((std::uint64_t{1} << bits) - 1) << (bit & 7);
  word = (word & ~mask) | ((static_cast<std::uint64_t>(value) << (bit & 7)) & mask);
  std::memcpy(bytes + (bit >> 3), &word, sizeof word);
}

// Bytes of a table of `cells` cells of b bits: the packed bits rounded up to 8 bytes, plus the 8
// bytes of padding that the last cell's 64-bit load reads.
constexpr std::uint64_t fuse_table_bytes(std::uint64_t cells, std::uint32_t bits) noexcept {
  return (cells * bits + 63) / 64 * 8 + 8;
}

}  // namespace bloomkit::detail
