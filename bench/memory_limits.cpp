// bench_memory_limits: the machine's memory limits in one line of JSON, for bench/compare_peers.
//
//   bench_memory_limits [--reps R]
//
// Into a 1 GiB buffer allocated like a filter's bits (bit_array: 2 MiB aligned, huge pages):
//   dependent_access_ns       one dependent random read (pointer chase through a single random
//                             cycle of all lines): the latency a single-key lookup pays
//   independent_read_ns       one independent random 64-byte line read (plain loads)
//   independent_read_l2_prefetch_ns  the same with a prefetch into L2 64 reads ahead (the
//                             fastest variant on bench/run's machine)
// Each is the median of R repetitions (default 7). Method: docs/PERFORMANCE.md.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "bench_keys.hpp"
#include "bloomkit/bit_array.hpp"
#include "memory_probe.hpp"

namespace {

using bloomkit::bench::splitmix64;

constexpr std::uint64_t buffer_bytes = std::uint64_t{1} << 30;
constexpr std::size_t chase_steps = std::size_t{1} << 21;  // about 0.3-0.5 s per repetition
constexpr std::size_t index_count = std::size_t{1} << 20;  // 4 MiB of indices, read in order
constexpr std::size_t read_passes = 16;                    // 16 Mi reads per repetition
constexpr std::size_t prefetch_distance = 64;

volatile std::uint64_t sink;  // keeps the loops' results alive

template <class Loop>
double ns_per(std::size_t operations, Loop loop) {
  const auto start = std::chrono::steady_clock::now();
  loop();
  const auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(end - start).count() /
         static_cast<double>(operations);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 == 1 ? v[h] : (v[h - 1] + v[h]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 7;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      char* end = nullptr;
      const long v = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || v < 1 || v > 1000) {
        std::fprintf(stderr, "bench_memory_limits: --reps wants 1..1000, got '%s'\n", argv[i]);
        return 2;
      }
      reps = static_cast<int>(v);
    } else {
      std::fprintf(stderr, "usage: bench_memory_limits [--reps R]\n");
      return 2;
    }
  }
  try {
    bloomkit::bit_array buffer(buffer_bytes * 8);
    splitmix64 rng(0x6c696d697473);
    auto words = buffer.mutable_words();
    bloomkit::bench::link_random_cycle(words, rng);
    const std::size_t lines = words.size() / bloomkit::bench::line_words;
    const auto indices =
        bloomkit::bench::random_line_indices(lines, index_count, prefetch_distance, rng);
    const std::uint64_t* data = buffer.data();

    std::vector<double> dependent, independent, prefetched;
    std::uint64_t line = 0;
    for (int r = 0; r < reps; ++r) {
      dependent.push_back(ns_per(
          chase_steps, [&] { line = bloomkit::bench::chase_lines(data, line, chase_steps); }));
      independent.push_back(ns_per(index_count * read_passes, [&] {
        std::uint64_t sum = 0;
        for (std::size_t pass = 0; pass < read_passes; ++pass) {
          sum += bloomkit::bench::read_lines(data, indices.data(), index_count);
        }
        sink = sum;
      }));
      prefetched.push_back(ns_per(index_count * read_passes, [&] {
        std::uint64_t sum = 0;
        for (std::size_t pass = 0; pass < read_passes; ++pass) {
          sum +=
              bloomkit::bench::read_lines<2>(data, indices.data(), index_count, prefetch_distance);
        }
        sink = sum;
      }));
    }
    sink = line;
    std::printf(
        "{\"buffer_bytes\": %llu, \"repetitions\": %d, \"dependent_access_ns\": %.2f, "
        "\"independent_read_ns\": %.2f, \"independent_read_l2_prefetch_ns\": %.2f}\n",
        static_cast<unsigned long long>(buffer_bytes), reps, median(dependent), median(independent),
        median(prefetched));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_memory_limits: %s\n", e.what());
    return 1;
  }
  return 0;
}
