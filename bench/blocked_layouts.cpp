// blocked_layouts: the table of docs/VARIANTS.md, "Layouts at every p": for each p, the bits per
// key of the split block alone (the sizing before issue 30), of the layout blocked_params chooses
// and of the classic filter, and the FPP measured at capacity on fresh digests (XXH3-64 values
// are uniform, so splitmix64 outputs stand for them and cost no hashing), with the timings of
// the chosen layout's batched inserts and lookups (misses).
//
//   blocked_layouts [n [p ...]]   (default n = 10^6, p = 0.1, 0.01, ..., 1e-6)

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/sizing.hpp"

namespace {

std::vector<std::uint64_t> digests(std::size_t count, std::uint64_t stream) {
  std::vector<std::uint64_t> out(count);
  std::uint64_t x = (stream << 40) * 0x9E3779B97F4A7C15ULL;
  for (auto& d : out) {
    x += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    d = z ^ (z >> 31);
  }
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  using namespace bloomkit;
  const std::uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000;
  std::vector<double> ps = {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6};
  if (argc > 2) ps.assign(argc - 2, 0), std::transform(argv + 2, argv + argc, ps.begin(), atof);
  std::printf(
      "n = %llu\n| p | split block only | layout | k | bits/key | classic | ratio | "
      "formula | measured FPP (probes) | insert_many ns/key | contains_many ns/key |\n",
      static_cast<unsigned long long>(n));
  for (const double p : ps) {
    const double before = static_cast<double>(blocked_optimal_blocks(n, p) * blocked_block_bits);
    const filter_params chosen = blocked_params(n, p);
    const double classic = static_cast<double>(optimal_params(n, p).bits);
    auto f = blocked_bloom_filter::for_capacity(n, p);
    const auto keys = digests(n, 1);
    auto start = std::chrono::steady_clock::now();
    f.insert_many(keys);
    const double insert_ns = seconds_since(start) * 1e9 / static_cast<double>(n);
    const auto probes = static_cast<std::size_t>(std::max(1e6, 200 / p));
    const std::size_t chunk = std::size_t{1} << 20;
    auto results = std::make_unique<bool[]>(chunk);
    std::size_t positives = 0;
    double lookup_seconds = 0;
    for (std::size_t done = 0; done < probes; done += chunk) {
      const auto batch = digests(std::min(chunk, probes - done), 1000 + (done >> 20));
      start = std::chrono::steady_clock::now();
      positives += f.contains_many(batch, {results.get(), batch.size()});
      lookup_seconds += seconds_since(start);
    }
    std::printf("| %g | %.2f | %s | %u | %.2f | %.2f | %.3f | %.3g | %.3g (%zu) | %.1f | %.1f |\n",
                p, before / n, blocked_layout_name(chosen.hashes), chosen.hashes,
                static_cast<double>(chosen.bits) / n, classic / n, chosen.bits / classic,
                blocked_fpp(chosen.bits, chosen.hashes, n),
                static_cast<double>(positives) / static_cast<double>(probes), probes, insert_ns,
                lookup_seconds * 1e9 / static_cast<double>(probes));
  }
}
