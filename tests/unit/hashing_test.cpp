#include "bloomkit/hashing.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>

#include "bloomkit/error.hpp"

namespace bloomkit {
namespace {

TEST(Hashing, Xxh3Vectors) {
  // XXH3-128 with seed 0 is specified by xxHash 0.8 and never changes; these pin it.
  const digest128 empty = xxh3_128("");
  EXPECT_EQ(empty.low, 0x6001c324468d497full);
  EXPECT_EQ(empty.high, 0x99aa06d3014798d8ull);
  EXPECT_NE(xxh3_128("a"), xxh3_128("b"));
  EXPECT_EQ(xxh3_128("bloomkit"), xxh3_128(std::string("bloomkit")));
}

TEST(Hashing, ReduceRangeStaysInRangeAndUsesItAll) {
  EXPECT_EQ(reduce_range(0, 1000), 0u);
  EXPECT_EQ(reduce_range(~0ull, 1000), 999u);
  EXPECT_EQ(reduce_range(~0ull, 1), 0u);
  const std::uint64_t big = (std::uint64_t{1} << 40) + 12345;
  EXPECT_EQ(reduce_range(~0ull, big), big - 1);
  EXPECT_EQ(reduce_range(1ull << 63, 1000), 500u);
}

TEST(Hashing, ProbeSequenceIsEnhancedDoubleHashing) {
  // g(i) = h1 + i*h2 + (i^3 - i)/6, reduced by multiply-high.
  const digest128 d{0x0123456789abcdefull, 0xfedcba9876543210ull};
  const std::uint64_t m = 1'000'003;
  probe_sequence seq(d, m);
  for (std::uint64_t i = 0; i < 40; ++i) {
    const std::uint64_t g = d.low + i * d.high + (i * i * i - i) / 6;
    EXPECT_EQ(seq.next(), reduce_range(g, m)) << "probe " << i;
  }
}

TEST(Hashing, ProbesCoverANonPowerOfTwoRangeUniformly) {
  // 20,000 keys x 7 probes into m = 1,000,003 bits, counted in 10 equal buckets: each bucket
  // expects 14,000 +- 112 (1 sigma); allow 5 sigma.
  const std::uint64_t m = 1'000'003;
  std::uint64_t buckets[10] = {};
  for (int key = 0; key < 20'000; ++key) {
    const std::string s = "key-" + std::to_string(key);
    probe_sequence seq(xxh3_128(s), m);
    for (int i = 0; i < 7; ++i) {
      const std::uint64_t index = seq.next();
      ASSERT_LT(index, m);
      ++buckets[index * 10 / m];
    }
  }
  for (std::uint64_t count : buckets) EXPECT_NEAR(static_cast<double>(count), 14'000.0, 560.0);
}

// hashing.hpp: under multiply-high the cubic term (i^3 - i)/6 moves a probe by far less than one
// bit, so it does not separate probes when (j - i) h2 is near 0 mod 2^64. With h2 = 0 every probe
// of a key lands in one bit (unless h1 sits within k^3/6 of a bit boundary).
TEST(Hashing, CubicTermDoesNotSeparateProbesUnderMultiplyHigh) {
  const std::uint64_t m = 1000;
  const std::uint64_t cell = ~std::uint64_t{0} / m;
  probe_sequence probes({cell * 500 + cell / 2, 0}, m);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(probes.next(), 500u) << "probe " << i;
  // A step h2 of one bit's width gives k distinct bits, with or without the cubic term.
  probe_sequence spread({cell / 2, cell + 1}, m);
  for (std::uint64_t i = 0; i < 16; ++i) EXPECT_EQ(spread.next(), i) << "probe " << i;
}

TEST(Hashing, SchemeNames) {
  EXPECT_EQ(to_string(hash_scheme::xxh3_128), "xxh3-128");
  EXPECT_TRUE(is_known(hash_scheme::xxh3_128));
  EXPECT_FALSE(is_known(static_cast<hash_scheme>(999)));
}

// Every scheme and every error code has its own name (the names are tables, not switches).
TEST(Hashing, EverySchemeAndErrorCodeHasADistinctName) {
  std::set<std::string_view> names;
  for (const hash_scheme s :
       {hash_scheme::xxh3_128, hash_scheme::xxh3_64_split_block,
        hash_scheme::guava_murmur128_mitz_32, hash_scheme::guava_murmur128_mitz_64,
        hash_scheme::bits_and_blooms_v3, hash_scheme::go_zero, hash_scheme::redis_sharded_xxh3}) {
    EXPECT_TRUE(is_known(s)) << static_cast<int>(s);
    EXPECT_TRUE(names.insert(to_string(s)).second) << to_string(s);
  }
  names.clear();
  for (int code = static_cast<int>(errc::invalid_argument);
       code <= static_cast<int>(errc::conflict); ++code) {
    const std::string_view name = to_string(static_cast<errc>(code));
    EXPECT_NE(name, "unknown error") << code;
    EXPECT_TRUE(names.insert(name).second) << name;
  }
  EXPECT_EQ(to_string(static_cast<errc>(0)), "unknown error");
}

}  // namespace
}  // namespace bloomkit
