// The peers' single-string Redis layouts against vectors their real code wrote
// (tools/interop/generate): the Guava-based Redis helper (tests/data/interop/guava_helper, its
// SETBIT / GETBIT loops run by the real Guava against redis-server) and go-zero sized by
// NewFilter(store, key, n, p) with k != 14 (tests/data/interop/go_zero_new_filter, redigo).
// Sizing and offsets here; the live keys in tests/redis/peer_layout_test.cpp.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bloomkit/compat/go_zero.hpp"
#include "bloomkit/compat/guava_helper.hpp"
#include "bloomkit/error.hpp"
#include "support/interop_vectors.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit {
namespace {

std::vector<std::uint64_t> helper_offsets(const test::interop_vector& v, const std::string& key) {
  std::vector<std::uint64_t> out(v.hashes);
  guava_helper::offsets(key, *guava_helper::parse_funnel(v.funnel), v.bits, out);
  return out;
}

std::vector<std::uint64_t> go_zero_positions(const test::interop_vector& v,
                                             const std::string& key) {
  std::vector<std::uint64_t> out(v.hashes);
  go_zero::positions(key, v.bits, out);
  return out;
}

// The Redis string SETBIT leaves after setting `offsets` (bit 0 = the high bit of byte 0; the
// string as long as its highest bit needs).
void setbit(std::vector<unsigned char>& s, std::uint64_t offset) {
  if (s.size() <= offset / 8) s.resize(offset / 8 + 1);
  s[offset / 8] |= static_cast<unsigned char>(0x80u >> (offset % 8));
}

class peer_layout_vector : public ::testing::TestWithParam<std::filesystem::path> {
 protected:
  void SetUp() override { v_ = test::read_vector(GetParam()); }
  std::vector<std::uint64_t> offsets(const std::string& key) const {
    return v_.scheme == "guava_helper" ? helper_offsets(v_, key) : go_zero_positions(v_, key);
  }
  test::interop_vector v_;
};

TEST_P(peer_layout_vector, SizedAsThePeerSizes) {
  const filter_params p = v_.scheme == "guava_helper"
                              ? guava_helper::optimal_params(v_.expected_insertions, v_.fpp)
                              : go_zero::new_filter_params(v_.expected_insertions, v_.fpp);
  EXPECT_EQ(p.bits, v_.bits);
  EXPECT_EQ(p.hashes, v_.hashes);
  if (v_.scheme == "go_zero") {
    EXPECT_NE(v_.hashes, go_zero::hashes);
  }
}

// The helper: every inserted key's offsets are the SETBITs its add sent, in order; replaying
// bloomkit's offsets as SETBITs gives the peer's Redis string byte for byte.
TEST_P(peer_layout_vector, OffsetsAreThePeersAndRebuildItsRedisString) {
  ASSERT_FALSE(v_.positions.empty());
  for (const auto& [key, expected] : v_.positions) ASSERT_EQ(offsets(key), expected);
  std::vector<unsigned char> redis;
  for (const auto& key : v_.inserted) {
    for (const std::uint64_t o : offsets(key)) setbit(redis, o);
  }
  EXPECT_EQ(redis, test::read_bytes(v_.file));
}

std::vector<std::filesystem::path> all_vectors() {
  auto out = test::vector_files("guava_helper");
  for (const auto& p : test::vector_files("go_zero_new_filter")) out.push_back(p);
  return out;
}

INSTANTIATE_TEST_SUITE_P(vectors, peer_layout_vector, ::testing::ValuesIn(all_vectors()),
                         [](const auto& info) { return test::test_name(info.param); });

TEST(guava_helper, SizingMatchesTheHelpersJavaArithmetic) {
  const auto rows =
      test::read_sizing(test::interop_data() / "guava_helper" / "guava_helper_sizing.txt");
  ASSERT_GT(rows.size(), 150u);
  bool saturated = false;
  for (const auto& r : rows) {
    const filter_params p = guava_helper::optimal_params(r.n, r.p);
    EXPECT_EQ(p.bits, r.bits) << r.n << " " << r.p;
    EXPECT_EQ(p.hashes, r.hashes) << r.n << " " << r.p;
    saturated |= r.bits == guava_helper::max_bits;
  }
  EXPECT_TRUE(saturated);  // the table holds sizes where Java's (int) cast saturates
}

TEST(guava_helper, RefusesWhatTheHelperCannotDo) {
  // bitSize 0: the helper's offsets would divide by zero.
  EXPECT_THROW(guava_helper::optimal_params(1, 0.999), error);
  EXPECT_THROW(guava_helper::optimal_params(0, 0.01), error);
  EXPECT_THROW(guava_helper::optimal_params(guava_helper::max_bits + 1, 0.01), error);
  EXPECT_THROW(guava_helper::check_params(0, 3), error);
  EXPECT_THROW(guava_helper::check_params(guava_helper::max_bits + 1, 3), error);
  EXPECT_THROW(guava_helper::check_params(100, 0), error);
  EXPECT_THROW(guava_helper::check_params(100, 256), error);
  guava_helper::check_params(guava_helper::max_bits, 255);
  std::uint64_t out[3];
  EXPECT_THROW(guava_helper::offsets("1234567", guava_helper::funnel::long_integer, 100, out),
               error);
  EXPECT_EQ(guava_helper::long_key(-2), std::string("\xfe\xff\xff\xff\xff\xff\xff\xff", 8));
  for (const auto f : {guava_helper::funnel::string, guava_helper::funnel::string_twice,
                       guava_helper::funnel::long_integer}) {
    EXPECT_EQ(guava_helper::parse_funnel(guava_helper::to_string(f)), f);
  }
  EXPECT_EQ(guava_helper::parse_funnel("String"), std::nullopt);
}

TEST(go_zero_new_filter, SizingMatchesGosArithmetic) {
  const auto rows = test::read_sizing(test::interop_data() / "go_zero_new_filter" /
                                      "go_zero_new_filter_sizing.txt");
  ASSERT_GT(rows.size(), 100u);
  for (const auto& r : rows) {
    const filter_params p = go_zero::new_filter_params(r.n, r.p);
    EXPECT_EQ(p.bits, r.bits) << r.n << " " << r.p;
    EXPECT_EQ(p.hashes, r.hashes) << r.n << " " << r.p;
  }
  EXPECT_THROW(go_zero::new_filter_params(1, 0.999), error);             // 0 bits
  EXPECT_THROW(go_zero::new_filter_params(1'000'000'000, 1e-9), error);  // past 2^32 bits
  EXPECT_THROW(go_zero::check_any_k_params(100, 256), error);
  EXPECT_THROW(go_zero::check_any_k_params(0, 3), error);
}

TEST(go_zero_new_filter, TheFirst14PositionsAreGoZerosOwn) {
  std::vector<std::uint64_t> any_k(20);
  go_zero::positions("alice", 4096, any_k);
  auto own = go_zero::policy::probes(go_zero::policy::hash("alice"), 4096);
  for (std::uint32_t i = 0; i < go_zero::hashes; ++i) EXPECT_EQ(any_k[i], own.next()) << i;
}

}  // namespace
}  // namespace bloomkit
