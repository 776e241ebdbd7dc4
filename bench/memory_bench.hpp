#pragma once
// bloomkit_bench's memory bound: random reads, hashing plus one read per key, and pointer
// chases through buffers the size of the filters (bloom_bench.cpp).

#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

#include "bench_dataset.hpp"
#include "bloomkit/detail/multiply_high.hpp"
#include "bloomkit/hashing.hpp"

namespace bloomkit::bench {

// ---------------------------------------------------------------------------------------------
// The memory bound.

// Independent random reads: the loads do not depend on each other, so the core keeps as many
// in flight as its miss buffers allow. This is the best a lookup of one line can do.
inline void bm_random_read(benchmark::State& state, std::size_t n) {
  auto& d = data_for(n);
  const auto& m = d.membound();
  const std::uint64_t* words = m.buffer.data();
  const std::uint32_t* indices = m.indices.data();
  std::size_t& pos = d.cursor("mem/random_read");
  std::uint64_t sum = 0;
  for (auto _ : state) {
    sum += bloomkit::bench::read_lines(words, indices + pos, batch);
    pos = (pos + batch) & (read_indices - 1);
  }
  benchmark::DoNotOptimize(sum);
  finish(state);
}

// The same reads with a software prefetch prefetch_distance reads ahead, into L1 (Locality 3,
// prefetcht0) or into L2 only (Locality 2, prefetcht1). On this machine the L2 variant keeps
// about twice as many line fills in flight as L1 allows: it is the memory bound proper.
template <int Locality>
inline void bm_random_read_prefetch(benchmark::State& state, std::size_t n, const char* cursor) {
  auto& d = data_for(n);
  const auto& m = d.membound();
  const std::uint64_t* words = m.buffer.data();
  const std::uint32_t* indices = m.indices.data();
  std::size_t& pos = d.cursor(cursor);
  std::uint64_t sum = 0;
  for (auto _ : state) {
    sum += bloomkit::bench::read_lines<Locality>(words, indices + pos, batch, prefetch_distance);
    pos = (pos + batch) & (read_indices - 1);
  }
  benchmark::DoNotOptimize(sum);
  finish(state);
}

// The bound of a lookup of one line per key: XXH3-64 of each miss key, its line (multiply-high of
// the digest) prefetched into L2, and read 16 keys later, as the blocked filter's pipeline does,
// without the bit tests.
inline void bm_hash_and_read(benchmark::State& state, std::size_t n) {
  auto& d = data_for(n);
  const auto& m = d.membound();
  const std::uint64_t* words = m.buffer.data();
  const std::uint64_t lines = m.buffer.word_count() / bloomkit::bench::line_words;
  const auto keys = d.misses().keys();
  std::size_t& pos = d.cursor("mem/hash_and_read");
  constexpr std::size_t lag = 16;
  const std::uint64_t* ring[32];
  std::uint64_t sum = 0;
  for (auto _ : state) {
    for (std::size_t j = 0; j < batch + lag; ++j) {
      if (j < batch) {
        const std::uint64_t h = bloomkit::xxh3_64(keys[pos + j]);
        const std::uint64_t* line =
            words + bloomkit::detail::multiply_high(h, lines) * bloomkit::bench::line_words;
        __builtin_prefetch(line, 0, 2);
        ring[j % 32] = line;
      }
      if (j >= lag) sum += *ring[(j - lag) % 32];
    }
    pos = advance(pos, keys.size());
  }
  benchmark::DoNotOptimize(sum);
  finish(state);
}

// Dependent random reads (a pointer chase) through the buffer of the filter's size: the latency a
// single-key lookup pays at least once per key.
inline void bm_chase_filter_size(benchmark::State& state, std::size_t n) {
  auto& d = data_for(n);
  const std::uint64_t* words = d.membound().buffer.data();
  std::size_t& pos = d.cursor("mem/chase");
  std::uint64_t p = pos;
  for (auto _ : state) p = bloomkit::bench::chase_lines(words, p, batch);
  pos = p;
  benchmark::DoNotOptimize(p);
  finish(state);
}

// Dependent random reads through a single random cycle over the lines of 1 GiB: the latency of
// one DRAM access (for information; a lookup need not pay it once per line).
struct chase_buffer {
  bloomkit::bit_array buffer{chase_bytes * 8};
  std::uint64_t position = 0;
  chase_buffer() {
    stopwatch t;
    splitmix64 rng(0x6368617365);
    bloomkit::bench::link_random_cycle(buffer.mutable_words(), rng);
    note("built the 1 GiB pointer-chase cycle in " + fmt_seconds(t.seconds()));
  }
};

inline void bm_chase(benchmark::State& state) {
  static chase_buffer chase;
  const std::uint64_t* words = chase.buffer.data();
  std::uint64_t p = chase.position;
  for (auto _ : state) p = bloomkit::bench::chase_lines(words, p, batch);
  chase.position = p;
  benchmark::DoNotOptimize(p);
  finish(state);
}

}  // namespace bloomkit::bench
