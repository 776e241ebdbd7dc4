// Filters past 2^32 bits: all index math is 64-bit.

#include <gtest/gtest.h>

#include "bloomkit/bloom_filter.hpp"
#include "support/build.hpp"
#include "support/keys.hpp"

namespace bloomkit {
namespace {

TEST(LargeFilter, TwoToThe33BitsHasNoFalseNegativesAndUsesTheUpperHalf) {
  if (test::sanitized_build) {
    GTEST_SKIP() << "in the release build only: 1 GiB of shadow-tracked memory (23-30 s under "
                    "ASan, too much for TSan) for the index math every smaller filter runs there";
  }
  const std::uint64_t m = std::uint64_t{1} << 33;  // 1 GiB
  bloom_filter f(m, 7);
  EXPECT_EQ(f.byte_size(), std::uint64_t{1} << 30);
  const auto keys = test::make_keys(1'000'000, 9001);
  const auto v = test::views(keys);
  EXPECT_EQ(f.insert_many(v), keys.size());
  auto results = std::make_unique<bool[]>(v.size());
  EXPECT_EQ(f.contains_many(v, {results.get(), v.size()}), v.size());
  for (std::size_t i = 0; i < v.size(); i += 97) ASSERT_TRUE(f.contains(v[i]));

  // Bits land above 2^32 (a 32-bit truncation would leave the upper half empty).
  const auto words = f.storage().words();
  std::uint64_t upper = 0;
  for (std::size_t w = (std::size_t{1} << 32) / 64; w < words.size(); ++w) {
    upper += static_cast<std::uint64_t>(__builtin_popcountll(words[w]));
  }
  const double share = static_cast<double>(upper) / static_cast<double>(f.storage().count());
  EXPECT_NEAR(share, 0.5, 0.01);
  EXPECT_NEAR(f.estimated_count(), 1e6, 1e4);
  const auto absent = test::make_keys(100'000, 9002);
  std::size_t positives = 0;
  for (const auto& k : absent) positives += f.contains(k);
  EXPECT_EQ(positives, 0u);  // expected FPP ~ 1e-21
}

TEST(LargeFilter, SizingBeyondTwoToThe32) {
  // 10^10 keys at 1%: about 9.6e10 bits (12 GB); sizing must not overflow.
  const auto params = optimal_params(10'000'000'000ull, 0.01);
  EXPECT_EQ(params.hashes, 7u);
  EXPECT_NEAR(static_cast<double>(params.bits), 9.585e10, 1e8);
  EXPECT_GT(params.bits, std::uint64_t{1} << 32);
  EXPECT_NEAR(expected_fpp(params.bits, params.hashes, 10'000'000'000ull), 0.01, 0.001);
  EXPECT_NEAR(static_cast<double>(capacity_for(params.bits, params.hashes, 0.01)), 1e10, 1e8);
}

}  // namespace
}  // namespace bloomkit
