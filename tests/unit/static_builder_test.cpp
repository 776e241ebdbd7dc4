// The static filter's builder at any scale (include/bloomkit/static_builder.hpp): spilled or
// not, split or not, on any number of threads, it builds the bytes static_filter::build makes
// of the same set; seeds that fail are retried; a full disk is an error naming it and leaves no
// file behind.

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/static_builder.hpp"
#include "support/keys.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit {
namespace {

namespace fs = std::filesystem;

using test::random_hashes;

void expect_same_filter(const static_filter& a, const static_filter& b) {
  ASSERT_EQ(a.shard_bits(), b.shard_bits());
  ASSERT_EQ(a.fingerprint_bits(), b.fingerprint_bits());
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.shards().size(); ++i) {
    const static_shard& x = a.shards()[i];
    const static_shard& y = b.shards()[i];
    ASSERT_EQ(x.seed(), y.seed()) << "shard " << i;
    ASSERT_TRUE(std::equal(x.bytes().begin(), x.bytes().end(), y.bytes().begin(), y.bytes().end()))
        << "shard " << i;
  }
}

// Adds `hashes` from `threads` threads at once, in batches.
void add_from_threads(static_builder& b, const std::vector<std::uint64_t>& hashes,
                      unsigned threads) {
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (std::size_t at = t * 1000; at < hashes.size(); at += threads * 1000) {
        const std::size_t n = std::min<std::size_t>(1000, hashes.size() - at);
        b.add_hashes(std::span(hashes.data() + at, n));
      }
    });
  }
  for (auto& t : pool) t.join();
}

std::size_t entry_count(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), {}));
}

class StaticBuilder : public ::testing::Test {
 protected:
  test::temp_dir dir_;
};

// Adds `distinct`, a third of it twice, shuffled, from 3 threads, spilling past `memory` bytes,
// and checks the filter against static_filter::build_from_hashes of the set.
void check_against_library_build(const std::vector<std::uint64_t>& distinct, std::uint64_t memory,
                                 const fs::path& dir) {
  std::vector<std::uint64_t> with_repeats = distinct;
  with_repeats.insert(with_repeats.end(), distinct.begin(),
                      distinct.begin() + static_cast<std::ptrdiff_t>(distinct.size() / 3));
  std::shuffle(with_repeats.begin(), with_repeats.end(), std::mt19937_64(3));
  const static_filter expected = static_filter::build_from_hashes(distinct, 0.01, 2);
  {
    static_builder b(0.01, {.threads = 2, .memory_bytes = memory, .temp_dir = dir});
    add_from_threads(b, with_repeats, 3);
    const static_filter f = b.finish();
    expect_same_filter(f, expected);
    EXPECT_EQ(b.stats().keys, with_repeats.size());
    EXPECT_EQ(b.stats().distinct, distinct.size());
    EXPECT_EQ(b.stats().spilled_bytes > 0, memory < 8 * with_repeats.size());
    EXPECT_LE(b.stats().peak_disk_bytes, 8 * with_repeats.size());
    EXPECT_EQ(entry_count(dir), 0u);
  }
}

TEST_F(StaticBuilder, InMemoryOrSpilledBuildsTheBytesOfTheLibraryBuild) {
  const std::vector<std::uint64_t> distinct = random_hashes(300000, 7);
  check_against_library_build(distinct, std::uint64_t{1} << 30, dir_.path());
  check_against_library_build(distinct, std::uint64_t{1} << 16, dir_.path());
}

TEST_F(StaticBuilder, SpilledShardsBuildTheBytesOfTheLibraryBuild) {
  // Past 2^22 keys: two shards, each gathered from the buckets of its half.
  const std::vector<std::uint64_t> distinct = random_hashes((std::size_t{1} << 22) + 5000, 8);
  ASSERT_EQ(static_filter::shard_bits_for(distinct.size()), 1u);
  check_against_library_build(distinct, std::uint64_t{1} << 24, dir_.path());
}

TEST_F(StaticBuilder, BucketsHoldingSeveralShardsAreSplit) {
  // 4.5M hashes, repeats included, are 2 shards' worth: the one spilled bucket is split by its
  // top bit, and the shards built; the 3000 distinct hashes are one shard: built again.
  const std::vector<std::uint64_t> distinct = random_hashes(3000, 11);
  static_builder b(0.001, {.threads = 2,
                           .memory_bytes = std::uint64_t{1} << 22,
                           .temp_dir = dir_.path(),
                           .bucket_bits = 0});
  for (int round = 0; round < 1500; ++round) b.add_hashes(distinct);
  ASSERT_EQ(static_filter::shard_bits_for(b.added()), 1u);
  const static_filter f = b.finish();
  EXPECT_EQ(b.stats().builds, 2u);
  expect_same_filter(f, static_filter::build_from_hashes(distinct, 0.001));
  for (const std::uint64_t h : distinct) ASSERT_TRUE(f.contains_hash(h));
  EXPECT_GT(b.stats().spilled_bytes, 8 * b.stats().keys);  // written, then split and written again
  EXPECT_EQ(entry_count(dir_.path()), 0u);
}

TEST_F(StaticBuilder, ShardsThatFailASeedAreRetried) {
  const std::vector<std::uint64_t> hashes = random_hashes(50000, 5);
  static_builder b(0.01, {.threads = 2, .temp_dir = dir_.path(), .failing_seeds = 2});
  b.add_hashes(hashes);
  const static_filter f = b.finish();
  EXPECT_EQ(b.stats().retries, 2u);
  EXPECT_NE(f.shards()[0].seed(), static_filter::first_seed(0));
  for (const std::uint64_t h : hashes) ASSERT_TRUE(f.contains_hash(h));
}

TEST_F(StaticBuilder, EmptySetAndOneKey) {
  {
    static_builder b(0.01, {.temp_dir = dir_.path()});
    const static_filter f = b.finish();
    EXPECT_EQ(f.size(), 0u);
    EXPECT_FALSE(f.contains("a"));
  }
  static_builder b(0.01, {.temp_dir = dir_.path()});
  for (int i = 0; i < 5; ++i) b.add("only");
  const static_filter f = b.finish();
  EXPECT_EQ(f.size(), 1u);
  EXPECT_TRUE(f.contains("only"));
}

TEST_F(StaticBuilder, AFullDiskIsAnErrorNamingItAndLeavesNothing) {
  static_builder b(
      0.01,
      {.threads = 2, .memory_bytes = 1 << 16, .temp_dir = dir_.path(), .spill_byte_limit = 100000});
  try {
    b.add_hashes(random_hashes(200000, 9));
    b.finish();
    FAIL() << "no error";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::io_error);
    EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(dir_.path().string()), std::string::npos) << e.what();
  }
  EXPECT_EQ(entry_count(dir_.path()), 0u);
}

TEST_F(StaticBuilder, ABadTempDirOrFppIsAnError) {
  static_builder b(0.01, {.memory_bytes = 1 << 16, .temp_dir = dir_.path() / "missing"});
  EXPECT_THROW(b.add_hashes(random_hashes(100000, 1)), error);
  EXPECT_THROW(static_builder(1.5), error);
}

}  // namespace
}  // namespace bloomkit
