// Integer keys against the same integers as 8-byte strings (XXH3 of their bytes), batched into
// one filter of each kind sized for n keys at p = 0.01: ns per key of insert_integers /
// contains_integers (hits, misses) against insert_many / contains_many over 8-byte string_views.
// Medians of interleaved rounds of thread CPU time; docs/PERFORMANCE.md, "Integer keys".
//
//   integer_keys_bench [N=10000000] [ROUNDS=5]

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/counting_bloom_filter.hpp"
#include "machine_info.hpp"

namespace {

// The thread's CPU time, not the wall clock: on a shared machine the time the thread waits for
// a core is not the filter's.
double thread_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

template <class Op>
double ns_per_key(std::size_t n, Op op) {
  const double start = thread_ns();
  op();
  return (thread_ns() - start) / static_cast<double>(n);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct row {
  std::vector<double> insert, hit, miss;
};

template <class Filter>
void run(const char* name, std::size_t n, int rounds) {
  std::mt19937_64 rng(42);
  std::vector<std::uint64_t> keys(n), absent(n);
  for (auto& k : keys) k = rng();
  for (auto& k : absent) k = rng();
  // The same integers as their 8 little-endian bytes (what a string filter hashes).
  const auto views_of = [](const std::vector<std::uint64_t>& v) {
    std::vector<std::string_view> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
      out[i] = std::string_view(reinterpret_cast<const char*>(&v[i]), 8);
    }
    return out;
  };
  const auto key_views = views_of(keys);
  const auto absent_views = views_of(absent);
  auto results = std::make_unique<bool[]>(n);
  const std::span<bool> out(results.get(), n);
  row bytes, ints;
  for (int r = 0; r < rounds; ++r) {
    {
      auto f = Filter::for_capacity(n, 0.01);
      bytes.insert.push_back(ns_per_key(n, [&] { f.insert_many(key_views); }));
      bytes.hit.push_back(ns_per_key(n, [&] { f.contains_many(key_views, out); }));
      bytes.miss.push_back(ns_per_key(n, [&] { f.contains_many(absent_views, out); }));
    }
    {
      auto f = Filter::for_capacity(n, 0.01, bloomkit::key_type::int64);
      const std::span<const std::uint64_t> k(keys), a(absent);
      ints.insert.push_back(ns_per_key(n, [&] { f.insert_integers(k); }));
      ints.hit.push_back(ns_per_key(n, [&] { f.contains_integers(k, out); }));
      ints.miss.push_back(ns_per_key(n, [&] { f.contains_integers(a, out); }));
    }
  }
  std::printf("%-9s %-22s insert %6.2f  hits %6.2f  misses %6.2f ns/key\n", name, "xxh3 of 8 bytes",
              median(bytes.insert), median(bytes.hit), median(bytes.miss));
  std::printf("%-9s %-22s insert %6.2f  hits %6.2f  misses %6.2f ns/key\n", name, "integer scheme",
              median(ints.insert), median(ints.hit), median(ints.miss));
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
  const std::string cpu =
      bloomkit::bench::after_colon(bloomkit::bench::first_line_with("/proc/cpuinfo", "model name"));
  std::printf("%s\nn = %zu, p = 0.01, medians of %d interleaved rounds\n", cpu.c_str(), n, rounds);
  run<bloomkit::blocked_bloom_filter>("blocked", n, rounds);
  run<bloomkit::bloom_filter>("classic", n, rounds);
  run<bloomkit::counting_bloom_filter>("counting", n, rounds);
}
