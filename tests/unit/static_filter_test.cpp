// The static kind's binary fuse shards and filter: no false negative for any key of the set, FPP
// within the bounds of 2^-b, the sizing rules, the sharding contract and the seed retries.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/static_builder.hpp"
#include "bloomkit/static_filter.hpp"
#include "support/build.hpp"
#include "support/keys.hpp"
#include "support/statistical.hpp"

namespace bloomkit {
namespace {

using test::random_hashes;

TEST(BinaryFuse, UnmixUndoesMix) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 10000; ++i) {
    const std::uint64_t v = rng();
    EXPECT_EQ(detail::fuse_unmix(detail::fuse_mix(v)), v);
  }
}

TEST(BinaryFuse, PackedCellsRoundTrip) {
  for (std::uint32_t bits = 1; bits <= 32; ++bits) {
    const std::uint64_t cells = 1000;
    std::vector<unsigned char> bytes(detail::fuse_table_bytes(cells, bits), 0);
    std::mt19937_64 rng(bits);
    std::vector<std::uint32_t> values(cells);
    for (auto& v : values) v = static_cast<std::uint32_t>(rng() & ((std::uint64_t{1} << bits) - 1));
    for (std::uint64_t i = 0; i < cells; ++i) detail::store_cell(bytes.data(), i, bits, values[i]);
    for (std::uint64_t i = 0; i < cells; ++i) {
      ASSERT_EQ(detail::load_cell(bytes.data(), i, bits), values[i]) << bits << " " << i;
    }
  }
}

TEST(StaticShard, EveryKeyIsPresentAtEveryWidth) {
  for (std::uint32_t bits = 1; bits <= 32; ++bits) {
    for (const std::size_t n : {0, 1, 2, 3, 7, 100, 1000}) {
      auto hashes = random_hashes(n, bits * 1000 + n);
      const auto keep = hashes;
      const auto shard = static_shard::build(hashes, bits, bits + n);
      EXPECT_EQ(shard.keys(), n);
      for (const std::uint64_t h : keep) ASSERT_TRUE(shard.contains(h)) << bits << " " << n;
    }
  }
}

TEST(StaticShard, NoFalseNegativeOverManySeedsAndSizes) {
  for (const std::size_t n : {5, 64, 700, 5000, 100000}) {
    for (std::uint64_t seed = 0; seed < (n < 100000 ? 6 : 2); ++seed) {
      auto hashes = random_hashes(n, 1000 * n + seed);
      hashes.insert(hashes.end(), hashes.begin(), hashes.begin() + n / 3);  // duplicates
      const auto keep = hashes;
      const auto shard = static_shard::build(hashes, 5 + static_cast<std::uint32_t>(seed), seed);
      ASSERT_EQ(shard.keys(), n);
      for (const std::uint64_t h : keep) ASSERT_TRUE(shard.contains(h)) << n << " " << seed;
      // The fingerprints the three cells XOR to, cell by cell, as a Redis layout reads them.
      const auto at = shard.cells_of(keep[0]);
      std::uint32_t x = 0;
      for (int j = 0; j < 3; ++j) x ^= shard.cell(at[j]);
      EXPECT_EQ(x, shard.fingerprint(keep[0]));
    }
  }
}

TEST(StaticShard, BuildMemoryIsAboutThirtyTwoBytesPerKey) {
  for (const std::uint64_t n : {std::uint64_t{1} << 16, std::uint64_t{1} << 22}) {
    EXPECT_GT(static_shard::build_memory(n), 25 * n);
    EXPECT_LT(static_shard::build_memory(n), 40 * n);
  }
  EXPECT_LT(static_shard::build_memory(static_filter::max_shard_keys), 160'000'000U);
}

TEST(StaticShard, BuildLeavesTheSameSetInItsBuffer) {
  auto hashes = random_hashes(500, 3);
  hashes.insert(hashes.end(), hashes.begin(), hashes.begin() + 100);  // duplicates
  auto sorted = hashes;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  const auto shard = static_shard::build(hashes, 8, 1);
  EXPECT_EQ(shard.keys(), 500U);
  std::vector<std::uint64_t> first(hashes.begin(), hashes.begin() + 500);
  std::sort(first.begin(), first.end());
  EXPECT_EQ(first, sorted);
}

TEST(StaticShard, AFailedSeedLeavesTheSetForTheNext) {
  // Two keys with the same cells and different fingerprints cannot be solved by a seed; over
  // tiny sets some seeds fail: count them, and check that the set survives each failure.
  int failures = 0;
  for (std::uint64_t seed = 0; seed < 2000; ++seed) {
    auto hashes = random_hashes(3, seed);
    const auto keep = hashes;
    if (static_shard::try_build(hashes, 16, seed)) continue;
    ++failures;
    std::sort(hashes.begin(), hashes.end());
    auto sorted = keep;
    std::sort(sorted.begin(), sorted.end());
    ASSERT_EQ(hashes, sorted);
    const auto shard = static_shard::build(hashes, 16, seed);
    for (const std::uint64_t h : keep) ASSERT_TRUE(shard.contains(h));
    EXPECT_NE(shard.seed(), seed);
  }
  EXPECT_GT(failures, 0);
}

TEST(StaticFilter, FingerprintBitsForTarget) {
  EXPECT_EQ(static_filter::fingerprint_bits_for(0.5), 1U);
  EXPECT_EQ(static_filter::fingerprint_bits_for(0.01), 7U);
  EXPECT_EQ(static_filter::fingerprint_bits_for(1.0 / 256), 8U);
  EXPECT_EQ(static_filter::fingerprint_bits_for(0.001), 10U);
  EXPECT_EQ(static_filter::fingerprint_bits_for(std::ldexp(1.0, -32)), 32U);
  for (const double bad : {0.0, 1.0, -0.1, 2.0, std::nan(""), 1e-12}) {
    EXPECT_THROW(static_filter::fingerprint_bits_for(bad), error) << bad;
  }
}

TEST(StaticFilter, ShardBits) {
  const std::uint64_t max = static_filter::max_shard_keys;
  EXPECT_EQ(static_filter::shard_bits_for(0), 0U);
  EXPECT_EQ(static_filter::shard_bits_for(max), 0U);
  EXPECT_EQ(static_filter::shard_bits_for(max + 1), 1U);
  EXPECT_EQ(static_filter::shard_bits_for(2 * max), 1U);
  EXPECT_EQ(static_filter::shard_bits_for(2 * max + 1), 2U);
  EXPECT_EQ(static_filter::shard_bits_for(10'000'000'000ULL), 12U);
  EXPECT_EQ(static_filter::shard_of(~0ULL, 0), 0U);
  EXPECT_EQ(static_filter::shard_of(~0ULL, 3), 7U);
  EXPECT_EQ(static_filter::shard_of(~0ULL, 32), 0xffffffffU);
}

TEST(StaticFilter, KeysWithDuplicatesAndTheEmptySet) {
  std::vector<std::string> owned;
  for (int i = 0; i < 3000; ++i) owned.push_back("key-" + std::to_string(i % 2000));
  const std::vector<std::string_view> keys(owned.begin(), owned.end());
  const auto f = static_filter::build(keys, 0.001, 2);
  EXPECT_EQ(f.size(), 2000U);
  EXPECT_EQ(f.fingerprint_bits(), 10U);
  for (const auto key : keys) ASSERT_TRUE(f.contains(key));
  std::vector<char> results(keys.size());
  auto* flags = reinterpret_cast<bool*>(results.data());
  EXPECT_EQ(f.contains_many(keys, std::span<bool>(flags, keys.size())), keys.size());

  const auto empty = static_filter::build({}, 0.01);
  EXPECT_EQ(empty.size(), 0U);
  EXPECT_FALSE(empty.contains("x"));  // every cell is 0 and "x"'s fingerprint is not
}

TEST(StaticFilter, ShardedBuildOfTwoShards) {
  auto hashes = random_hashes(static_filter::max_shard_keys / 8, 11);
  // Forces the sharding on a small set: only the top bit chooses a shard.
  std::vector<static_shard> shards;
  std::vector<std::uint64_t> parts[2];
  for (const auto h : hashes) parts[static_filter::shard_of(h, 1)].push_back(h);
  for (std::uint32_t i = 0; i < 2; ++i) {
    auto part = parts[i];
    shards.push_back(static_shard::build(part, 8, static_filter::first_seed(i)));
  }
  const auto f = static_filter::from_shards(1.0 / 256, 8, 1, std::move(shards));
  EXPECT_EQ(f.size(), hashes.size());
  for (const auto h : hashes) ASSERT_TRUE(f.contains_hash(h));
  std::vector<char> results(hashes.size());
  auto* flags = reinterpret_cast<bool*>(results.data());
  EXPECT_EQ(f.contains_many(std::span<const std::uint64_t>(hashes),
                            std::span<bool>(flags, hashes.size())),
            hashes.size());
  EXPECT_THROW(static_filter::from_shards(0.01, 7, 2, {}), error);
}

// contains_many answers each key as contains / contains_hash does, on every path of
// static_lookups.cpp: a filter in cache (the plain loop) and past it (the pipeline), one shard and
// two, batches shorter and longer than the pipeline's lag.
// "k<i>" (built by append: GCC 12's -Wrestrict misfires on "k" + std::to_string(i)).
std::string key_name(std::uint64_t i) {
  std::string out = "k";
  return out.append(std::to_string(i));
}

void expect_batches_match_single(const static_filter& f, const std::vector<std::uint64_t>& set) {
  std::vector<std::uint64_t> probes;
  std::mt19937_64 rng(3);
  for (std::size_t i = 0; i < 5000; ++i) probes.push_back(i % 2 ? set[rng() % set.size()] : rng());
  std::vector<std::string> owned;
  for (std::size_t i = 0; i < 3000; ++i) owned.push_back(key_name(rng() % 100000));
  const std::vector<std::string_view> keys(owned.begin(), owned.end());
  std::vector<char> results(probes.size());
  auto* flags = reinterpret_cast<bool*>(results.data());
  for (const std::size_t n : {0, 1, 31, 32, 33, 64, 65, 3000, 5000}) {
    const std::span<const std::uint64_t> batch(probes.data(), n);
    std::size_t expected = 0;
    for (const auto h : batch) expected += f.contains_hash(h);
    ASSERT_EQ(f.contains_many(batch, std::span<bool>(flags, n)), expected) << n;
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(flags[i], f.contains_hash(probes[i])) << i;
    if (n > keys.size()) continue;
    const std::span<const std::string_view> key_batch(keys.data(), n);
    expected = 0;
    for (const auto key : key_batch) expected += f.contains(key);
    ASSERT_EQ(f.contains_many(key_batch, std::span<bool>(flags, n)), expected) << n;
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(flags[i], f.contains(keys[i])) << i;
  }
}

TEST(StaticFilter, BatchedLookupsAnswerAsSingleOnes) {
  // 1000 keys of 8 bits: in cache. 300000 keys of 32 bits (1.35 MB): pipelined.
  for (const auto& [n, fpp] : {std::pair{1000, 1.0 / 256}, std::pair{300000, 1.0 / 4294967296.0}}) {
    auto hashes = random_hashes(static_cast<std::size_t>(n), 41);
    for (int k = 0; k < n; k += 3)
      hashes[static_cast<std::size_t>(k)] = xxh3_64(key_name(static_cast<std::uint64_t>(k)));
    const auto f = static_filter::build_from_hashes(hashes, fpp);
    expect_batches_match_single(f, hashes);
    // The same set in two shards by the top bit.
    const std::uint32_t b = static_filter::fingerprint_bits_for(fpp);
    std::vector<std::uint64_t> parts[2];
    for (const auto h : hashes) parts[static_filter::shard_of(h, 1)].push_back(h);
    std::vector<static_shard> shards;
    for (std::uint32_t i = 0; i < 2; ++i) {
      shards.push_back(static_shard::build(parts[i], b, static_filter::first_seed(i)));
    }
    expect_batches_match_single(static_filter::from_shards(fpp, b, 1, std::move(shards)), hashes);
  }
}

TEST(StaticFilter, RefusesEveryChangeNamingTheKind) {
  auto f = static_filter::build_from_hashes(random_hashes(10, 1), 0.01);
  const auto expect_refusal = [](auto change) {
    try {
      change();
      ADD_FAILURE() << "no error";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("static filter"), std::string::npos) << e.what();
    }
  };
  expect_refusal([&] { f.insert("a"); });
  const std::string_view keys[] = {"a"};
  expect_refusal([&] { f.insert_many(keys); });
  expect_refusal([&] { f.remove("a"); });
  expect_refusal([&] { f.merge(f); });
  expect_refusal([&] { f.intersect(f); });
  expect_refusal([&] { f.clear(); });
  EXPECT_EQ(f.size(), 10U);
}

// The measured FPP over `trials` fresh hashes is within 6 standard deviations of 2^-b.
void expect_fpp(const static_filter& f, std::size_t trials, std::uint64_t seed) {
  const auto probes = random_hashes(trials, seed);
  std::vector<char> results(trials);
  auto* flags = reinterpret_cast<bool*>(results.data());
  const auto hits =
      f.contains_many(std::span<const std::uint64_t>(probes), std::span<bool>(flags, trials));
  const double p = f.fpp();
  const double sigma = std::sqrt(static_cast<double>(trials) * p * (1 - p));
  EXPECT_NEAR(static_cast<double>(hits), static_cast<double>(trials) * p, 6 * sigma + 1)
      << "b = " << f.fingerprint_bits();
  EXPECT_LE(p, f.target_fpp());
}

TEST(StaticFilter, BuildPastOneShardSplitsByTheTopBits) {
  auto hashes = random_hashes(static_filter::max_shard_keys + 5000, 21);
  const auto keep = hashes;
  hashes.insert(hashes.end(), keep.begin(), keep.begin() + 1000);
  const auto f = static_filter::build_from_hashes(std::move(hashes), 1e-4, 2);
  EXPECT_EQ(f.shard_bits(), 1U);
  ASSERT_EQ(f.shards().size(), 2U);
  EXPECT_EQ(f.size(), keep.size());
  std::uint64_t low = 0;
  for (const auto h : keep) low += static_filter::shard_of(h, 1) == 0 ? 1 : 0;
  EXPECT_EQ(f.shards()[0].keys(), low);
  // Both tables in one mapping (pack_tables.hpp: huge pages for all but its last 2 MiB).
  EXPECT_EQ(f.shards()[1].bytes().data(),
            f.shards()[0].bytes().data() + f.shards()[0].bytes().size());
  std::vector<char> results(keep.size());
  auto* flags = reinterpret_cast<bool*>(results.data());
  EXPECT_EQ(
      f.contains_many(std::span<const std::uint64_t>(keep), std::span<bool>(flags, keep.size())),
      keep.size());
}

// The shard count is that of the distinct keys on every path: 3000 distinct hashes 1500 times
// over (4.5M hashes, two shards if repeats counted) are one shard, the bytes of the set without
// repeats, the same from build_from_hashes as from static_builder (the CLI's path).
TEST(StaticFilter, RepeatsDoNotCountTowardsTheShards) {
  const auto distinct = random_hashes(3000, 31);
  std::vector<std::uint64_t> hashes;
  for (int round = 0; round < 1500; ++round) {
    hashes.insert(hashes.end(), distinct.begin(), distinct.end());
  }
  ASSERT_EQ(static_filter::shard_bits_for(hashes.size()), 1U);
  const auto f = static_filter::build_from_hashes(hashes, 1.0 / 256, 2);
  EXPECT_EQ(f.shard_bits(), 0U);
  EXPECT_EQ(f.size(), distinct.size());
  EXPECT_TRUE(f == static_filter::build_from_hashes(distinct, 1.0 / 256));
  static_build_options options;
  options.threads = 2;
  static_builder builder(1.0 / 256, options);
  builder.add_hashes(hashes);
  EXPECT_TRUE(builder.finish() == f);
  for (const auto h : distinct) ASSERT_TRUE(f.contains_hash(h));
}

TEST(StaticFilter, MeasuredFppIsTwoToTheMinusB) {
  BLOOMKIT_STATISTICAL_TEST();
  for (const double target : {0.5, 0.1, 0.01, 1.0 / 256, 0.001}) {
    const auto f = static_filter::build_from_hashes(random_hashes(100000, 5), target);
    expect_fpp(f, 1'000'000, 77);
  }
}

TEST(StaticFilter, MillionKeysNoFalseNegativeAndBitsPerKey) {
  const auto hashes = random_hashes(1'000'000, 9);
  const auto f = static_filter::build_from_hashes(hashes, 1.0 / 256, 2);
  std::vector<char> results(hashes.size());
  auto* flags = reinterpret_cast<bool*>(results.data());
  EXPECT_EQ(f.contains_many(std::span<const std::uint64_t>(hashes),
                            std::span<bool>(flags, hashes.size())),
            hashes.size());
  // The paper's 1.125 cells per key, and the rounding to whole segments.
  EXPECT_LT(f.bits_per_key(), 8 * 1.14);
  EXPECT_EQ(f.bits(), static_filter::bits_for(1'000'000, 1.0 / 256));
  if (!test::sanitized_build) expect_fpp(f, 1'000'000, 78);  // statistical.hpp
}

}  // namespace
}  // namespace bloomkit
