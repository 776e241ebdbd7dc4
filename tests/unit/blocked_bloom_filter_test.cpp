#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/detail/filter_access.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bloomkit/error.hpp"
#include "support/build.hpp"
#include "support/keys.hpp"
#include "support/statistical.hpp"

namespace bloomkit {
namespace {

using test::make_keys;
using test::views;

using test::sanitized_build;

// Lookups of every key through contains and contains_many.
std::vector<bool> lookups(const blocked_bloom_filter& f, const std::vector<std::string>& keys) {
  const auto v = views(keys);
  auto results = std::make_unique<bool[]>(v.size());
  const std::size_t present = f.contains_many(v, {results.get(), v.size()});
  std::vector<bool> out(v.size());
  std::size_t counted = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    out[i] = results[i];
    counted += results[i];
    EXPECT_EQ(f.contains(v[i]), results[i]) << v[i];
  }
  EXPECT_EQ(present, counted);
  return out;
}

void expect_no_false_negatives(const blocked_bloom_filter& f,
                               const std::vector<std::string>& keys) {
  const auto found = lookups(f, keys);
  for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_TRUE(found[i]) << keys[i];
}

// `count` keys no make_keys set contains, cheap to make in the millions.
std::vector<std::string> stranger_keys(std::size_t count, std::uint64_t set) {
  std::vector<std::string> keys(count);
  for (std::size_t i = 0; i < count; ++i) {
    keys[i] = "stranger-" + std::to_string(set) + "/" + std::to_string(i);
  }
  return keys;
}

// The filter's false-positive rate on `keys`, none of them inserted.
double measured_fpp(const blocked_bloom_filter& f, const std::vector<std::string>& keys) {
  const std::size_t count = keys.size();
  const auto v = views(keys);
  auto results = std::make_unique<bool[]>(v.size());
  return static_cast<double>(f.contains_many(v, {results.get(), v.size()})) /
         static_cast<double>(count);
}

// Both instruction-set paths of the same filter, when the CPU has AVX2.
std::vector<bool> simd_modes() {
  if (blocked_bloom_filter::simd_supported()) return {false, true};
  return {false};
}

TEST(BlockedBloomFilter, NoFalseNegativesAcrossSizes) {
  std::uint64_t set = 0;
  for (bool simd : simd_modes()) {
    for (std::uint64_t n : {1ull, 2ull, 7ull, 100ull, 1000ull, 12345ull, 100003ull}) {
      for (double p : {1e-9, 1e-4, 0.01, 0.3, 0.999}) {
        if (sanitized_build && n > 20000 && p != 0.01) continue;
        auto f = blocked_bloom_filter::for_capacity(n, p);
        EXPECT_EQ(f.set_simd(simd), simd);
        const auto keys = make_keys(n, ++set);
        // Half one at a time, half batched.
        for (std::size_t i = 0; i < keys.size() / 2; ++i) f.insert(keys[i]);
        const auto v = views(keys);
        f.insert_many(std::span(v).subspan(keys.size() / 2));
        expect_no_false_negatives(f, keys);
      }
    }
  }
}

TEST(BlockedBloomFilter, TinyFiltersAndRounding) {
  for (std::uint64_t bits : {1ull, 255ull, 256ull, 257ull, 1000ull}) {
    blocked_bloom_filter f(bits);
    EXPECT_EQ(f.bits() % 256, 0u);
    EXPECT_GE(f.bits(), bits);
    EXPECT_LT(f.bits(), bits + 256);
    EXPECT_EQ(f.hashes(), 8u);
    EXPECT_GE(f.capacity(), 1u);
    EXPECT_GT(f.target_fpp(), 0.0);
    EXPECT_EQ(f.byte_size(), f.bits() / 8);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(f.storage().data()) % 32, 0u);
    const auto keys = make_keys(300, 500 + bits);
    for (const auto& k : keys) f.insert(k);
    expect_no_false_negatives(f, keys);
  }
  // One block: every key lands in it.
  auto one = blocked_bloom_filter::with_blocks(1);
  EXPECT_EQ(one.bits(), 256u);
  one.insert("a");
  EXPECT_EQ(one.storage().count(), 8u);
  EXPECT_THROW(blocked_bloom_filter(0), error);
  EXPECT_THROW(blocked_bloom_filter::with_blocks(0), error);
  try {
    blocked_bloom_filter::with_blocks(max_blocks + 1);
    FAIL();
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::too_large);
    EXPECT_NE(std::string(e.what()).find("blocks"), std::string::npos);
  }
}

// Each key sets exactly one bit in each of the eight 32-bit words of one block.
TEST(BlockedBloomFilter, AKeySetsOneBitPerWordOfOneBlock) {
  for (bool simd : simd_modes()) {
    for (int i = 0; i < 200; ++i) {
      auto f = blocked_bloom_filter::with_blocks(64);
      f.set_simd(simd);
      EXPECT_TRUE(f.insert("key-" + std::to_string(i)));
      const auto* words = reinterpret_cast<const std::uint32_t*>(f.storage().data());
      int touched_blocks = 0;
      for (std::uint64_t b = 0; b < f.blocks(); ++b) {
        int set_words = 0;
        for (int w = 0; w < 8; ++w) set_words += std::popcount(words[b * 8 + w]) == 1;
        if (set_words > 0) {
          ++touched_blocks;
          EXPECT_EQ(set_words, 8);
        }
      }
      EXPECT_EQ(touched_blocks, 1);
      EXPECT_EQ(f.storage().count(), 8u);
    }
  }
}

// The AVX2 path and the portable path set the same bits and give the same answers, including
// the false positives.
TEST(BlockedBloomFilter, SimdAndPortablePathsAgreeBitForBit) {
  if (!blocked_bloom_filter::simd_supported()) GTEST_SKIP() << "no AVX2 on this CPU";
  for (std::uint64_t blocks : {1ull, 3ull, 1000ull, 100'003ull}) {
    auto simd = blocked_bloom_filter::with_blocks(blocks);
    auto portable = blocked_bloom_filter::with_blocks(blocks);
    ASSERT_TRUE(simd.set_simd(true));
    ASSERT_FALSE(portable.set_simd(false));
    EXPECT_TRUE(simd.simd());
    EXPECT_FALSE(portable.simd());
    const auto keys = make_keys(30'000, 700 + blocks);
    const auto v = views(keys);
    const auto third = v.size() / 3;
    for (std::size_t i = 0; i < third; ++i) {
      ASSERT_EQ(simd.insert(v[i]), portable.insert(v[i])) << v[i];
    }
    EXPECT_EQ(simd.insert_many(std::span(v).subspan(third, third)),
              portable.insert_many(std::span(v).subspan(third, third)));
    EXPECT_EQ(simd.insert_many_concurrent(std::span(v).subspan(2 * third)),
              portable.insert_many_concurrent(std::span(v).subspan(2 * third)));
    EXPECT_EQ(simd, portable);
    EXPECT_EQ(simd.inserted(), portable.inserted());
    const auto probe = make_keys(30'000, 800 + blocks);
    EXPECT_EQ(lookups(simd, probe), lookups(portable, probe));
    // The same filter read through the other path.
    simd.set_simd(false);
    portable.set_simd(true);
    EXPECT_EQ(lookups(simd, probe), lookups(portable, probe));
  }
}

TEST(BlockedBloomFilter, SingleBatchedAndConcurrentPathsSetTheSameBits) {
  for (std::uint64_t n : {1000ull, 200'000ull}) {  // in cache, and past 1 MiB
    const auto keys = make_keys(n, 900 + n);
    const auto v = views(keys);
    auto single = blocked_bloom_filter::for_capacity(n, 0.001);
    auto batched = single;
    auto concurrent = single;
    auto concurrent_batched = single;
    std::size_t fresh = 0;
    for (const auto k : v) fresh += single.insert(k);
    for (const auto k : v) concurrent.insert_concurrent(k);
    EXPECT_EQ(batched.insert_many(v), fresh);
    EXPECT_EQ(concurrent_batched.insert_many_concurrent(v), fresh);
    EXPECT_EQ(single, batched);
    EXPECT_EQ(single, concurrent);
    EXPECT_EQ(single, concurrent_batched);
    EXPECT_EQ(single.inserted(), fresh);
    EXPECT_EQ(concurrent.inserted(), fresh);
    EXPECT_EQ(concurrent_batched.inserted(), fresh);
  }
}

TEST(BlockedBloomFilter, InsertReportsWhetherNew) {
  auto f = blocked_bloom_filter::for_capacity(1000, 0.01);
  EXPECT_FALSE(f.contains("alpha"));
  EXPECT_TRUE(f.insert("alpha"));
  EXPECT_FALSE(f.insert("alpha"));
  EXPECT_FALSE(f.insert_concurrent("alpha"));
  EXPECT_TRUE(f.contains("alpha"));
  EXPECT_EQ(f.inserted(), 1u);
  const std::vector<std::string_view> batch = {"alpha", "beta", "gamma", "beta"};
  EXPECT_EQ(f.insert_many(batch), 2u);  // beta and gamma; the second beta is already there
  EXPECT_EQ(f.inserted(), 3u);
  EXPECT_EQ(f.insert_many(std::span<const std::string_view>{}), 0u);
  bool none[1];
  EXPECT_EQ(f.contains_many(std::span<const std::string_view>{}, {none, 0}), 0u);
  try {
    f.contains_many(batch, {none, 1});
    FAIL();
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
  }
}

TEST(BlockedBloomFilter, IntegralKeysHashTheirLittleEndianBytes) {
  auto f = blocked_bloom_filter::for_capacity(1000, 0.01);
  f.insert(std::uint64_t{0x0102030405060708});
  const char bytes[] = {8, 7, 6, 5, 4, 3, 2, 1};
  EXPECT_TRUE(f.contains(std::string_view(bytes, 8)));
  EXPECT_TRUE(f.contains(std::uint64_t{0x0102030405060708}));
  EXPECT_TRUE(f.insert(std::int32_t{-1}));
  EXPECT_TRUE(f.contains(std::string_view("\xff\xff\xff\xff", 4)));
}

// Many threads insert disjoint slices through both concurrent paths while readers look up keys
// already inserted; the result equals a single-threaded build. Run under TSan by the tsan preset.
TEST(BlockedBloomFilter, ConcurrentInsertsAndLookups) {
  const std::size_t n = sanitized_build ? 40'000 : 400'000;
  const auto keys = make_keys(n, 1234);
  const auto v = views(keys);
  auto f = blocked_bloom_filter::for_capacity(n, 0.01);
  auto expected = f;
  expected.insert_many(v);
  // The first tenth goes in before the threads start; readers check it throughout.
  const std::size_t seeded = n / 10;
  f.insert_many(std::span(v).first(seeded));
  constexpr int writers = 4;
  std::vector<std::thread> threads;
  for (int t = 0; t < writers; ++t) {
    threads.emplace_back([&, t] {
      const std::size_t lo = seeded + (n - seeded) * t / writers;
      const std::size_t hi = seeded + (n - seeded) * (t + 1) / writers;
      const std::size_t mid = (lo + hi) / 2;
      for (std::size_t i = lo; i < mid; ++i) f.insert_concurrent(v[i]);
      f.insert_many_concurrent(std::span(v).subspan(mid, hi - mid));
    });
  }
  std::atomic<std::size_t> misses{0};
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      auto results = std::make_unique<bool[]>(seeded);
      for (int round = 0; round < 3; ++round) {
        if (f.contains_many(std::span(v).first(seeded), {results.get(), seeded}) != seeded) {
          ++misses;
        }
        for (std::size_t i = 0; i < seeded; i += 7) misses += !f.contains(v[i]);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(misses.load(), 0u);
  EXPECT_EQ(f, expected);
  // Two threads may both claim a key whose bits they set together, or neither when their
  // masks overlap in one word; the count is near n, not exact.
  EXPECT_NEAR(static_cast<double>(f.inserted()), static_cast<double>(expected.inserted()),
              0.001 * static_cast<double>(n));
  expect_no_false_negatives(f, keys);
}

// The exact FPP of this particular filter for a key whose block and bits are uniform: the mean
// over blocks of the product over words of (bits set / 32). Also the standard deviation of that
// product over blocks, which bounds how far one filter strays from the formula's expectation.
struct filter_fpp {
  double mean = 0;
  double block_sd = 0;
};
filter_fpp exact_fpp(const blocked_bloom_filter& f) {
  const auto* words = reinterpret_cast<const std::uint32_t*>(f.storage().data());
  double sum = 0, sum_sq = 0;
  for (std::uint64_t b = 0; b < f.blocks(); ++b) {
    double product = 1;
    for (int w = 0; w < 8; ++w) product *= std::popcount(words[b * 8 + w]) / 32.0;
    sum += product;
    sum_sq += product * product;
  }
  const double blocks = static_cast<double>(f.blocks());
  const double mean = sum / blocks;
  return {mean, std::sqrt(std::max(0.0, sum_sq / blocks - mean * mean))};
}

// Two statistical checks per filter. (1) The measured FPP on strangers is within sampling error
// of the filter's exact FPP: blocks and bits are chosen uniformly and independently. (2) That
// exact FPP is within sampling error (over the blocks) of the blocked formula, which is at most p.
// And the classic formula's m would miss p.
void expect_fpp_matches_formula(const blocked_bloom_filter& f, std::uint64_t n,
                                const std::vector<std::string>& strangers) {
  const double formula = blocked_expected_fpp(f.blocks(), n);
  const filter_fpp exact = exact_fpp(f);
  const double measured = measured_fpp(f, strangers);
  const double queries = static_cast<double>(strangers.size());
  const double query_sigma = std::sqrt(exact.mean * (1 - exact.mean) / queries);
  const double filter_sigma = exact.block_sd / std::sqrt(static_cast<double>(f.blocks()));
  EXPECT_NEAR(measured, exact.mean, 5 * query_sigma) << "blocks=" << f.blocks() << " n=" << n;
  EXPECT_NEAR(exact.mean, formula, 5 * filter_sigma) << "blocks=" << f.blocks() << " n=" << n;
}

TEST(BlockedBloomFilter, MeasuredFppMatchesTheBlockedFormula) {
  BLOOMKIT_STATISTICAL_TEST();
  const auto strangers = stranger_keys(sanitized_build ? 400'000 : 2'000'000, 1);
  std::uint64_t set = 2000;
  for (double p : {0.1, 0.02, 0.01, 0.001}) {
    for (std::uint64_t n : {5'000ull, 100'000ull}) {
      // The split-block layout at every p (blocked_layouts_test checks the lines' figures).
      const std::uint64_t bits = blocked_optimal_blocks(n, p) * blocked_block_bits;
      auto f = detail::filter_access::make<blocked_bloom_filter>(
          filter_config{bits, blocked_hashes, n, p}, bit_array(bits), 0);
      f.insert_many(views(make_keys(n, ++set)));
      EXPECT_LE(blocked_expected_fpp(f.blocks(), n), p);
      EXPECT_GT(blocked_expected_fpp(f.blocks() - 1, n), p) << "not the smallest size";
      expect_fpp_matches_formula(f, n, strangers);
      EXPECT_DOUBLE_EQ(f.estimated_fpp(), exact_fpp(f).mean);  // from the bits of each block
      // Sized by the classic formula, the same filter would exceed p.
      const std::uint64_t classic_blocks = (optimal_bits(n, p) + 255) / 256;
      EXPECT_GT(blocked_expected_fpp(classic_blocks, n), p * 1.2);
    }
  }
}

// At 12 bits per key the FPP is at most 0.55% (formula 0.542%), and so is this filter's.
TEST(BlockedBloomFilter, TwelveBitsPerKeyStaysUnderPointFiftyFivePercent) {
  BLOOMKIT_STATISTICAL_TEST();
  const std::uint64_t n = std::uint64_t{1} << 18;
  const std::uint64_t blocks = n * 12 / 256;
  EXPECT_LE(blocked_expected_fpp(blocks, n), 0.0055);
  EXPECT_GT(blocked_expected_fpp(blocks, n), 0.0053);
  auto f = blocked_bloom_filter::with_blocks(blocks);
  f.insert_many(views(make_keys(n, 3000)));
  const auto strangers = stranger_keys(sanitized_build ? 1'000'000 : 4'000'000, 2);
  expect_fpp_matches_formula(f, n, strangers);
  EXPECT_LE(exact_fpp(f).mean, 0.0055);
  EXPECT_LE(measured_fpp(f, strangers), 0.0055);
}

TEST(BlockedBloomFilter, Estimates) {
  const std::uint64_t n = 50'000;
  auto f = blocked_bloom_filter::for_capacity(n, 0.01);
  EXPECT_EQ(f.capacity(), n);
  EXPECT_EQ(f.target_fpp(), 0.01);
  EXPECT_EQ(f.estimated_count(), 0.0);
  EXPECT_EQ(f.estimated_fpp(), 0.0);
  f.insert_many(views(make_keys(n, 4000)));
  EXPECT_NEAR(f.estimated_count(), static_cast<double>(n), 0.02 * n);
  EXPECT_NEAR(f.fill_ratio(), -std::expm1(-8.0 * n / static_cast<double>(f.bits())), 0.01);
  // Keys that were false positives when inserted are not counted (0.2% of them at p = 1%).
  EXPECT_NEAR(static_cast<double>(f.inserted()), static_cast<double>(n), 0.005 * n);
  f.clear();
  EXPECT_EQ(f.inserted(), 0u);
  EXPECT_EQ(f.storage().count(), 0u);
  EXPECT_FALSE(f.contains(make_keys(1, 4000)[0]));
  // Every bit set: the count is unknowable.
  auto full = blocked_bloom_filter::with_blocks(1);
  full.insert_many(views(make_keys(20'000, 4001)));
  EXPECT_EQ(full.fill_ratio(), 1.0);
  EXPECT_TRUE(std::isinf(full.estimated_count()));
}

TEST(BlockedBloomFilter, MergeAndIntersect) {
  const auto a_keys = make_keys(20'000, 5000);
  const auto b_keys = make_keys(20'000, 5001);
  auto a = blocked_bloom_filter::for_capacity(50'000, 0.01);
  auto b = a;
  auto both = a;
  a.insert_many(views(a_keys));
  b.insert_many(views(b_keys));
  both.insert_many(views(a_keys));
  both.insert_many(views(b_keys));

  auto merged = a;
  merged.merge(b);
  EXPECT_EQ(merged, both);  // union of the bits = inserting everything
  expect_no_false_negatives(merged, a_keys);
  expect_no_false_negatives(merged, b_keys);
  EXPECT_NEAR(static_cast<double>(merged.inserted()), 40'000.0, 800.0);

  auto common = both;
  common.intersect(a);
  EXPECT_EQ(common, a);  // a's bits are a subset of both's
  expect_no_false_negatives(common, a_keys);
  auto self = a;
  self.merge(a);
  EXPECT_EQ(self, a);

  const auto before = a;
  auto other_size = blocked_bloom_filter::with_blocks(a.blocks() + 1);
  for (auto op : {&blocked_bloom_filter::merge, &blocked_bloom_filter::intersect}) {
    try {
      (a.*op)(other_size);
      FAIL();
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::incompatible);
      EXPECT_NE(std::string(e.what()).find("bits differ"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(a, before);  // unchanged by the failures
  EXPECT_EQ(a.inserted(), before.inserted());
}

TEST(BlockedBloomFilter, InvalidParametersNameThemselves) {
  auto expect = [](errc code, const std::string& word, auto fn) {
    try {
      fn();
      ADD_FAILURE() << "no error for " << word;
    } catch (const error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(word), std::string::npos) << e.what();
    }
  };
  expect(errc::invalid_argument, "capacity", [] { blocked_bloom_filter::for_capacity(0, 0.01); });
  expect(errc::invalid_argument, "fpp", [] { blocked_bloom_filter::for_capacity(10, 0.0); });
  expect(errc::invalid_argument, "fpp", [] { blocked_bloom_filter::for_capacity(10, 1.0); });
  expect(errc::invalid_argument, "fpp", [] { blocked_bloom_filter::for_capacity(10, NAN); });
  expect(errc::invalid_argument, "fpp", [] { blocked_bloom_filter::for_capacity(10, -0.5); });
  expect(errc::too_large, "capacity",
         [] { blocked_bloom_filter::for_capacity(std::uint64_t{1} << 60, 0.01); });
  expect(errc::invalid_argument, "bits", [] {
    detail::filter_access::make<blocked_bloom_filter>(filter_config{300, 8, 1, 0.5}, bit_array(300),
                                                      0);
  });
  expect(errc::invalid_argument, "hashes", [] {
    detail::filter_access::make<blocked_bloom_filter>(filter_config{256, 7, 1, 0.5}, bit_array(256),
                                                      0);
  });
  expect(errc::invalid_argument, "storage", [] {
    detail::filter_access::make<blocked_bloom_filter>(filter_config{512, 8, 1, 0.5}, bit_array(256),
                                                      0);
  });
}

// 2^25 blocks (1 GiB): block indices need all of multiply-high's range.
TEST(BlockedBloomFilter, OneGibibyteFilter) {
  if (sanitized_build) {
    GTEST_SKIP() << "in the release build only: 1 GiB of shadow-tracked memory (11 s under ASan, "
                    "too much for TSan) for the code every smaller filter runs under them";
  }
  auto f = blocked_bloom_filter::with_blocks(std::uint64_t{1} << 25);
  EXPECT_EQ(f.byte_size(), std::uint64_t{1} << 30);
  const auto keys = make_keys(200'000, 6000);
  const auto v = views(keys);
  EXPECT_EQ(f.insert_many(v), keys.size());
  expect_no_false_negatives(f, keys);
  // Half the keys land in the upper half of the blocks.
  const auto words = f.storage().words();
  std::uint64_t upper = 0;
  for (std::size_t w = words.size() / 2; w < words.size(); ++w) {
    upper += static_cast<std::uint64_t>(std::popcount(words[w]));
  }
  EXPECT_NEAR(static_cast<double>(upper) / static_cast<double>(f.storage().count()), 0.5, 0.01);
  EXPECT_EQ(measured_fpp(f, stranger_keys(100'000, 3)), 0.0);  // expected ~1e-13
}

}  // namespace
}  // namespace bloomkit
