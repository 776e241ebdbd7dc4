// The cuckoo filter (cuckoo_filter.hpp): no inserted key is ever missing, whatever sequence of
// inserts (repeats included), removes of inserted keys, failed inserts of a full table and
// growth came before; count follows multiplicity; the FPP at capacity holds p; the sizing rule
// gives at most 0.35x the counting filter's bits; the batched paths do what loops of calls do.

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit/error.hpp"
#include "support/keys.hpp"

namespace bloomkit {
namespace {

using test::make_keys;
using test::random_hashes;
using test::views;

TEST(CuckooSizing, LeastMemoryRuleAndCountingRatio) {
  const auto s = cuckoo_filter::sizing_for(1'000'000, 0.01);
  EXPECT_EQ(s.bucket_size, 4U);
  EXPECT_EQ(s.fingerprint_bits, 10U);
  for (const double p : {1e-2, 1e-3, 1e-4}) {
    const auto f = cuckoo_filter::for_capacity(1'000'000, p);
    const auto c = counting_bloom_filter::for_capacity(1'000'000, p);
    const double ratio = static_cast<double>(f.byte_size()) / static_cast<double>(c.byte_size());
    EXPECT_LE(ratio, 0.35) << p;
    // No other bucket size of the three is smaller for this p.
    for (const std::uint32_t b : {2U, 4U, 8U}) {
      if (b * std::log2(15.7 / p) > cuckoo_filter::max_bucket_bits) continue;  // p out of reach
      const auto other = cuckoo_filter::sizing_for(1'000'000, p, b);
      EXPECT_GE(other.buckets * b * other.fingerprint_bits,
                f.tables()[0].buckets() * f.bucket_size() * f.fingerprint_bits())
          << p << " b " << b;
    }
  }
  // Any bucket count: no power-of-two rounding.
  const auto t = cuckoo_filter::sizing_for(300'000, 0.01);
  EXPECT_NE(t.buckets & (t.buckets - 1), 0U);
  EXPECT_LT(static_cast<double>(t.buckets * t.bucket_size) * t.load, 300'000 * 1.01);
}

TEST(CuckooSizing, BadOptionsNameTheOption) {
  const auto message = [](const cuckoo_options& o) {
    try {
      cuckoo_filter f(o);
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({.capacity = 0}).find("capacity"), std::string::npos);
  EXPECT_NE(message({.capacity = 10, .target_fpp = 1}).find("fpp"), std::string::npos);
  EXPECT_NE(message({.capacity = 10, .bucket_size = 1}).find("bucket size 1"), std::string::npos);
  EXPECT_NE(message({.capacity = 10, .bucket_size = 9}).find("bucket size 9"), std::string::npos);
  EXPECT_NE(message({.capacity = 10, .max_kicks = 0}).find("max kicks"), std::string::npos);
  EXPECT_NE(message({.capacity = 10, .expansion = 40000}).find("expansion"), std::string::npos);
  EXPECT_NE(message({.capacity = 10, .target_fpp = 1e-12}).find("32 bits"), std::string::npos);
}

// Every bucket size holds its capacity: tables of 1000 keys (and one large) take every key.
TEST(CuckooSizing, CapacityIsReached) {
  std::uint64_t seed = 1;
  for (const std::uint32_t b : {2U, 3U, 4U, 8U}) {
    for (const std::uint64_t n : {1ULL, 7ULL, 100ULL, 1000ULL, 1000ULL, 1000ULL, 50000ULL}) {
      cuckoo_filter f({.capacity = n, .target_fpp = 0.01, .bucket_size = b});
      const auto keys = random_hashes(n, seed++);
      ASSERT_EQ(f.insert_many(keys), n) << "b " << b << " n " << n;
      EXPECT_EQ(f.items(), n);
    }
  }
}

// Measured FPP at capacity: within 4 standard deviations above the design bound p (and not
// far under it: the fingerprints are as wide as p needs, no wider).
TEST(CuckooFpp, AtCapacityWithinBoundsOfTarget) {
  for (const double p : {1e-2, 1e-3, 1e-4}) {
    const std::uint64_t n = 20000, probes = 400000;
    auto f = cuckoo_filter::for_capacity(n, p);
    ASSERT_EQ(f.insert_many(random_hashes(n, 7)), n);
    const auto absent = random_hashes(probes, 8);
    auto hits = std::make_unique<bool[]>(probes);
    const double fpp = static_cast<double>(f.contains_many(absent, {hits.get(), probes})) / probes;
    const double sd = std::sqrt(p / probes);
    EXPECT_LE(fpp, p + 4 * sd) << p;
    EXPECT_GE(fpp, p / 8 - 4 * sd) << p;
    EXPECT_NEAR(fpp, f.estimated_fpp(), 5 * sd + 0.15 * f.estimated_fpp()) << p;
  }
}

TEST(CuckooFpp, GrowingChainKeepsTheCompoundBound) {
  const double p = 0.01;
  cuckoo_filter f({.capacity = 2000, .target_fpp = p, .expansion = 2});
  const auto keys = random_hashes(14000, 11);
  ASSERT_EQ(f.insert_many(keys), keys.size());
  ASSERT_GE(f.tables().size(), 3U);
  for (std::size_t i = 1; i < f.tables().size(); ++i) {
    EXPECT_GT(f.tables()[i].fingerprint_bits(), f.tables()[i - 1].fingerprint_bits());
    EXPECT_EQ(f.tables()[i].capacity(), 2 * f.tables()[i - 1].capacity());
  }
  for (const auto h : keys) ASSERT_TRUE(f.contains_digest(h));
  const std::uint64_t probes = 300000;
  const auto absent = random_hashes(probes, 12);
  auto hits = std::make_unique<bool[]>(probes);
  const double fpp = static_cast<double>(f.contains_many(absent, {hits.get(), probes})) / probes;
  EXPECT_LE(fpp, p + 4 * std::sqrt(p / probes));
  EXPECT_LE(f.estimated_fpp(), p);
}

// A full table that cannot grow refuses the insert and keeps every fingerprint it had, bit for
// bit; its batched insert stops at the first key that does not fit.
TEST(CuckooFull, FailedInsertChangesNothing) {
  for (const std::uint32_t kicks : {1U, 500U}) {
    cuckoo_filter f({.capacity = 200, .target_fpp = 0.001, .max_kicks = kicks});
    const auto keys = random_hashes(1000, kicks);
    std::vector<std::uint64_t> stored;
    std::size_t first_refused = keys.size();
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const cuckoo_filter before = f;
      if (f.insert_digest(keys[i])) {
        stored.push_back(keys[i]);
      } else {
        ASSERT_TRUE(f == before) << "a refused insert changed the table";
        first_refused = std::min(first_refused, i);
      }
    }
    if (kicks == 500) {
      EXPECT_GE(first_refused, 200U);  // its capacity, at least
    }
    EXPECT_LT(first_refused, keys.size());
    EXPECT_EQ(f.items(), stored.size());
    EXPECT_GT(f.load_factor(), kicks == 500 ? 0.94 : 0.5);
    for (const auto h : stored) ASSERT_TRUE(f.contains_digest(h));
    // A batch stops at the first refusal: the keys before it are in, none after.
    cuckoo_filter g({.capacity = 200, .target_fpp = 0.001, .max_kicks = kicks});
    EXPECT_EQ(g.insert_many(keys), first_refused);
    EXPECT_EQ(g.items(), first_refused);
    for (std::size_t i = 0; i < first_refused; ++i) ASSERT_TRUE(g.contains_digest(keys[i]));
  }
}

TEST(CuckooRemove, AbsentFingerprintIsRefusedWithoutChange) {
  auto f = cuckoo_filter::for_capacity(1000, 1e-6);
  const auto in = make_keys(900, 1), out = make_keys(2000, 2);
  ASSERT_EQ(f.insert_many(views(in)), in.size());
  const cuckoo_filter before = f;
  std::size_t refused = 0;
  for (const auto& k : out) refused += !f.remove(k);
  EXPECT_EQ(refused, out.size());
  EXPECT_TRUE(f == before);
  for (const auto& k : in) EXPECT_TRUE(f.remove(k));
  EXPECT_EQ(f.items(), 0U);
  EXPECT_FALSE(f.remove(in[0]));
}

// Random sequences of inserts (repeats included), removes of keys still inserted, and inserts
// that a nearly full table refuses, on small tables with and without growth: after every step,
// every key still inserted is present, the items are the model's, and count is each key's
// multiplicity (fingerprints of 25 bits and more where b < 8: a collision among these few keys
// takes ~10^5 sequences).
TEST(CuckooProperty, RandomSequencesNeverLoseAKey) {
  std::mt19937_64 rng(2024);
  std::size_t refusals = 0, grown = 0;
  for (int sequence = 0; sequence < 2000; ++sequence) {
    const std::uint32_t b = std::array<std::uint32_t, 3>{2, 4, 8}[rng() % 3];
    const std::uint32_t expansion = rng() % 3 == 0 ? 1 + rng() % 2 : 0;
    cuckoo_filter f({.capacity = 8 + rng() % 40,
                     .target_fpp = b == 8 ? 1e-3 : (expansion == 0 ? 1e-8 : 1e-7),
                     .bucket_size = b,
                     .expansion = expansion,
                     .max_kicks = 1 + static_cast<std::uint32_t>(rng() % 40)});
    const bool exact = b != 8;  // 15-bit fingerprints at b = 8: count may see a collision
    std::map<std::uint64_t, std::uint32_t> model;  // hash -> multiplicity
    std::vector<std::uint64_t> pool = random_hashes(30, rng());
    std::uint64_t items = 0;
    for (int step = 0; step < 120; ++step) {
      const std::uint64_t h = pool[rng() % pool.size()];
      if (rng() % 3 != 0 || model.empty()) {
        if (f.insert_digest(h)) {
          ++model[h];
          ++items;
        } else {
          ++refusals;
        }
      } else {
        auto it = model.begin();
        std::advance(it, rng() % model.size());
        ASSERT_TRUE(f.remove_digest(it->first));
        --items;
        if (--it->second == 0) model.erase(it);
      }
      ASSERT_EQ(f.items(), items);
      for (const auto& [key, times] : model) {
        ASSERT_TRUE(f.contains_digest(key)) << "sequence " << sequence << " step " << step;
        if (exact)
          ASSERT_EQ(f.count_digest(key), times);
        else
          ASSERT_GE(f.count_digest(key), times);
      }
    }
    grown += f.tables().size() > 1;
  }
  EXPECT_GT(refusals, 100U);  // the sequences did reach full tables
  EXPECT_GT(grown, 50U);      // and growth
}

// Batches against loops of single calls, in a filter of `capacity` (its first table in cache at
// 3000, a chain of two tables after 5000 keys; past the pipeline's 1 MiB at 1e6, one table).
void expect_batches_do_what_loops_do(std::uint64_t capacity) {
  const auto keys = make_keys(5000, 3), more = make_keys(3000, 4);
  cuckoo_filter loop({.capacity = capacity, .target_fpp = 0.01, .expansion = 1});
  cuckoo_filter batch = loop;
  for (const auto& k : keys) ASSERT_TRUE(loop.insert(k));
  ASSERT_EQ(batch.insert_many(views(keys)), keys.size());
  EXPECT_TRUE(loop == batch);
  if (capacity < keys.size()) {
    ASSERT_EQ(batch.tables().size(), 2U);
  } else {
    ASSERT_GE(batch.tables().front().words().byte_size(), std::size_t{1} << 20);
  }
  auto all = keys;
  all.insert(all.end(), more.begin(), more.end());
  auto results = std::make_unique<bool[]>(all.size());
  const auto v = views(all);
  std::size_t present = batch.contains_many(v, {results.get(), all.size()}), expected = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    ASSERT_EQ(results[i], loop.contains(all[i]));
    expected += results[i];
  }
  EXPECT_EQ(present, expected);
  // Remove every other key and some absent ones.
  std::vector<std::string_view> gone;
  for (std::size_t i = 0; i < keys.size(); i += 2) gone.push_back(keys[i]);
  gone.push_back(more[0]);
  auto removed = std::make_unique<bool[]>(gone.size());
  std::size_t looped = 0;
  for (const auto k : gone) looped += loop.remove(k);
  EXPECT_EQ(batch.remove_many(gone, {removed.get(), gone.size()}), looped);
  EXPECT_TRUE(loop == batch);
  for (std::size_t i = 1; i < keys.size(); i += 2) ASSERT_TRUE(batch.contains(keys[i]));
}

TEST(CuckooBatches, DoWhatLoopsOfCallsDo) {
  expect_batches_do_what_loops_do(3000);
  expect_batches_do_what_loops_do(1'000'000);
}

TEST(CuckooFilter, CountClearAndIntegralKeys) {
  auto f = cuckoo_filter::for_capacity(100, 1e-6);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(f.insert("repeated"));
  EXPECT_EQ(f.count("repeated"), 3U);
  EXPECT_EQ(f.count("absent"), 0U);
  EXPECT_TRUE(f.remove("repeated"));
  EXPECT_EQ(f.count("repeated"), 2U);
  // Copies fill its two buckets (one, when both are the same); then kicks, which only move
  // copies between them, cannot place another.
  std::uint64_t copies = 2;
  while (copies < 100 && f.insert("repeated")) ++copies;
  EXPECT_TRUE(copies == 2 * f.bucket_size() || copies == f.bucket_size()) << copies;
  EXPECT_EQ(f.count("repeated"), copies);
  EXPECT_TRUE(f.insert(std::int64_t{42}));
  EXPECT_TRUE(f.contains(std::int64_t{42}));
  EXPECT_TRUE(f.remove(std::int64_t{42}));
  EXPECT_GT(f.load_factor(), 0.0);
  f.clear();
  EXPECT_EQ(f.items(), 0U);
  EXPECT_FALSE(f.contains("repeated"));
  EXPECT_THROW(f.merge(f), error);
}

}  // namespace
}  // namespace bloomkit
