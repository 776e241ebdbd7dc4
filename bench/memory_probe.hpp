#pragma once
// The machine's memory limits, as loops over a buffer of 64-byte lines: dependent random reads
// (a pointer chase through one random cycle of all lines: the latency of one access) and
// independent random reads at precomputed line indices (the loads do not depend on each other,
// so the core keeps as many in flight as it can: the throughput bound of any lookup).
// Shared by bloom_bench.cpp (Google Benchmark) and memory_limits.cpp (bench/compare_peers).

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "bench_keys.hpp"

namespace bloomkit::bench {

inline constexpr std::size_t line_words = 8;  // 64-byte lines of 64-bit words

// Links word 0 of every whole line of `words` to the index of the next line of one random cycle
// through all of them (Sattolo's shuffle: a single cycle, so a chase visits every line).
inline void link_random_cycle(std::span<std::uint64_t> words, splitmix64& rng) {
  const std::size_t lines = words.size() / line_words;
  if (lines == 0) return;
  std::vector<std::uint32_t> next(lines);
  for (std::size_t i = 0; i < lines; ++i) next[i] = static_cast<std::uint32_t>(i);
  for (std::size_t i = lines - 1; i > 0; --i) std::swap(next[i], next[rng.below(i)]);
  for (std::size_t i = 0; i < lines; ++i) words[i * line_words] = next[i];
}

// `count` random line indices below `lines`, followed by copies of the first `pad` of them, so a
// loop that prefetches `pad` reads ahead never reads past the end.
inline std::vector<std::uint32_t> random_line_indices(std::size_t lines, std::size_t count,
                                                      std::size_t pad, splitmix64& rng) {
  std::vector<std::uint32_t> indices(count + pad);
  for (std::size_t i = 0; i < count; ++i) {
    indices[i] = static_cast<std::uint32_t>(rng.below(lines));
  }
  for (std::size_t i = 0; i < pad; ++i) indices[count + i] = indices[i % count];
  return indices;
}

// `count` dependent reads from line `line` on; returns the line reached.
inline std::uint64_t chase_lines(const std::uint64_t* words, std::uint64_t line,
                                 std::size_t count) noexcept {
  for (std::size_t j = 0; j < count; ++j) line = words[line * line_words];
  return line;
}

// Reads word 0 of the lines ix[0..count); with Locality >= 0 it also prefetches the line
// `distance` reads ahead (__builtin_prefetch locality: 3 = into L1, prefetcht0; 2 = into L2,
// prefetcht1). ix must hold count + distance indices. Returns the sum of the words read.
template <int Locality = -1>
inline std::uint64_t read_lines(const std::uint64_t* words, const std::uint32_t* ix,
                                std::size_t count, std::size_t distance = 0) noexcept {
  std::uint64_t sum = 0;
  for (std::size_t j = 0; j < count; ++j) {
    if constexpr (Locality >= 0) {
      __builtin_prefetch(words + std::size_t{ix[j + distance]} * line_words, 0, Locality);
    }
    sum += words[std::size_t{ix[j]} * line_words];
  }
  return sum;
}

}  // namespace bloomkit::bench
