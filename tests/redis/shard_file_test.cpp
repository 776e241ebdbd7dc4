// A Redis filter's layout as a local file (src/redis/filters/shard_file.hpp): push and pull check
// the shard fields of a sharded file themselves; the file code knows nothing of shards.
#include "redis/filters/shard_file.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "bloomkit/error.hpp"
#include "support/errors.hpp"

namespace {

using bloomkit::errc;
using bloomkit::file_header;
using bloomkit::redis::shard_layout;
using bloomkit::redis::detail::header_for;
using bloomkit::redis::detail::layout_of_file;
using bloomkit::test::error_of;

file_header sharded(std::uint64_t shards, std::uint64_t bits) {
  file_header h;
  h.scheme = bloomkit::redis::sharded_scheme;
  h.bits = bits;
  h.hashes = 7;
  h.capacity = 400;
  h.target_fpp = 0.01;
  h.kind_params[0] = shards;
  return h;
}

TEST(RedisShardFile, BadShardCountsAreCorrupt) {
  for (const auto& [count, bit_count] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
           {1, 4096}, {0, 4096}, {3, 4096}, {2, 4096 + 64}, {2, (1ull << 33) + 128}}) {
    const auto m =
        error_of([&] { layout_of_file(sharded(count, bit_count), "bad.bf"); }, errc::corrupt_file);
    EXPECT_EQ(m.rfind("bad.bf: inconsistent header: " + std::to_string(count) + " shards for " +
                          std::to_string(bit_count) + " bits (need 2 or more equal shards",
                      0),
              0u)
        << m;
  }
}

TEST(RedisShardFile, LayoutsOfFilesAndHeadersOfLayoutsRoundTrip) {
  EXPECT_EQ(layout_of_file(sharded(4, 4096), "s.bf"), (shard_layout{1024, 4, 7}));
  file_header native;
  native.bits = 1000;
  native.hashes = 7;
  EXPECT_EQ(layout_of_file(native, "n.bf"), (shard_layout{1000, 1, 7}));
  for (const shard_layout& l : {shard_layout{1024, 4, 7}, shard_layout{1000, 1, 7}}) {
    EXPECT_EQ(layout_of_file(header_for(l, 1), "x.bf"), l);
    const file_header counting = header_for(l, 4);
    EXPECT_EQ(counting.kind, bloomkit::filter_kind::counting);
    EXPECT_EQ(layout_of_file(counting, "x.bf"), l);
  }
  EXPECT_EQ(header_for({1000, 1, 7}, 1).scheme, bloomkit::hash_scheme::xxh3_128);
  EXPECT_EQ(header_for({1000, 1, 7}, 1).kind, bloomkit::filter_kind::classic);
}

TEST(RedisShardFile, CountingFilesHoldAQuarterOfTheCellsPerString) {
  // 4 bits per counter: a shard, or a native file, of at most 2^30 counters.
  file_header h = sharded(2, std::uint64_t{1} << 31);
  h.kind = bloomkit::filter_kind::counting;
  EXPECT_EQ(layout_of_file(h, "c.bf"), (shard_layout{std::uint64_t{1} << 30, 2, 7}));
  h.bits = std::uint64_t{1} << 32;
  auto m = error_of([&] { layout_of_file(h, "c.bf"); }, errc::corrupt_file);
  EXPECT_NE(m.find("2 shards for 4294967296 counters"), std::string::npos) << m;
  file_header native;
  native.kind = bloomkit::filter_kind::counting;
  native.bits = (std::uint64_t{1} << 30) + 64;
  native.hashes = 7;
  m = error_of([&] { layout_of_file(native, "n.bf"); }, errc::unsupported);
  EXPECT_NE(m.find("1073741888 counters"), std::string::npos) << m;
  native.kind = bloomkit::filter_kind::blocked;
  m = error_of([&] { layout_of_file(native, "b.bf"); }, errc::unsupported);
  EXPECT_NE(m.find("a blocked filter cannot be pushed to Redis"), std::string::npos) << m;
}

TEST(RedisShardFile, FilesThatAreNoRedisFilterAreUnsupported) {
  file_header big;
  big.bits = (1ull << 32) + 64;
  big.hashes = 7;
  auto m = error_of([&] { layout_of_file(big, "big.bf"); }, errc::unsupported);
  EXPECT_NE(m.find("a Redis string holds at most 2^32 bits"), std::string::npos) << m;
  file_header guava;
  guava.scheme = bloomkit::hash_scheme::guava_murmur128_mitz_64;
  guava.bits = 1024;
  guava.hashes = 7;
  m = error_of([&] { layout_of_file(guava, "g.bf"); }, errc::unsupported);
  EXPECT_NE(m.find("cannot be expressed as a Redis filter"), std::string::npos) << m;
}

}  // namespace
