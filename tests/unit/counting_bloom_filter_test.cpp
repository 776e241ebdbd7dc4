#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/detail/filter_access.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
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

void expect_all_present(const counting_bloom_filter& f, const std::vector<std::string>& keys) {
  for (const auto& k : keys) ASSERT_TRUE(f.contains(k)) << k;
  const auto v = views(keys);
  auto results = std::make_unique<bool[]>(v.size());
  EXPECT_EQ(f.contains_many(v, {results.get(), v.size()}), v.size());
  for (std::size_t i = 0; i < v.size(); ++i) ASSERT_TRUE(results[i]) << v[i];
}

// prefix + decimal i (operator+ on a literal trips a GCC 12 -Wrestrict false positive).
std::string numbered(const char* prefix, std::uint64_t i) {
  std::string s = prefix;
  s += std::to_string(i);
  return s;
}

std::vector<unsigned char> raw_bytes(const counting_bloom_filter& f) {
  const auto* p = reinterpret_cast<const unsigned char*>(f.storage().data());
  return {p, p + f.byte_size()};
}

TEST(CountingBloomFilter, NoFalseNegativesAcrossSizes) {
  std::uint64_t set = 0;
  for (std::uint64_t n : {1ull, 2ull, 7ull, 100ull, 1000ull, 12345ull, 100003ull}) {
    for (double p : {0.3, 0.01, 0.0001}) {
      auto f = counting_bloom_filter::for_capacity(n, p);
      const auto single = make_keys(n / 2 + 1, ++set);
      const auto batched = make_keys(n / 2 + 1, ++set);
      for (const auto& k : single) f.insert(k);
      f.insert_many(views(batched));
      expect_all_present(f, single);
      expect_all_present(f, batched);
      EXPECT_EQ(f.inserted(), single.size() + batched.size());
    }
  }
}

TEST(CountingBloomFilter, SizesLikeTheClassicFilter) {
  for (double p : {0.1, 0.01, 0.001}) {
    const auto f = counting_bloom_filter::for_capacity(10'000, p);
    const auto c = bloom_filter::for_capacity(10'000, p);
    EXPECT_EQ(f.counters(), c.bits());
    EXPECT_EQ(f.cells(), c.bits());
    EXPECT_EQ(f.hashes(), c.hashes());
    EXPECT_EQ(f.capacity(), 10'000u);
    EXPECT_EQ(f.target_fpp(), p);
    EXPECT_EQ(f.byte_size(), bytes_for_bits(4 * c.bits()));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(f.storage().data()) % 64, 0u);
  }
  const counting_bloom_filter explicit_params(1000, 7);
  const bloom_filter classic(1000, 7);
  EXPECT_EQ(explicit_params.capacity(), classic.capacity());
  EXPECT_EQ(explicit_params.target_fpp(), classic.target_fpp());
}

TEST(CountingBloomFilter, InvalidParametersAreRefused) {
  EXPECT_THROW(counting_bloom_filter(0, 3), error);
  EXPECT_THROW(counting_bloom_filter(100, 0), error);
  try {
    counting_bloom_filter(counting_bloom_filter::max_counters + 1, 3);
    FAIL();
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::too_large);
    EXPECT_NE(std::string(e.what()).find("counters"), std::string::npos) << e.what();
  }
  EXPECT_THROW(counting_bloom_filter::for_capacity(0, 0.01), error);
  EXPECT_THROW(counting_bloom_filter::for_capacity(100, 1.0), error);
  EXPECT_THROW(detail::filter_access::make<counting_bloom_filter>(filter_config{100, 3, 10, 0.01},
                                                                  bit_array(100), 0),
               error);
}

TEST(CountingBloomFilter, InsertReportsWhetherNewAndIntegralKeysAreLittleEndianBytes) {
  counting_bloom_filter f(4096, 5);
  EXPECT_TRUE(f.insert("k"));
  EXPECT_FALSE(f.insert("k"));
  EXPECT_EQ(f.inserted(), 2u);
  EXPECT_TRUE(f.insert(std::uint32_t{0x01020304}));
  const char le[] = {4, 3, 2, 1};
  EXPECT_TRUE(f.contains(std::string_view(le, 4)));
  EXPECT_TRUE(f.remove(std::string_view(le, 4)));
  EXPECT_FALSE(f.contains(std::uint32_t{0x01020304}));
  EXPECT_TRUE(f.insert(std::int64_t{-2}));
  EXPECT_TRUE(f.remove(std::int64_t{-2}));
  EXPECT_FALSE(f.remove(std::int64_t{-2}));
}

TEST(CountingBloomFilter, BatchedAndSingleKeyPathsAgree) {
  for (std::uint32_t k : {1u, 3u, 7u, 20u}) {
    const auto keys = make_keys(5000, 10 + k);
    counting_bloom_filter single(60'000, k);
    counting_bloom_filter batched(60'000, k);
    std::size_t fresh = 0;
    for (const auto& key : keys) fresh += single.insert(key);
    EXPECT_EQ(batched.insert_many(views(keys)), fresh);
    EXPECT_EQ(single, batched);
    const auto probe = make_keys(5000, 20 + k);
    auto results = std::make_unique<bool[]>(probe.size());
    std::size_t present = 0;
    for (const auto& key : probe) present += single.contains(key);
    EXPECT_EQ(batched.contains_many(views(probe), {results.get(), probe.size()}), present);
    for (std::size_t i = 0; i < probe.size(); ++i) ASSERT_EQ(results[i], single.contains(probe[i]));
  }
  counting_bloom_filter f(100, 2);
  const std::vector<std::string_view> two = {"a", "b"};
  bool one[1];
  EXPECT_THROW(f.contains_many(two, one), error);
}

// Counters sit where the classic filter puts its bits: converting gives the classic filter of
// the same keys, bit for bit, also after removing keys again (no counter saturates here).
TEST(CountingBloomFilter, ToBloomFilterEqualsClassicBuild) {
  for (double p : {0.1, 0.01}) {
    const auto kept = make_keys(20'000, 31);
    const auto removed = make_keys(5'000, 32);
    auto counting = counting_bloom_filter::for_capacity(25'000, p);
    auto classic = bloom_filter::for_capacity(25'000, p);
    counting.insert_many(views(kept));
    counting.insert_many(views(removed));
    for (const auto& k : kept) counting.insert(k);  // repeats: counters of 2 and more
    classic.insert_many(views(kept));
    auto converted = counting.to_bloom_filter();
    EXPECT_NE(converted, classic);  // still holds the keys to be removed
    for (const auto& k : removed) ASSERT_TRUE(counting.remove(k)) << k;
    ASSERT_EQ(counting.saturated_counters(), 0u);
    converted = counting.to_bloom_filter();
    EXPECT_EQ(converted, classic);
    EXPECT_EQ(converted.capacity(), classic.capacity());
    EXPECT_EQ(converted.target_fpp(), classic.target_fpp());
    EXPECT_EQ(converted.inserted(), counting.inserted());
    EXPECT_EQ(counting.inserted(), 2 * kept.size());
    EXPECT_DOUBLE_EQ(counting.fill_ratio(), classic.fill_ratio());
  }
}

// THE saturation property: any sequence of inserts (with repeats, driving counters to 15) and
// removes of keys currently inserted (multiset semantics) leaves every key still inserted
// reported present. Small filters make counters collide and saturate often.
TEST(CountingBloomFilter, KeysStillInsertedArePresentAfterAnyInsertRemoveSequence) {
  std::uint64_t saturated_runs = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    std::mt19937_64 rng(seed);
    const std::uint64_t m = 16 + rng() % 200;
    const std::uint32_t k = 1 + static_cast<std::uint32_t>(rng() % 6);
    counting_bloom_filter f(m, k);
    const auto pool = make_keys(4 + rng() % 60, 1000 + seed);
    std::map<std::size_t, std::uint64_t> held;  // pool index -> multiplicity
    std::uint64_t expected_inserted = 0;
    bool saw_saturation = false;
    for (int op = 0; op < 600; ++op) {
      const bool do_insert = held.empty() || rng() % 100 < 55;
      if (do_insert) {
        const std::size_t i = rng() % pool.size();
        const std::uint64_t times = rng() % 4 == 0 ? 1 + rng() % 20 : 1;
        for (std::uint64_t t = 0; t < times; ++t) f.insert(pool[i]);
        held[i] += times;
        expected_inserted += times;
      } else {
        auto it = held.begin();
        std::advance(it, static_cast<std::ptrdiff_t>(rng() % held.size()));
        ASSERT_TRUE(f.remove(pool[it->first])) << "seed " << seed << " op " << op;
        --expected_inserted;
        if (--it->second == 0) held.erase(it);
      }
      saw_saturation |= f.saturated_counters() > 0;
      for (const auto& [i, count] : held) {
        ASSERT_TRUE(f.contains(pool[i])) << "seed " << seed << " op " << op << " key " << i;
      }
    }
    EXPECT_EQ(f.inserted(), expected_inserted);
    saturated_runs += saw_saturation;
  }
  // The property was exercised where it matters: most runs saturated some counter.
  EXPECT_GT(saturated_runs, 200u);
}

TEST(CountingBloomFilter, SaturatedCountersAreNeverDecremented) {
  counting_bloom_filter f(64, 1);
  for (int i = 0; i < 20; ++i) f.insert("hot");
  std::uint64_t position = 0;
  for (std::uint64_t i = 0; i < f.counters(); ++i) {
    if (f.counter(i) != 0) position = i;
  }
  EXPECT_EQ(f.counter(position), counting_bloom_filter::max_count);
  EXPECT_EQ(f.saturated_counters(), 1u);
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(f.remove("hot"));
  // Its true count is unknown, so it stays: the key (and any sharing the counter) stays present.
  EXPECT_EQ(f.counter(position), counting_bloom_filter::max_count);
  EXPECT_TRUE(f.contains("hot"));
  EXPECT_EQ(f.inserted(), 0u);
}

TEST(CountingBloomFilter, InsertThenRemoveRestoresTheCounters) {
  auto f = counting_bloom_filter::for_capacity(10'000, 0.01);
  const auto base = make_keys(5'000, 41);
  f.insert_many(views(base));
  const auto before = raw_bytes(f);
  const auto extra = make_keys(3'000, 42);
  f.insert_many(views(extra));
  for (const auto& k : extra) ASSERT_TRUE(f.remove(k));
  EXPECT_EQ(raw_bytes(f), before);
  EXPECT_EQ(f.inserted(), base.size());
  for (const auto& k : base) ASSERT_TRUE(f.remove(k));
  EXPECT_EQ(f.nonzero_counters(), 0u);
  EXPECT_EQ(f, counting_bloom_filter::for_capacity(10'000, 0.01));
}

// A definitely-absent key is refused and the filter stays byte-identical.
TEST(CountingBloomFilter, RemoveOfAbsentKeyReturnsFalseAndChangesNothing) {
  auto f = counting_bloom_filter::for_capacity(2'000, 0.05);
  f.insert_many(views(make_keys(2'000, 51)));
  const auto before = raw_bytes(f);
  const auto inserted = f.inserted();
  std::size_t refused = 0;
  for (const auto& k : make_keys(5'000, 52)) {
    if (f.contains(k)) continue;  // a false positive: removing it would be the caller's bug
    ASSERT_FALSE(f.remove(k)) << k;
    ++refused;
  }
  EXPECT_GT(refused, 4'000u);
  EXPECT_EQ(raw_bytes(f), before);
  EXPECT_EQ(f.inserted(), inserted);
  // The empty filter refuses everything.
  counting_bloom_filter empty(1000, 4);
  EXPECT_FALSE(empty.remove("x"));
  EXPECT_EQ(empty.nonzero_counters(), 0u);
}

// A key whose two probes hit one counter added 2 to it; a counter of 1 there means the key is
// absent, and remove() must refuse rather than take the counter below zero.
TEST(CountingBloomFilter, RemoveChecksCountersAgainstRepeatedProbes) {
  // With 2 counters and 4 probes, every key has repeated probes.
  std::size_t refusals = 0;
  for (int trial = 0; trial < 200; ++trial) {
    counting_bloom_filter f(2, 4);
    const std::string other = numbered("other-", trial);
    const std::string key = numbered("key-", trial);
    f.insert(other);
    const auto before = raw_bytes(f);
    if (!f.remove(key)) {
      ++refusals;
      EXPECT_EQ(raw_bytes(f), before);
    } else {
      // Accepted: the key's contribution fitted under the counters; none wrapped around.
      for (std::uint64_t i = 0; i < 2; ++i) EXPECT_LE(f.counter(i), 4u);
    }
  }
  EXPECT_GT(refusals, 0u);
}

TEST(CountingBloomFilter, CounterLayoutIsNibblesLowFirst) {
  counting_bloom_filter f(37, 1);
  for (int i = 0; i < 200; ++i) f.insert(numbered("k", i));
  const auto bytes = raw_bytes(f);
  for (std::uint64_t i = 0; i < f.counters(); ++i) {
    const unsigned byte = bytes[i / 2];
    EXPECT_EQ(f.counter(i), i % 2 == 0 ? (byte & 15u) : (byte >> 4)) << i;
  }
  for (std::size_t b = (37 + 1) / 2; b < bytes.size(); ++b) EXPECT_EQ(bytes[b], 0) << b;
  EXPECT_EQ(bytes[18] >> 4, 0);  // counter 37 would be here: past m, always 0
}

// FPP at capacity within the statistical bound of the target (as for the classic filter).
TEST(CountingBloomFilter, MeasuredFppWithinBoundAtCapacity) {
  BLOOMKIT_STATISTICAL_TEST();
  std::uint64_t set = 600;
  for (std::uint64_t n : {5'000ull, 50'000ull}) {
    for (double p : {0.1, 0.01}) {
      auto f = counting_bloom_filter::for_capacity(n, p);
      f.insert_many(views(make_keys(n, ++set)));
      const std::size_t queries = 100'000;
      const auto absent = make_keys(queries, ++set);
      auto results = std::make_unique<bool[]>(queries);
      const double measured =
          static_cast<double>(f.contains_many(views(absent), {results.get(), queries})) / queries;
      const double sigma = std::sqrt(p * (1 - p) / queries);
      EXPECT_LE(measured, p * 1.1 + 5 * sigma) << "n=" << n << " p=" << p;
      EXPECT_GE(measured, p * 0.8 - 5 * sigma) << "n=" << n << " p=" << p;
      EXPECT_NEAR(f.estimated_fpp(), p, p * 0.15);
      EXPECT_NEAR(f.estimated_count(), static_cast<double>(n), n * 0.03);
    }
  }
}

TEST(CountingBloomFilter, MergeEqualsFilterBuiltFromBothKeySets) {
  const auto a_keys = make_keys(20'000, 71);
  const auto b_keys = make_keys(20'000, 72);
  auto a = counting_bloom_filter::for_capacity(40'000, 0.01);
  auto b = counting_bloom_filter::for_capacity(40'000, 0.01);
  auto both = counting_bloom_filter::for_capacity(40'000, 0.01);
  a.insert_many(views(a_keys));
  b.insert_many(views(b_keys));
  both.insert_many(views(a_keys));
  both.insert_many(views(b_keys));
  a.merge(b);
  EXPECT_EQ(a, both);
  EXPECT_EQ(a.inserted(), 40'000u);
  expect_all_present(a, a_keys);
  expect_all_present(a, b_keys);
  // Removing b's keys from the union leaves a's filter.
  for (const auto& k : b_keys) ASSERT_TRUE(a.remove(k));
  auto a_only = counting_bloom_filter::for_capacity(40'000, 0.01);
  a_only.insert_many(views(a_keys));
  EXPECT_EQ(a, a_only);
}

// Saturating addition, counter by counter, on filters whose counters span 0..15.
TEST(CountingBloomFilter, MergeAddsCountersSaturating) {
  std::mt19937_64 rng(7);
  counting_bloom_filter a(301, 3);
  counting_bloom_filter b(301, 3);
  for (int i = 0; i < 900; ++i) a.insert(numbered("a", rng() % 150));
  for (int i = 0; i < 900; ++i) b.insert(numbered("b", rng() % 150));
  ASSERT_GT(a.saturated_counters(), 0u);
  std::vector<std::uint32_t> expected(a.counters());
  for (std::uint64_t i = 0; i < a.counters(); ++i) {
    expected[i] = std::min<std::uint32_t>(15, a.counter(i) + b.counter(i));
  }
  auto b_then_a = b;
  b_then_a.merge(a);
  a.merge(b);
  for (std::uint64_t i = 0; i < a.counters(); ++i) ASSERT_EQ(a.counter(i), expected[i]) << i;
  EXPECT_EQ(a.inserted(), 1800u);
  EXPECT_EQ(b_then_a, a);  // commutative
  // Merging with itself doubles every counter, up to 15.
  auto twice = b;
  twice.merge(b);
  for (std::uint64_t i = 0; i < b.counters(); ++i) {
    ASSERT_EQ(twice.counter(i), std::min<std::uint32_t>(15, 2 * b.counter(i)));
  }
}

TEST(CountingBloomFilter, MergeRejectsIncompatibleFilters) {
  counting_bloom_filter a(1000, 3);
  for (const auto& other : {counting_bloom_filter(1001, 3), counting_bloom_filter(1000, 4)}) {
    try {
      a.merge(other);
      FAIL();
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::incompatible);
      EXPECT_NE(std::string(e.what()).find("counting"), std::string::npos) << e.what();
    }
  }
}

TEST(CountingBloomFilter, ClearAndCopies) {
  auto f = counting_bloom_filter::for_capacity(1000, 0.01);
  f.insert_many(views(make_keys(1000, 81)));
  auto copy = f;
  EXPECT_EQ(copy, f);
  f.clear();
  EXPECT_EQ(f.inserted(), 0u);
  EXPECT_EQ(f.nonzero_counters(), 0u);
  EXPECT_EQ(f.fill_ratio(), 0.0);
  EXPECT_EQ(f.estimated_count(), 0.0);
  EXPECT_NE(copy, f);
  expect_all_present(copy, make_keys(1000, 81));
  EXPECT_FALSE(f.read_only());
  EXPECT_EQ(f.scheme(), hash_scheme::xxh3_128);
}

}  // namespace
}  // namespace bloomkit
