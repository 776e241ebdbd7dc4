// What a single-key redis_filter insert costs: one round trip, no Lua, and exactly its BITFIELD,
// the meta's re-read and the previous call's count.
#include "bloomkit/redis/redis_filter.hpp"

#include <gtest/gtest.h>

#include <string>

#include "redis_filter_fixtures.hpp"

namespace {

using namespace bloomkit::redis_filter_test;

using bloomkit::test::calls_of;
using bloomkit::test::reads_processed;

TEST_F(RedisFilterSingle, SingleKeyInsertIsOneRoundTripWithoutLua) {
  auto f = redis_filter::create(*client_, "one", 10000, 0.01);
  f.contains("warm up");
  server_->raw({"CONFIG", "RESETSTAT"});
  // The cost of measuring (raw() connects, sends INFO, disconnects), then one contains (one round
  // trip), then single inserts, new and old.
  const long long r0 = reads_processed(*server_);
  const long long r1 = reads_processed(*server_);
  f.contains("a");
  const long long r2 = reads_processed(*server_);
  EXPECT_TRUE(f.insert("a"));
  const long long r3 = reads_processed(*server_);
  EXPECT_TRUE(f.insert("b"));
  const long long r4 = reads_processed(*server_);
  EXPECT_FALSE(f.insert("b"));
  const long long r5 = reads_processed(*server_);
  const long long measuring = r1 - r0;
  EXPECT_EQ(r2 - r1 - measuring, 1);
  EXPECT_EQ(r3 - r2 - measuring, 1);
  EXPECT_EQ(r4 - r3 - measuring, 1);
  EXPECT_EQ(r5 - r4 - measuring, 1);
  const std::string stats = server_->raw({"INFO", "COMMANDSTATS"}).str();
  EXPECT_EQ(stats.find("cmdstat_eval"), npos) << stats;
  // And the count stays right: the count of an insert travels with the next call.
  for (const auto& k : make_keys(50, 73)) f.insert(k);
  EXPECT_EQ(f.info().inserted, 52u);
  auto c2 = client::connect(server_->url());
  EXPECT_EQ(redis_filter::open(c2, "one").info().inserted, 52u);
}

// What a single-key insert sends: its BITFIELD and the meta's re-read, plus the count of the
// previous call's new keys when there is one; never a script.
TEST_F(RedisFilterSingle, SingleKeyInsertSendsItsBitfieldAndTheMetaReadOnly) {
  auto f = redis_filter::create(*client_, "cmds", 10000, 0.01);
  EXPECT_TRUE(f.insert("warm up"));  // its count travels with the next call
  server_->raw({"CONFIG", "RESETSTAT"});
  EXPECT_TRUE(f.insert("a"));   // + HINCRBY of "warm up"
  EXPECT_FALSE(f.insert("a"));  // + HINCRBY of "a"
  EXPECT_FALSE(f.insert("a"));  // nothing to count
  EXPECT_EQ(calls_of(*server_, "bitfield"), 3);
  EXPECT_EQ(calls_of(*server_, "hmget"), 3);
  EXPECT_EQ(calls_of(*server_, "hincrby"), 2);
  EXPECT_EQ(calls_of(*server_, "eval"), 0);
  EXPECT_EQ(calls_of(*server_, "evalsha"), 0);
  EXPECT_EQ(f.inserted(), 2u);
}

}  // namespace
