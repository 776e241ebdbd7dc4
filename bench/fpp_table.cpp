// Prints the table of docs/VARIANTS.md: the FPP of the classic and the blocked filter at equal
// memory (8, 10, 12, 16 and 20 bits per key), each by its formula and measured on the benchmark's
// URL-like keys (n inserted, `queries` never inserted).
//
//   build/release/bench/fpp_table [n] [queries]      # defaults: 1000000 10000000

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <string_view>

#include "bench_keys.hpp"
#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/sizing.hpp"

namespace {

template <class Filter>
double measured_fpp(Filter& f, const bloomkit::bench::key_set& inserts,
                    const bloomkit::bench::key_set& strangers) {
  f.insert_many(inserts.keys());
  const std::size_t q = strangers.size();
  auto results = std::make_unique<bool[]>(q);
  return static_cast<double>(f.contains_many(strangers.keys(), {results.get(), q})) /
         static_cast<double>(q);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000;
  const std::size_t queries = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 10'000'000;
  const auto inserts = bloomkit::bench::make_insert_keys(n);
  const auto strangers = bloomkit::bench::make_miss_queries(queries);
  std::printf("n = %zu keys, %zu strangers (URL-like, %.1f bytes on average)\n\n", n, queries,
              inserts.mean_length());
  std::printf(
      "| bits per key | classic k | classic FPP, formula | classic, measured | blocked FPP, "
      "formula | blocked, measured | blocked / classic (formula) |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const double bits_per_key : {8.0, 10.0, 12.0, 16.0, 20.0}) {
    const auto blocks = static_cast<std::uint64_t>(std::llround(bits_per_key * n / 256));
    const std::uint64_t m = blocks * 256;  // the same memory for both
    const std::uint32_t k = bloomkit::optimal_hashes(m, n);
    bloomkit::bloom_filter classic(m, k);
    auto blocked = bloomkit::blocked_bloom_filter::with_blocks(blocks);
    const double classic_formula = bloomkit::expected_fpp(m, k, n);
    const double blocked_formula = bloomkit::blocked_expected_fpp(blocks, n);
    const double classic_measured = measured_fpp(classic, inserts, strangers);
    const double blocked_measured = measured_fpp(blocked, inserts, strangers);
    std::printf("| %g | %u | %.4f%% | %.4f%% | %.4f%% | %.4f%% | %.2fx |\n", bits_per_key, k,
                100 * classic_formula, 100 * classic_measured, 100 * blocked_formula,
                100 * blocked_measured, blocked_formula / classic_formula);
  }
  return 0;
}
