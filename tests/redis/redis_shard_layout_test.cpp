// bloomkit::redis::shard_layout without a server: the native one-shard layout, equal word-aligned
// shards, the spread of keys, the FPP of small shards, and the redis-sharded-xxh3 file mirror.
#include "bloomkit/redis/shard_layout.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"
#include "file/header_codec.hpp"
#include "support/errors.hpp"
#include "support/fpp_checks.hpp"
#include "support/keys.hpp"
#include "support/statistical.hpp"
#include "support/temp_dir.hpp"

namespace {

using bloomkit::errc;
using bloomkit::redis::shard_layout;
using bloomkit::test::error_of;
using bloomkit::test::make_keys;

TEST(RedisShardLayout, OneShardIsTheNativeClassicFilter) {
  const auto layout = shard_layout::for_capacity(10000, 0.01, 27);
  const auto params = bloomkit::optimal_params(10000, 0.01);
  EXPECT_EQ(layout, (shard_layout{params.bits, 1, params.hashes}));
  for (const auto& key : make_keys(200, 1)) {
    const auto d = bloomkit::xxh3_128(key);
    EXPECT_EQ(layout.shard_of(d), 0u);
    std::vector<std::uint64_t> offsets(layout.hashes);
    layout.offsets(d, offsets.data());
    bloomkit::probe_sequence native(d, params.bits);
    for (auto o : offsets) EXPECT_EQ(o, native.next());
  }
}

TEST(RedisShardLayout, SplitsIntoEqualWordAlignedShardsWithinTheLimit) {
  for (std::uint64_t bits : {1025ull, 4096ull, 1000000ull, (1ull << 32) + 1, 10000000000ull}) {
    for (unsigned b : {10u, 20u, 27u, 32u}) {
      const auto l = shard_layout::for_bits(bits, 7, b);
      EXPECT_LE(l.shard_bits, 1ull << b);
      EXPECT_GE(l.total_bits(), bits);
      EXPECT_EQ(l.inconsistency(), "");
      if (bits <= (1ull << b)) {
        EXPECT_EQ(l.shard_count, 1u);
        EXPECT_EQ(l.shard_bits, bits);
      } else {
        EXPECT_EQ(l.shard_bits % 64, 0u);
        EXPECT_EQ(l.shard_count, (bits + (1ull << b) - 1) >> b);
        EXPECT_LT(l.total_bits() - bits, l.shard_count * 64);
      }
    }
  }
  error_of([] { shard_layout::for_bits(1000, 7, 9); }, errc::invalid_argument);
  error_of([] { shard_layout::for_bits(1000, 7, 33); }, errc::invalid_argument);
  EXPECT_NE((shard_layout{100, 2, 7}).inconsistency(), "");  // shards not whole words
  EXPECT_NE((shard_layout{(1ull << 32) + 64, 2, 7}).inconsistency(), "");
  EXPECT_NE((shard_layout{64, 2, 0}).inconsistency(), "");
}

TEST(RedisShardLayout, KeysSpreadEvenlyOverShards) {
  // 64,000 keys over 64 shards: each count is Binomial(64000, 1/64), mean 1000, sd 31.
  const shard_layout l{1 << 12, 64, 7};
  std::vector<int> counts(64);
  for (const auto& key : make_keys(64000, 2)) ++counts[l.shard_of(bloomkit::xxh3_128(key))];
  for (int c : counts) {
    EXPECT_GT(c, 1000 - 5 * 32);
    EXPECT_LT(c, 1000 + 5 * 32);
  }
}

// The sharded layout meets its target at capacity with small shards too, whose loads vary
// (binomially) around n / shards: a local filter with the layout's exact probes (shard_of,
// offsets), checked like every kind (support/fpp_checks.hpp).
class local_sharded_filter {
 public:
  explicit local_sharded_filter(const shard_layout& layout)
      : layout_(layout), bits_(layout.total_bits()) {}
  void insert_many(std::span<const std::string_view> keys) {
    for (const auto key : keys) {
      for (const std::uint64_t bit : bits_of(key)) bits_[bit] = true;
    }
  }
  std::size_t contains_many(std::span<const std::string_view> keys, std::span<bool> results) const {
    std::size_t present = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const auto bits = bits_of(keys[i]);
      results[i] = std::all_of(bits.begin(), bits.end(), [&](std::uint64_t b) { return bits_[b]; });
      present += results[i];
    }
    return present;
  }

 private:
  std::vector<std::uint64_t> bits_of(std::string_view key) const {
    const auto d = bloomkit::xxh3_128(key);
    std::vector<std::uint64_t> out(layout_.hashes);
    layout_.offsets(d, out.data());
    for (auto& o : out) o += layout_.shard_of(d) * layout_.shard_bits;
    return out;
  }
  shard_layout layout_;
  std::vector<bool> bits_;
};

TEST(RedisShardLayout, SmallShardsMeetTheTargetAtCapacity) {
  BLOOMKIT_STATISTICAL_TEST();
  const bloomkit::test::point pt{0.01, 0.15};
  for (const std::uint64_t n : {300u, 1000u, 3000u}) {
    const auto layout = shard_layout::for_capacity(n, pt.p, 10);  // shards of at most 1024 bits
    EXPECT_GT(layout.shard_count, 1u) << n;
    const auto [filters, each] = bloomkit::test::design(pt, n);
    const auto m = bloomkit::test::measure(filters, each, [&](std::uint64_t f) {
      local_sharded_filter filter(layout);
      filter.insert_many(bloomkit::test::key_family("key-", f, n).views());
      return filter;
    });
    bloomkit::test::expect_meets(m, pt, "2^10-bit shards, n=" + std::to_string(n));
  }
}

TEST(RedisShardLayout, ReversesBitsInBytes) {
  std::vector<unsigned char> bytes = {0x01, 0x80, 0x0f, 0xa5};
  bloomkit::redis::reverse_bits_in_bytes(bytes);
  EXPECT_EQ(bytes, (std::vector<unsigned char>{0x80, 0x01, 0xf0, 0xa5}));
}

TEST(RedisShardLayout, ShardedFilesRoundTrip) {
  // The local mirror of a sharded filter: hash scheme 20, shard count in kind_params[0].
  bloomkit::test::temp_dir dir;
  bloomkit::file_header h;
  h.scheme = bloomkit::hash_scheme::redis_sharded_xxh3;
  h.bits = 4 * 1024;
  h.hashes = 7;
  h.capacity = 400;
  h.target_fpp = 0.01;
  h.inserted = 3;
  h.kind_params[0] = 4;
  bloomkit::bit_array bits(h.bits);
  for (std::uint64_t i : {0ull, 1023ull, 1024ull, 4095ull}) bits.set(i);
  bloomkit::save_raw(h, bits, dir / "s.bf");
  const auto back = bloomkit::load_raw(dir / "s.bf");
  EXPECT_EQ(back.bits, bits);
  EXPECT_EQ(back.header.kind_params[0], 4u);
  EXPECT_EQ(back.header.inserted, 3u);
  auto m = error_of([&] { bloomkit::load(dir / "s.bf"); }, errc::unsupported);
  EXPECT_NE(m.find("uses hash scheme redis-sharded-xxh3, not xxh3-128"), std::string::npos) << m;

  // Bad shard counts: shard_file_test.cpp (push and pull check them).
  h.payload_offset = bloomkit::file_header_size;
  h.payload_length = bits.byte_size();
  auto native = h;  // the native scheme keeps every reserved field 0
  native.scheme = bloomkit::hash_scheme::xxh3_128;
  m = error_of([&] { bloomkit::decode_header(bloomkit::encode_header(native), "n.bf"); },
               errc::corrupt_file);
  EXPECT_NE(m.find("reserved fields are set"), std::string::npos) << m;
}

}  // namespace
