// The blocked filter's single-key paths and batched lookups on 35-byte keys, at the n given
// (docs/PERFORMANCE.md, "Loads and the single-key path"). Plain timing without a framework, so
// that the same source builds against two versions of the library and
// bench/single_key_pairs.py runs them interleaved.
//
//   single_key_bench N ROUNDS   ->   one line per row and round: "<row> <n> <ns per key>"
//
// The target single_key_bench (BLOOMKIT_BUILD_BENCH) is the "after"; the "before" is this file
// compiled against another checkout's headers and library, e.g.
//   g++ -std=c++20 -O3 -DNDEBUG -I OLD/include -I OLD/build/include single_key_bench.cpp
//       OLD/build/libbloomkit.a -o before
//
// Times are the thread's CPU time. Rows: contains_hit / contains_miss / insert (one key per call, a
// loop over 2^20 keys), contains_many_hit / contains_many_miss / insert_many (batches of 4096). The
// filter is sized for N at p = 0.01 (the split-block layout) and filled with N keys; inserts go
// into a second, empty filter of the same size (its pages written first), fresh keys each round.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/blocked_bloom_filter.hpp"

namespace {

constexpr std::size_t key_length = 35;
constexpr std::size_t queries = std::size_t{1} << 20;
constexpr std::size_t batch = 4096;

std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Keys of 35 bytes, "key-<16 hex digits of mix64(id)>-<id, 14 digits>", in one buffer.
class key_set {
 public:
  explicit key_set(std::size_t count) : bytes_(count * key_length + 1), views_(count) {}
  void set(std::size_t i, std::uint64_t id) {
    char* at = bytes_.data() + i * key_length;
    std::snprintf(at, key_length + 1, "key-%016llx-%014llu",
                  static_cast<unsigned long long>(mix64(id)),
                  static_cast<unsigned long long>(id % 100'000'000'000'000ULL));
    views_[i] = {at, key_length};
  }
  std::span<const std::string_view> views() const { return views_; }

 private:
  std::vector<char> bytes_;
  std::vector<std::string_view> views_;
};

// This thread's CPU time: on a machine shared with other jobs, the time it was descheduled is
// not the filter's (memory stalls still count).
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

void report(const char* row, std::uint64_t n, double seconds, std::size_t keys) {
  std::printf("%s %llu %.2f\n", row, static_cast<unsigned long long>(n), seconds * 1e9 / keys);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t n = argc == 3 ? std::strtoull(argv[1], nullptr, 10) : 0;
  const int rounds = argc == 3 ? std::atoi(argv[2]) : 0;
  if (n == 0 || rounds <= 0) {
    std::fprintf(stderr, "usage: single_key_bench N ROUNDS (both positive)\n");
    return 2;
  }
  auto f = bloomkit::blocked_bloom_filter::for_capacity(n, 0.01);
  auto g = bloomkit::blocked_bloom_filter::for_capacity(n, 0.01);
  // Writes every page of g, so that the timed inserts pay no page faults.
  g.merge(bloomkit::blocked_bloom_filter::for_capacity(n, 0.01));
  {
    key_set chunk(queries);
    for (std::uint64_t first = 0; first < n; first += queries) {
      const std::size_t count =
          static_cast<std::size_t>(std::min<std::uint64_t>(queries, n - first));
      for (std::size_t i = 0; i < count; ++i) chunk.set(i, first + i);
      f.insert_many(chunk.views().first(count));
    }
  }
  key_set hits(queries), misses(queries), fresh(queries);
  for (std::size_t i = 0; i < queries; ++i) {
    hits.set(i, mix64(i) % n);
    misses.set(i, n + mix64(i) % n);
  }
  auto results = std::make_unique<bool[]>(batch);
  std::size_t sink = 0;
  for (int r = 0; r < rounds; ++r) {
    // Untimed: brings f back into the caches after the previous round's inserts into g.
    for (std::size_t at = 0; at < queries; at += batch) {
      sink += f.contains_many(hits.views().subspan(at, batch), {results.get(), batch});
    }
    for (const auto* set : {&hits, &misses}) {
      double start = cpu_seconds();
      for (const std::string_view key : set->views()) sink += f.contains(key);
      report(set == &hits ? "contains_hit" : "contains_miss", n, cpu_seconds() - start, queries);
      start = cpu_seconds();
      for (std::size_t at = 0; at < queries; at += batch) {
        sink += f.contains_many(set->views().subspan(at, batch), {results.get(), batch});
      }
      report(set == &hits ? "contains_many_hit" : "contains_many_miss", n, cpu_seconds() - start,
             queries);
    }
    for (std::size_t i = 0; i < queries; ++i) fresh.set(i, 2 * n + (2 * r) * queries + i);
    double start = cpu_seconds();
    for (const std::string_view key : fresh.views()) sink += g.insert(key);
    report("insert", n, cpu_seconds() - start, queries);
    for (std::size_t i = 0; i < queries; ++i) fresh.set(i, 2 * n + (2 * r + 1) * queries + i);
    start = cpu_seconds();
    for (std::size_t at = 0; at < queries; at += batch) {
      sink += g.insert_many(fresh.views().subspan(at, batch));
    }
    report("insert_many", n, cpu_seconds() - start, queries);
  }
  std::fprintf(stderr, "(%zu)\n", sink);
  return 0;
}
