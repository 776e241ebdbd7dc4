// The blocked filter's layouts at every p (sizing.hpp, "Blocked layouts at every p"): bits per key
// against the classic filter's, the FPP each layout gives at capacity against its figure and its
// target, no false negatives, and files of every layout.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/detail/filter_access.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/scalable_filter.hpp"
#include "bloomkit/sizing.hpp"
#include "support/keys.hpp"
#include "support/statistical.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit {
namespace {

// Digests as XXH3-64 gives them: uniform 64-bit values (splitmix64 of a counter), so that
// millions of lookups cost no hashing. Digest i of stream s is that of counter s 2^40 + i, so
// streams below 2^24 apart in their first 2^40 digests never share one.
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

// False positives among `probes` fresh digests.
std::size_t false_positives(const blocked_bloom_filter& f, std::size_t probes,
                            std::uint64_t stream) {
  std::size_t positives = 0;
  const std::size_t chunk = std::size_t{1} << 20;
  auto results = std::make_unique<bool[]>(chunk);
  for (std::size_t done = 0; done < probes; done += chunk) {
    const auto batch = digests(std::min(chunk, probes - done), stream + (done >> 20));
    positives += f.contains_many(batch, {results.get(), batch.size()});
  }
  return positives;
}

const double targets[] = {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6};

// Bits per key at most 1.15x the classic filter's (optimal_params) on a fine grid of p and
// several n (from 10^4 keys: below 4 KiB of classic bits a filter keeps the split block).
TEST(BlockedLayoutsTest, BitsPerKeyWithinRatioOfClassic) {
  for (const std::uint64_t n :
       {10'000ULL, 100'000ULL, 1'000'000ULL, 10'000'000ULL, 1'000'000'000ULL}) {
    for (int step = 0; step <= 100; ++step) {
      const double p = std::pow(10.0, -1.0 - step * 0.05);
      const filter_params blocked = blocked_params(n, p);
      const std::uint64_t classic = optimal_params(n, p).bits;
      EXPECT_LE(static_cast<double>(blocked.bits), blocked_classic_ratio * classic)
          << "n " << n << " p " << p << " layout " << blocked_layout_name(blocked.hashes);
      EXPECT_LE(blocked_fpp(blocked.bits, blocked.hashes, n), p) << "n " << n << " p " << p;
      // Lines: the fewest of their layout, one line less misses p (split blocks keep the sizes
      // blocked_optimal_blocks always gave, by the Poisson figure, sometimes a block more).
      if (blocked.hashes != blocked_hashes && blocked.bits > blocked_line_bits) {
        EXPECT_GT(blocked_fpp(blocked.bits - blocked_line_bits, blocked.hashes, n), p)
            << "n " << n << " p " << p;
      }
    }
  }
}

// The layout each p gets at n = 10^6 (the split block where it keeps within the ratio, so that
// p = 1e-2 keeps its speed and its sizes).
TEST(BlockedLayoutsTest, ChoosesTheFastestLayoutWithinTheRatio) {
  const std::uint64_t n = 1'000'000;
  EXPECT_EQ(blocked_params(n, 1e-2).hashes, blocked_hashes);
  EXPECT_EQ(blocked_params(n, 1e-2).bits, blocked_optimal_blocks(n, 1e-2) * blocked_block_bits);
  EXPECT_LT(blocked_params(n, 1e-1).hashes, blocked_hashes);           // one line, few bits
  EXPECT_EQ(blocked_params(n, 1e-4).hashes, blocked_two_line_hashes);  // two lines
  EXPECT_EQ(blocked_params(n, 1e-6).hashes, blocked_two_line_hashes);
  // Small filters keep the split block and its sizes at every p.
  for (const std::uint64_t small : {1ULL, 100ULL, 200ULL}) {
    for (const double p : {0.3, 0.1, 1e-3, 1.25e-3, 1e-6}) {
      EXPECT_EQ(
          blocked_params(small, p),
          (filter_params{blocked_optimal_blocks(small, p) * blocked_block_bits, blocked_hashes}))
          << small << " keys at " << p;
    }
  }
}

TEST(BlockedLayoutsTest, ShapesOfEveryK) {
  for (std::uint32_t k = 0; k <= 40; ++k) {
    const bool valid = (k >= 1 && k <= 8) || k == 16;
    EXPECT_EQ(is_blocked_hashes(k), valid) << k;
    if (!valid) {
      EXPECT_THROW(blocked_shape_of(k), error) << k;
      continue;
    }
    const blocked_shape s = blocked_shape_of(k);
    EXPECT_EQ(s.units_per_key * s.bits_per_unit, k);
    EXPECT_EQ(s.unit_bits, k == 8 ? blocked_block_bits : blocked_line_bits);
  }
  EXPECT_THROW(blocked_fpp(256, 16, 10), error);  // lines are 512 bits
  EXPECT_EQ(blocked_fpp(2560, 8, 100), blocked_expected_fpp(10, 100));
}

// At capacity, the measured FPP of each target's filter is at most p (within 4 standard errors
// of Q p false positives among Q probes, Q at least 40 / p) and no inserted key is absent.
TEST(BlockedLayoutsTest, FppWithinTargetAtCapacityForEveryP) {
  BLOOMKIT_STATISTICAL_TEST();
  const std::uint64_t n = 200'000;
  for (const double p : targets) {
    auto f = blocked_bloom_filter::for_capacity(n, p);
    const auto keys = digests(n, 1);
    f.insert_many(keys);
    auto found = std::make_unique<bool[]>(n);
    ASSERT_EQ(f.contains_many(keys, {found.get(), n}), n) << "a false negative at p " << p;
    const auto probes = static_cast<std::size_t>(std::max(2e5, 40 / p));
    const double expected = static_cast<double>(probes) * p;
    const std::size_t positives = false_positives(f, probes, 1000);
    EXPECT_LE(static_cast<double>(positives), expected + 4 * std::sqrt(expected))
        << "p " << p << " layout " << blocked_layout_name(f.hashes()) << " k " << f.hashes();
  }
}

// The figures are the truth: at p where many false positives are cheap to count, the measured
// FPP of each layout at several loads is its figure within 5 standard errors.
TEST(BlockedLayoutsTest, MeasuredFppMatchesTheFigureOfEveryLayout) {
  BLOOMKIT_STATISTICAL_TEST();
  const std::uint64_t lines = 4096;
  for (const std::uint32_t k : {1U, 3U, 5U, 7U, 8U, 16U}) {
    const std::uint64_t bits = lines * blocked_line_bits;
    for (const double bits_per_key : {6.0, 12.0}) {
      const auto n = static_cast<std::uint64_t>(static_cast<double>(bits) / bits_per_key);
      auto f = detail::filter_access::make<blocked_bloom_filter>(
          filter_config{bits, k, n, blocked_fpp(bits, k, n)}, bit_array(bits), 0);
      f.insert_many(digests(n, 2));
      const double figure = blocked_fpp(bits, k, n);
      const std::size_t probes = 2'000'000;
      const double measured =
          static_cast<double>(false_positives(f, probes, 3000)) / static_cast<double>(probes);
      const double se = std::sqrt(figure * (1 - figure) / probes);
      EXPECT_NEAR(measured, figure, 5 * se + 0.02 * figure) << "k " << k << " n " << n;
    }
  }
}

// Every key inserted is found, by every path (single keys, batches, concurrent inserts), in
// every layout.
TEST(BlockedLayoutsTest, NoFalseNegativesInAnyLayout) {
  for (const double p : {0.2, 0.05, 0.01, 1e-3, 1e-5}) {
    for (const std::uint64_t n : {1ULL, 7ULL, 1000ULL, 30'000ULL}) {
      auto f = blocked_bloom_filter::for_capacity(n, p);
      const auto keys = test::make_keys(n, static_cast<std::uint64_t>(1 / p) + n);
      const auto v = test::views(keys);
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (i % 3 == 0) {
          f.insert(v[i]);
        } else if (i % 3 == 1) {
          f.insert_concurrent(v[i]);
        }
      }
      f.insert_many(v);  // the rest, and repeats
      auto found = std::make_unique<bool[]>(v.size());
      EXPECT_EQ(f.contains_many(v, {found.get(), v.size()}), v.size()) << "p " << p << " n " << n;
      for (const auto& key : v) ASSERT_TRUE(f.contains(key)) << key << " p " << p;
      // A repeat is not new.
      for (const auto& key : v) ASSERT_FALSE(f.insert(key)) << key;
    }
  }
}

// Save, load and map keep the layout and every answer; the file records it in k.
TEST(BlockedLayoutsTest, FilesOfEveryLayoutRoundTrip) {
  test::temp_dir dir;
  for (const double p : {0.1, 0.01, 1e-3, 1e-6}) {
    auto f = blocked_bloom_filter::for_capacity(5000, p);
    const auto keys = test::make_keys(5000, 7);
    f.insert_many(test::views(keys));
    const std::string path = (dir.path() / ("f" + std::to_string(f.hashes()))).string();
    save(f, path);
    const auto loaded = load<blocked_bloom_filter>(path);
    const auto mapped = map<blocked_bloom_filter>(path);
    EXPECT_TRUE(loaded == f);
    EXPECT_EQ(loaded.hashes(), f.hashes());
    EXPECT_EQ(loaded.config(), f.config());
    EXPECT_EQ(mapped.config(), f.config());
    const auto probes = test::make_keys(20'000, 8);
    for (const auto& key : test::views(probes)) {
      ASSERT_EQ(loaded.contains(key), f.contains(key)) << key;
      ASSERT_EQ(mapped.contains(key), f.contains(key)) << key;
    }
    for (const auto& key : test::views(keys)) ASSERT_TRUE(mapped.contains(key));
  }
}

// A scalable chain of blocked sub-filters sizes each link by the same choice: its deep links, at
// small p, hold their bits within the ratio too, and the chain keeps every key.
TEST(BlockedLayoutsTest, ScalableChainLinksUseTheLayouts) {
  scalable_blocked_bloom_filter chain(1000, 1e-3);
  const auto keys = test::make_keys(40'000, 9);
  chain.insert_many(test::views(keys));
  ASSERT_GT(chain.sub_filter_count(), 3U);
  for (const auto& sub : chain.sub_filters()) {
    EXPECT_EQ(sub.config().cells, blocked_params(sub.capacity(), sub.target_fpp()).bits);
    EXPECT_EQ(sub.hashes(), blocked_params(sub.capacity(), sub.target_fpp()).hashes);
  }
  for (const auto& key : test::views(keys)) ASSERT_TRUE(chain.contains(key)) << key;
  test::temp_dir dir;
  const std::string path = (dir.path() / "chain").string();
  save(chain, path);
  const auto mapped = map<scalable_blocked_bloom_filter>(path);
  for (const auto& key : test::views(keys)) ASSERT_TRUE(mapped.contains(key)) << key;
}

// The split block's own FPP formula and sizing (k = 8).
TEST(BlockedSizing, FormulaProperties) {
  EXPECT_EQ(blocked_expected_fpp(100, 0), 0.0);
  EXPECT_EQ(blocked_expected_fpp(1, 1'000'000), 1.0);
  // One key in a huge filter: a stranger must hit its 8 bits in its block.
  EXPECT_NEAR(blocked_expected_fpp(1'000'000, 1), 1e-6 * std::pow(1.0 / 32, 8), 1e-20);
  double previous = 0;
  for (std::uint64_t n = 1000; n <= 100'000; n += 1000) {  // rises with the load
    const double fpp = blocked_expected_fpp(1000, n);
    EXPECT_GT(fpp, previous);
    previous = fpp;
  }
  // Higher than the classic formula at equal memory and k = 8, and the gap grows with bits/key.
  for (double bits_per_key : {8.0, 12.0, 16.0, 20.0}) {
    const std::uint64_t n = 100'000;
    const auto blocks = static_cast<std::uint64_t>(n * bits_per_key / 256);
    EXPECT_GT(blocked_expected_fpp(blocks, n), expected_fpp(blocks * 256, 8, n));
  }
  // A block count meeting p exactly, for many n and p: the fewest by the Poisson mixture (the
  // sizes bloomkit always made, kept where the exact figure holds p there), which for large n
  // is within 1% of the fewest by the exact figure.
  for (std::uint64_t n : {1ull, 10ull, 1000ull, 123'456ull, 10'000'000'000ull}) {
    for (double p : {0.5, 0.01, 1e-6, 1e-12}) {
      const std::uint64_t blocks = blocked_optimal_blocks(n, p);
      EXPECT_LE(blocked_expected_fpp(blocks, n), p);
      if (n >= 1000) {
        EXPECT_GT(blocked_expected_fpp(blocks - blocks / 100 - 1, n), p) << n << " " << p;
      }
    }
  }
  EXPECT_EQ(blocked_natural_capacity(1), 22u);  // round(256 ln 2 / 8)
  EXPECT_EQ(to_string(hash_scheme::xxh3_64_split_block), "xxh3-64-split-block");
  EXPECT_TRUE(is_known(hash_scheme::xxh3_64_split_block));
}

}  // namespace
}  // namespace bloomkit
