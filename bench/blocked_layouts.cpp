// blocked_layouts: the table of docs/VARIANTS.md, "Layouts at every p": for each p, the bits per
// key of the split block alone (the sizing before issue 30), of the layout blocked_params chooses
// and of the classic filter, the FPP measured at capacity on fresh digests (XXH3-64 values are
// uniform, so splitmix64 outputs stand for them and cost no hashing), and the CPU time per key of
// batched inserts and lookups (misses) of string keys, blocked against classic.
//
//   blocked_layouts [n [p ...]]   (default n = 10^6, p = 0.1, 0.01, ..., 1e-6)

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/bloom_filter.hpp"
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

// CPU time of this process: other processes on a shared machine move it less than wall time.
double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

std::vector<std::string> strings(std::size_t count, const char* prefix) {
  std::vector<std::string> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = prefix + std::to_string(i);
  return out;
}

// ns per key of insert_many of `keys` into the new filter f, then of contains_many of `probes`.
template <class Filter>
std::pair<double, double> timings(Filter f, const std::vector<std::string_view>& keys,
                                  const std::vector<std::string_view>& probes) {
  double start = cpu_seconds();
  f.insert_many(keys);
  const double insert = (cpu_seconds() - start) * 1e9 / static_cast<double>(keys.size());
  auto results = std::make_unique<bool[]>(probes.size());
  start = cpu_seconds();
  f.contains_many(probes, {results.get(), probes.size()});
  return {insert, (cpu_seconds() - start) * 1e9 / static_cast<double>(probes.size())};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace bloomkit;
  const std::uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1'000'000;
  std::vector<double> ps = {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6};
  if (argc > 2) {
    ps.clear();
    for (int i = 2; i < argc; ++i) ps.push_back(std::atof(argv[i]));
  }
  const auto key_text = strings(n, "https://example.com/key/");
  const auto probe_text = strings(n, "https://example.com/probe/");
  const std::vector<std::string_view> keys(key_text.begin(), key_text.end());
  const std::vector<std::string_view> probes(probe_text.begin(), probe_text.end());
  std::printf(
      "n = %llu\n| p | split block only | layout | k | bits/key | classic | ratio | formula "
      "| measured FPP (probes) | blocked insert / lookup ns/key | classic |\n",
      static_cast<unsigned long long>(n));
  for (const double p : ps) {
    const auto before = static_cast<double>(blocked_optimal_blocks(n, p) * blocked_block_bits);
    const filter_params chosen = blocked_params(n, p);
    const auto classic = static_cast<double>(optimal_params(n, p).bits);
    auto f = blocked_bloom_filter::for_capacity(n, p);
    f.insert_many(digests(n, 1));
    const auto count = static_cast<std::size_t>(std::max(1e6, 200 / p));
    const std::size_t chunk = std::size_t{1} << 20;
    auto results = std::make_unique<bool[]>(chunk);
    std::size_t positives = 0;
    for (std::size_t done = 0; done < count; done += chunk) {
      const auto batch = digests(std::min(chunk, count - done), 1000 + (done >> 20));
      positives += f.contains_many(batch, {results.get(), batch.size()});
    }
    const auto blocked_ns = timings(blocked_bloom_filter::for_capacity(n, p), keys, probes);
    const auto classic_ns = timings(bloom_filter::for_capacity(n, p), keys, probes);
    const auto per_key = [&](double bits) { return bits / static_cast<double>(n); };
    std::printf(
        "| %g | %.2f | %s | %u | %.2f | %.2f | %.3f | %.3g | %.3g (%zu) | %.1f / %.1f | %.1f / "
        "%.1f |\n",
        p, per_key(before), blocked_layout_name(chosen.hashes), chosen.hashes,
        per_key(static_cast<double>(chosen.bits)), per_key(classic),
        static_cast<double>(chosen.bits) / classic, blocked_fpp(chosen.bits, chosen.hashes, n),
        static_cast<double>(positives) / static_cast<double>(count), count, blocked_ns.first,
        blocked_ns.second, classic_ns.first, classic_ns.second);
  }
}
