// go-zero core/bloom interop against vectors written with spaolacci/murmur3 and go-zero's SETBIT /
// GETBIT scripts run on a real redis-server (tests/data/interop/go_zero,
// tools/interop/go_zero/vectors.go): positions, answers, and the bytes of its Redis string.

#include "bloomkit/compat/go_zero.hpp"

#include <gtest/gtest.h>

#include <string>

#include "support/interop_vectors.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit {
namespace {

using test::read_bytes;

class go_zero_vector : public ::testing::TestWithParam<std::filesystem::path> {
 protected:
  void SetUp() override {
    v_ = test::read_vector(GetParam());
    redis_ = read_bytes(v_.file);
  }
  test::interop_vector v_;
  std::vector<unsigned char> redis_;
};

TEST_P(go_zero_vector, PositionsAreGoZeros) {
  ASSERT_EQ(v_.hashes, go_zero::hashes);
  ASSERT_FALSE(v_.positions.empty());
  for (const auto& [key, expected] : v_.positions) {
    auto seq = go_zero::policy::probes(go_zero::policy::hash(key), v_.bits);
    for (std::uint32_t i = 0; i < go_zero::hashes; ++i) EXPECT_EQ(seq.next(), expected[i]) << i;
  }
}

TEST_P(go_zero_vector, RedisStringImportsAndAnswersAsTheLuaScriptDoes) {
  const auto f = go_zero::from_redis(redis_, v_.bits, v_.file.string());
  EXPECT_EQ(f.bits(), v_.bits);
  EXPECT_EQ(f.hashes(), go_zero::hashes);
  std::size_t positives = 0;
  for (const auto& [key, answer] : v_.probes) {
    ASSERT_EQ(f.contains(key), answer);
    positives += answer;
  }
  EXPECT_LT(positives, v_.probes.size());
}

TEST_P(go_zero_vector, InsertingTheKeysGivesRedissBytes) {
  go_zero::filter f(v_.bits, go_zero::hashes);
  for (const auto& key : v_.inserted) f.insert(key);
  auto ours = go_zero::to_redis(f);
  // Redis keeps the string as long as its highest SETBIT needs; ours is ceil(bits / 8) bytes.
  ASSERT_GE(ours.size(), redis_.size());
  for (std::size_t i = redis_.size(); i < ours.size(); ++i) EXPECT_EQ(ours[i], 0) << i;
  ours.resize(redis_.size());
  EXPECT_EQ(ours, redis_);
  EXPECT_TRUE(go_zero::from_redis(redis_, v_.bits, "redis") == f);
}

TEST_P(go_zero_vector, BloomkitFileRoundTrip) {
  test::temp_dir dir;
  const auto path = dir / "f.bloom";
  const auto f = go_zero::from_redis(redis_, v_.bits, "redis");
  save(f, path);
  EXPECT_EQ(read_header(path).scheme, hash_scheme::go_zero);
  EXPECT_TRUE(load<go_zero::filter>(path) == f);
  const auto mapped = map<go_zero::filter>(path);
  for (const auto& [key, answer] : v_.probes) ASSERT_EQ(mapped.contains(key), answer);
}

INSTANTIATE_TEST_SUITE_P(vectors, go_zero_vector,
                         ::testing::ValuesIn(test::vector_files("go_zero")),
                         [](const auto& info) { return test::test_name(info.param); });

TEST(go_zero, KIsAlways14) {
  EXPECT_THROW(go_zero::filter(1000, 7), error);
  EXPECT_EQ(go_zero::filter::for_capacity(1000, 0.01).hashes(), go_zero::hashes);
}

TEST(go_zero, ForCapacityIsTheFewestBitsThatKeepTheTarget) {
  for (double p : {0.1, 0.01, 0.001}) {
    const auto params = go_zero::optimal_params(10000, p);
    EXPECT_LE(expected_fpp(params.bits, go_zero::hashes, 10000), p);
    EXPECT_GT(expected_fpp(params.bits - 1, go_zero::hashes, 10000), p);
  }
}

TEST(go_zero, ABitPastTheSizeIsRefusedAndNamed) {
  const std::vector<unsigned char> bytes = {0, 0x01};  // bit 15
  EXPECT_NO_THROW(go_zero::from_redis(bytes, 16, "key"));
  try {
    go_zero::from_redis(bytes, 15, "redis key users");
    ADD_FAILURE() << "accepted";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::corrupt_file);
    EXPECT_NE(std::string(e.what()).find("redis key users"), std::string::npos) << e.what();
  }
  EXPECT_THROW(go_zero::from_redis(bytes, 0, "key"), error);
}

}  // namespace
}  // namespace bloomkit
