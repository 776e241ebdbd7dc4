#pragma once
// The construction input of every static variant in the bench: the keys' 64-bit hashes remixed
// with a seed (a bijection, so distinct hashes stay distinct), sorted and deduplicated. Sorting
// puts keys with nearby table positions next to each other (both the fuse filter's first
// position and the Ribbon's start are monotone in the remixed hash), so construction walks its
// tables almost sequentially instead of taking a cache miss per key.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "bench_keys.hpp"

namespace bloomkit::bench::static_variants {

// The seeded remix of a key hash: what the variants derive positions and fingerprints from.
constexpr std::uint64_t remix(std::uint64_t hash, std::uint64_t seed) noexcept {
  return mix64(hash + seed * 0x9e3779b97f4a7c15ULL);
}

// remix(h, seed) for every h, sorted ascending, duplicates dropped. One counting pass over the
// top bits into buckets of about 64 values, then each bucket sorted on its own.
inline std::vector<std::uint64_t> sorted_remixed(std::span<const std::uint64_t> hashes,
                                                 std::uint64_t seed) {
  const std::size_t n = hashes.size();
  const unsigned bucket_bits = std::clamp(static_cast<int>(std::bit_width(n)) - 6, 1, 22);
  const unsigned shift = 64 - bucket_bits;
  std::vector<std::uint32_t> starts((std::size_t{1} << bucket_bits) + 1, 0);
  for (const auto h : hashes) ++starts[(remix(h, seed) >> shift) + 1];
  for (std::size_t b = 1; b < starts.size(); ++b) starts[b] += starts[b - 1];
  std::vector<std::uint64_t> out(n);
  std::vector<std::uint32_t> fill(starts.begin(), starts.end() - 1);
  for (const auto h : hashes) {
    const std::uint64_t x = remix(h, seed);
    out[fill[x >> shift]++] = x;
  }
  for (std::size_t b = 0; b + 1 < starts.size(); ++b) {
    std::sort(out.begin() + starts[b], out.begin() + starts[b + 1]);
  }
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace bloomkit::bench::static_variants
