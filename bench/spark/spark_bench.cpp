// Spark filters at scale (issue 33; numbers in bench/RESULTS.md, script: bench/spark/run).
//
//   spark_bench write N FPP V OUT   a Spark V1 or V2 (V = 1 | 2) filter sized by Spark's
//                                   create(N, FPP), N URL keys (bench_keys.hpp) put as putString,
//                                   written with writeTo's bytes to OUT (for `bloomkit import`)
//   spark_bench lookup N            batched lookups (contains_many, 4096 keys a batch) of hits and
//                                   misses in a Spark V2 filter and in the classic filter, both
//                                   holding N keys at FPP 0.01, interleaved rounds; ns per key
//
// Keys are generated in chunks (10^8 keys of ~67 bytes would not fit in memory at once).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "bench_keys.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/compat/spark.hpp"

namespace {

using clock_type = std::chrono::steady_clock;
constexpr std::size_t batch = 4096;

// Calls fn(keys) with consecutive chunks of the keys of ids first .. first + count - 1.
template <class Fn>
void for_key_chunks(std::uint64_t first, std::uint64_t count, Fn&& fn) {
  std::vector<char> bytes(batch * bloomkit::bench::max_key_length);
  std::vector<std::string_view> keys(batch);
  for (std::uint64_t at = 0; at < count; at += batch) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(batch, count - at));
    char* p = bytes.data();
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t length = bloomkit::bench::make_url_key(first + at + i, p);
      keys[i] = std::string_view(p, length);
      p += length;
    }
    fn(std::span<const std::string_view>(keys.data(), n));
  }
}

template <class Filter>
void fill(Filter& f, std::uint64_t n) {
  for_key_chunks(0, n, [&](std::span<const std::string_view> keys) { f.insert_many(keys); });
}

template <class Filter>
void write_filter(Filter f, std::uint64_t n, const char* out) {
  const auto start = clock_type::now();
  fill(f, n);
  std::ofstream file(out, std::ios::binary | std::ios::trunc);
  bloomkit::spark::write(f, file);
  file.close();
  std::printf("wrote %s: %llu keys, %llu bits, %u hashes, %.1f s\n", out,
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(f.bits()),
              f.hashes(), std::chrono::duration<double>(clock_type::now() - start).count());
}

// ns per key of contains_many over `queries` in batches; `present` counts the true answers.
template <class Filter>
double lookup_ns(const Filter& f, const bloomkit::bench::key_set& queries, std::size_t& present) {
  std::vector<char> answers(batch);
  auto* out = reinterpret_cast<bool*>(answers.data());
  const auto keys = queries.keys();
  present = 0;
  const auto start = clock_type::now();
  for (std::size_t at = 0; at < keys.size(); at += batch) {
    const std::size_t n = std::min(batch, keys.size() - at);
    present += f.contains_many(keys.subspan(at, n), std::span<bool>(out, n));
  }
  return std::chrono::duration<double, std::nano>(clock_type::now() - start).count() /
         static_cast<double>(keys.size());
}

void lookup(std::uint64_t n) {
  auto spark = bloomkit::spark::v2_filter::for_capacity(n, 0.01);
  auto classic = bloomkit::bloom_filter::for_capacity(n, 0.01);
  fill(spark, n);
  fill(classic, n);
  const std::size_t queries = 2'000'000;
  const auto hits = bloomkit::bench::make_hit_queries(n, queries, 7);
  const auto misses = bloomkit::bench::make_miss_queries(queries);
  std::printf("n = %llu: spark-v2 %llu bits, %u hashes; classic %llu bits, %u hashes\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(spark.bits()),
              spark.hashes(), static_cast<unsigned long long>(classic.bits()), classic.hashes());
  std::vector<double> s_hit, s_miss, c_hit, c_miss;
  std::size_t present = 0;
  for (int round = 0; round < 5; ++round) {
    s_hit.push_back(lookup_ns(spark, hits, present));
    c_hit.push_back(lookup_ns(classic, hits, present));
    s_miss.push_back(lookup_ns(spark, misses, present));
    const double spark_fpp = static_cast<double>(present) / queries;
    c_miss.push_back(lookup_ns(classic, misses, present));
    if (round == 0) {
      std::printf("measured FPP: spark-v2 %.5f, classic %.5f\n", spark_fpp,
                  static_cast<double>(present) / queries);
    }
  }
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf("ns/key (median of 5 interleaved rounds of 2e6 queries, batches of 4096):\n");
  std::printf("  hits:   spark-v2 %.1f  classic %.1f\n", median(s_hit), median(c_hit));
  std::printf("  misses: spark-v2 %.1f  classic %.1f\n", median(s_miss), median(c_miss));
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "write" && argc == 6) {
    const std::uint64_t n = std::strtoull(argv[2], nullptr, 10);
    const double fpp = std::strtod(argv[3], nullptr);
    if (std::string(argv[4]) == "1") {
      write_filter(bloomkit::spark::v1_filter::for_capacity(n, fpp), n, argv[5]);
    } else {
      write_filter(bloomkit::spark::v2_filter::for_capacity(n, fpp), n, argv[5]);
    }
    return 0;
  }
  if (mode == "lookup" && argc == 3) {
    lookup(std::strtoull(argv[2], nullptr, 10));
    return 0;
  }
  std::fprintf(stderr, "usage: spark_bench write N FPP 1|2 OUT | spark_bench lookup N\n");
  return 2;
}
