#include "bloomkit/bloom_filter.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "support/keys.hpp"
#include "support/statistical.hpp"

namespace bloomkit {
namespace {

using test::make_keys;
using test::views;

// Every inserted key must be reported present by every lookup path.
void expect_no_false_negatives(bloom_filter& f, const std::vector<std::string>& keys) {
  for (const auto& k : keys) ASSERT_TRUE(f.contains(k)) << k;
  const auto v = views(keys);
  auto results = std::make_unique<bool[]>(v.size());
  EXPECT_EQ(f.contains_many(v, {results.get(), v.size()}), v.size());
  for (std::size_t i = 0; i < v.size(); ++i) ASSERT_TRUE(results[i]) << v[i];
}

TEST(BloomFilter, NoFalseNegativesAcrossSizes) {
  std::uint64_t set = 0;
  for (std::uint64_t n : {1ull, 2ull, 3ull, 7ull, 100ull, 1000ull, 12345ull, 100003ull}) {
    for (double p : {1e-12, 1e-6, 0.01, 0.3, 0.9, 0.999}) {
      auto f = bloom_filter::for_capacity(n, p);
      const auto keys = make_keys(n, ++set);
      // Half one at a time, half batched.
      for (std::size_t i = 0; i < keys.size() / 2; ++i) f.insert(keys[i]);
      const auto v = views(keys);
      f.insert_many(std::span(v).subspan(keys.size() / 2));
      expect_no_false_negatives(f, keys);
    }
  }
}

TEST(BloomFilter, NoFalseNegativesForExplicitParameters) {
  std::uint64_t set = 100;
  for (std::uint64_t m : {1ull, 2ull, 63ull, 64ull, 65ull, 1000ull, 1'000'003ull}) {
    for (std::uint32_t k : {1u, 3u, 17u, 64u}) {
      bloom_filter f(m, k);
      EXPECT_EQ(f.bits(), m);
      EXPECT_EQ(f.hashes(), k);
      const auto keys = make_keys(500, ++set);
      for (const auto& key : keys) f.insert(key);
      expect_no_false_negatives(f, keys);
    }
  }
}

TEST(BloomFilter, InsertReportsWhetherNew) {
  auto f = bloom_filter::for_capacity(1000, 0.01);
  EXPECT_FALSE(f.contains("alpha"));
  EXPECT_TRUE(f.insert("alpha"));
  EXPECT_FALSE(f.insert("alpha"));
  EXPECT_TRUE(f.contains("alpha"));
  EXPECT_EQ(f.inserted(), 1u);
  const std::vector<std::string_view> batch = {"alpha", "beta", "gamma", "beta"};
  EXPECT_EQ(f.insert_many(batch), 2u);  // beta and gamma; the second beta is already there
  EXPECT_EQ(f.inserted(), 3u);
}

TEST(BloomFilter, IntegralKeysHashTheirLittleEndianBytes) {
  auto f = bloom_filter::for_capacity(1000, 0.01);
  f.insert(std::uint64_t{0x0102030405060708});
  const char bytes[] = {8, 7, 6, 5, 4, 3, 2, 1};
  EXPECT_TRUE(f.contains(std::string_view(bytes, 8)));
  EXPECT_TRUE(f.contains(std::uint64_t{0x0102030405060708}));
  EXPECT_TRUE(f.insert(std::int32_t{-1}));
  EXPECT_TRUE(f.contains(std::string_view("\xff\xff\xff\xff", 4)));
}

// The single-key, batched and concurrent paths take different loops by filter size (in cache
// or not) and by k (pipelined for 3 <= k <= 16, block-wise otherwise); all set the same bits
// and give the same answers.
TEST(BloomFilter, BatchedAndSingleKeyPathsAgree) {
  struct shape {
    std::uint64_t bits;
    std::uint32_t hashes;
  };
  const shape shapes[] = {
      {191'701, 7},            // 23 KiB, in cache
      {9'585'059, 7},          // 1.1 MiB: the large-filter paths
      {(1ull << 24) + 3, 2},   // large, k < 3: block-wise lookups
      {(1ull << 24) + 5, 20},  // large, k > 16: block-wise everything
      {100'003, 40},           // small, k > 16
  };
  std::uint64_t set = 7000;
  for (const auto& sh : shapes) {
    const auto keys = make_keys(20'000, ++set);
    bloom_filter one(sh.bits, sh.hashes);
    bloom_filter many(sh.bits, sh.hashes);
    bloom_filter concurrent(sh.bits, sh.hashes);
    bloom_filter one_concurrent(sh.bits, sh.hashes);
    bloom_filter one_digest(sh.bits, sh.hashes);
    bloom_filter many_digests(sh.bits, sh.hashes);
    std::vector<bloom_filter::digest_type> digests;
    for (const auto& k : keys) digests.push_back(bloom_filter::digest_of(k));
    for (const auto& k : keys) one.insert(k);
    for (const auto& k : keys) one_concurrent.insert_concurrent(k);
    for (const auto& d : digests) one_digest.insert_digest(d);
    EXPECT_EQ(many.insert_many(views(keys)), one.inserted()) << sh.bits;
    EXPECT_EQ(concurrent.insert_many_concurrent(views(keys)), one.inserted()) << sh.bits;
    EXPECT_EQ(many_digests.insert_many(std::span<const bloom_filter::digest_type>(digests)),
              one.inserted())
        << sh.bits;
    EXPECT_EQ(one, many) << sh.bits;
    EXPECT_EQ(one, concurrent) << sh.bits;
    EXPECT_EQ(one, one_concurrent) << sh.bits;
    EXPECT_EQ(one, one_digest) << sh.bits;
    EXPECT_EQ(one, many_digests) << sh.bits;
    expect_no_false_negatives(one, keys);
    // contains_many agrees with contains on absent keys too, including batches shorter than
    // the pipeline's depth.
    const auto others = make_keys(20'000, ++set);
    const auto v = views(others);
    for (std::size_t len : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{23},
                            std::size_t{25}, v.size()}) {
      auto results = std::make_unique<bool[]>(len + 1);
      const auto batch = std::span(v).first(len);
      const std::size_t present = one.contains_many(batch, {results.get(), len});
      std::vector<bloom_filter::digest_type> batch_digests;
      for (const auto k : batch) batch_digests.push_back(bloom_filter::digest_of(k));
      auto by_digest = std::make_unique<bool[]>(len + 1);
      EXPECT_EQ(one.contains_many(std::span<const bloom_filter::digest_type>(batch_digests),
                                  {by_digest.get(), len}),
                present);
      std::size_t expected = 0;
      for (std::size_t i = 0; i < len; ++i) {
        ASSERT_EQ(results[i], one.contains(batch[i])) << sh.bits << " " << i;
        ASSERT_EQ(by_digest[i], results[i]) << sh.bits << " " << i;
        ASSERT_EQ(one.contains_digest(batch_digests[i]), results[i]) << sh.bits << " " << i;
        expected += results[i];
      }
      EXPECT_EQ(present, expected);
    }
  }
}

TEST(BloomFilter, ContainsManyRejectsMismatchedResultSpan) {
  auto f = bloom_filter::for_capacity(10, 0.01);
  const std::vector<std::string_view> keys = {"a", "b"};
  bool results[1];
  EXPECT_THROW(f.contains_many(keys, results), error);
}

// FPP of a filter filled to capacity, measured on keys never inserted, lies within a
// statistical bound of the target: the count of false positives among Q queries is
// binomial, so we allow 5 standard deviations plus 5% for the model (k is rounded; probes
// are double-hashed rather than independent).
TEST(BloomFilter, MeasuredFppMatchesTargetAcrossGrid) {
  BLOOMKIT_STATISTICAL_TEST();
  std::uint64_t set = 1000;
  for (std::uint64_t n : {1'000ull, 10'000ull, 100'000ull}) {
    for (double p : {0.1, 0.01, 0.001}) {
      auto f = bloom_filter::for_capacity(n, p);
      f.insert_many(views(make_keys(n, ++set)));
      const std::size_t queries = p >= 0.01 ? 200'000 : 1'000'000;
      const auto absent = make_keys(queries, ++set);
      std::size_t positives = 0;
      for (const auto& k : absent) positives += f.contains(k);
      const double measured = static_cast<double>(positives) / queries;
      const double sigma = std::sqrt(p * (1 - p) / queries);
      // Against the target itself...
      EXPECT_LE(measured, p * 1.1 + 5 * sigma) << "n=" << n << " p=" << p;
      EXPECT_GE(measured, p * 0.8 - 5 * sigma) << "n=" << n << " p=" << p;
      // ...and against what this filter's actual fill predicts.
      const double predicted = std::pow(f.fill_ratio(), f.hashes());
      EXPECT_NEAR(measured, predicted, 5 * sigma + 0.05 * predicted) << "n=" << n << " p=" << p;
      EXPECT_NEAR(f.estimated_fpp(), p, p * 0.15);
    }
  }
}

TEST(BloomFilter, EstimatedCountWithinAFewPercentAtCapacity) {
  BLOOMKIT_STATISTICAL_TEST();
  std::uint64_t set = 2000;
  for (std::uint64_t n : {10'000ull, 100'000ull, 1'000'000ull}) {
    for (double p : {0.1, 0.01, 0.0001}) {
      auto f = bloom_filter::for_capacity(n, p);
      f.insert_many(views(make_keys(n, ++set)));
      EXPECT_NEAR(f.estimated_count(), static_cast<double>(n), n * 0.03) << n << " " << p;
      EXPECT_LE(f.inserted(), n);
      EXPECT_GE(static_cast<double>(f.inserted()), n * (1 - 2 * p) - 10);
    }
  }
}

TEST(BloomFilter, UnionContainsBothAndEqualsFilterBuiltFromBoth) {
  const auto a_keys = make_keys(30'000, 3001);
  const auto b_keys = make_keys(30'000, 3002);
  auto a = bloom_filter::for_capacity(60'000, 0.01);
  auto b = bloom_filter::for_capacity(60'000, 0.01);
  auto both = bloom_filter::for_capacity(60'000, 0.01);
  a.insert_many(views(a_keys));
  b.insert_many(views(b_keys));
  both.insert_many(views(a_keys));
  both.insert_many(views(b_keys));
  a.merge(b);
  EXPECT_EQ(a, both);
  expect_no_false_negatives(a, a_keys);
  expect_no_false_negatives(a, b_keys);
  EXPECT_NEAR(static_cast<double>(a.inserted()), 60'000.0, 60'000 * 0.03);
}

TEST(BloomFilter, IntersectLaws) {
  const auto shared = make_keys(10'000, 4001);
  const auto only_a = make_keys(10'000, 4002);
  const auto only_b = make_keys(10'000, 4003);
  auto a = bloom_filter::for_capacity(20'000, 0.01);
  auto b = bloom_filter::for_capacity(20'000, 0.01);
  a.insert_many(views(shared));
  a.insert_many(views(only_a));
  b.insert_many(views(shared));
  b.insert_many(views(only_b));

  // Commutative.
  auto ab = a;
  ab.intersect(b);
  auto ba = b;
  ba.intersect(a);
  EXPECT_EQ(ab, ba);
  // Keys of both remain present.
  expect_no_false_negatives(ab, shared);
  // Idempotent; intersect with self is identity.
  auto aa = a;
  aa.intersect(a);
  EXPECT_EQ(aa, a);
  auto abb = ab;
  abb.intersect(b);
  EXPECT_EQ(abb, ab);
  // Absorption: a ∩ (a ∪ b) = a.
  auto a_or_b = a;
  a_or_b.merge(b);
  auto absorbed = a;
  absorbed.intersect(a_or_b);
  EXPECT_EQ(absorbed, a);
  // Intersect with an empty filter empties.
  auto empty = bloom_filter::for_capacity(20'000, 0.01);
  auto none = a;
  none.intersect(empty);
  EXPECT_EQ(none, empty);
  EXPECT_EQ(none.inserted(), 0u);
  // Most keys of only one side are gone.
  std::size_t survivors = 0;
  for (const auto& k : only_a) survivors += ab.contains(k);
  EXPECT_LT(survivors, only_a.size() / 4);
}

TEST(BloomFilter, MergeRejectsIncompatibleFilters) {
  auto a = bloom_filter::for_capacity(1000, 0.01);
  auto other_bits = bloom_filter::for_capacity(2000, 0.01);
  bloom_filter other_hashes(a.bits(), a.hashes() + 1);
  for (auto* other : {&other_bits, &other_hashes}) {
    try {
      a.merge(*other);
      FAIL() << "merge accepted incompatible filters";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::incompatible);
      EXPECT_NE(std::string(e.what()).find("differ"), std::string::npos) << e.what();
    }
    EXPECT_THROW(a.intersect(*other), error);
  }
}

TEST(BloomFilter, ClearAndAccessors) {
  auto f = bloom_filter::for_capacity(5000, 0.02);
  EXPECT_EQ(f.capacity(), 5000u);
  EXPECT_EQ(f.target_fpp(), 0.02);
  EXPECT_EQ(f.scheme(), hash_scheme::xxh3_128);
  EXPECT_EQ(f.byte_size(), bytes_for_bits(f.bits()));
  EXPECT_EQ(f.estimated_count(), 0.0);
  EXPECT_EQ(f.estimated_fpp(), 0.0);
  f.insert_many(views(make_keys(5000, 5001)));
  EXPECT_GT(f.fill_ratio(), 0.3);
  f.clear();
  EXPECT_EQ(f.inserted(), 0u);
  EXPECT_EQ(f.fill_ratio(), 0.0);
  EXPECT_EQ(f, bloom_filter::for_capacity(5000, 0.02));
}

TEST(BloomFilter, ExplicitParametersDeriveCapacity) {
  // Capacity is the n at which k is optimal for m (n = m ln 2 / k); target is the exact FPP
  // there.
  bloom_filter f(9'585'059, 7);
  EXPECT_EQ(f.capacity(), 949'122u);
  EXPECT_DOUBLE_EQ(f.target_fpp(), exact_fpp(9'585'059, 7, 949'122));
  EXPECT_NEAR(f.target_fpp(), 0.0078, 0.0001);
  EXPECT_THROW(bloom_filter(0, 3), error);
  EXPECT_THROW(bloom_filter(100, 0), error);
}

}  // namespace
}  // namespace bloomkit
