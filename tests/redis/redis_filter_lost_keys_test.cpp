// A redis_filter that lost keys (issue 11): missing and short shards are errors naming them,
// writes never create a shard (not through a stale handle either), drop finds orphans, filters
// without guard bits are checked by length, and info checks every shard, its TTL and the
// eviction policy.
#include "bloomkit/redis/redis_filter.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

#include "redis_filter_fixtures.hpp"

namespace {

using namespace bloomkit::redis_filter_test;

TEST_F(RedisFilterSingle, AMissingOrShortShardIsAnErrorNamingItNeverAnAnswer) {
  auto f = redis_filter::create(*client_, "gap", 20000, 0.01, 14);
  ASSERT_GT(f.layout().shard_count, 10u);
  const auto keys = make_keys(2000, 70);
  insert_all(f, keys);
  const std::string victim = shard_of(f, keys[0]);
  const std::string other = key_outside(f, keys, victim);
  auto c2 = client::connect(server_->url());
  auto fresh_handle = redis_filter::open(c2, "gap");
  // Missing (deleted, evicted, lost in a restart) while the meta survives.
  server_->raw({"DEL", victim});
  for (redis_filter* h : {&f, &fresh_handle}) {
    auto m = error_of([&] { h->contains(keys[0]); }, errc::not_found);
    EXPECT_EQ(m, "filter 'gap': shard '" + victim +
                     "' is missing (evicted or deleted): the filter cannot answer; rebuild or "
                     "push it again")
        << m;
    m = error_of([&] { count_present(*h, keys); }, errc::not_found);
    EXPECT_NE(m.find("'" + victim + "'"), npos) << m;
    EXPECT_TRUE(h->contains(other));  // the other shards still answer
  }
  auto m = error_of([&] { f.info(); }, errc::not_found);
  EXPECT_NE(m.find("'" + victim + "'"), npos) << m;
  EXPECT_EQ(server_->raw({"EXISTS", victim}).integer(), 0);  // lookups create nothing

  // Short: fewer bytes than the layout says, here with every bit it has set.
  server_->raw({"SET", victim, std::string(16, '\xff')});
  m = error_of([&] { f.contains(keys[0]); }, errc::not_found);
  EXPECT_NE(m.find("shard '" + victim + "' is short"), npos) << m;
  error_of([&] { count_present(fresh_handle, keys); }, errc::not_found);
  m = error_of([&] { f.info(); }, errc::not_found);
  EXPECT_NE(m.find("'" + victim + "'"), npos) << m;
}

TEST_F(RedisFilterSingle, WritesNeverCreateAShard) {
  auto f = redis_filter::create(*client_, "w", 20000, 0.01, 14);
  const auto keys = make_keys(1000, 71);
  const std::string victim = shard_of(f, keys[0]);
  server_->raw({"DEL", victim});
  auto m = error_of([&] { f.insert(keys[0]); }, errc::not_found);
  EXPECT_NE(m.find("shard '" + victim + "' is missing"), npos) << m;
  EXPECT_EQ(server_->raw({"EXISTS", victim}).integer(), 0);
  m = error_of([&] { insert_all(f, keys); }, errc::not_found);
  EXPECT_NE(m.find("'" + victim + "'"), npos) << m;
  EXPECT_EQ(server_->raw({"EXISTS", victim}).integer(), 0);
  const std::string other = key_outside(f, make_keys(100, 75), victim);
  f.insert(other);  // the other shards still take keys
  EXPECT_TRUE(f.contains(other));

  // A stale handle: the filter was dropped by another client, expired, or lost in a restart
  // without persistence. Its writes create no key at all (no shard, no meta).
  auto c2 = client::connect(server_->url());
  redis_filter::open(c2, "w").drop();
  EXPECT_EQ(keys_of(*server_, "*"), std::set<std::string>{});
  error_of([&] { f.insert(keys[1]); }, errc::not_found);
  error_of([&] { insert_all(f, keys); }, errc::not_found);
  EXPECT_EQ(keys_of(*server_, "*"), std::set<std::string>{});

  auto g = redis_filter::create(*client_, "ttl", 20000, 0.01, 14);
  g.insert(keys[0]);
  g.expire(1s);
  std::this_thread::sleep_for(1100ms);
  error_of([&] { g.insert(keys[1]); }, errc::not_found);
  error_of([&] { insert_all(g, keys); }, errc::not_found);
  EXPECT_EQ(keys_of(*server_, "*"), std::set<std::string>{});

  auto h = redis_filter::create(*client_, "lost", 20000, 0.01, 14);
  h.insert(keys[0]);
  server_->restart();  // no persistence: everything is gone
  error_of([&] { h.insert(keys[1]); }, errc::not_found);
  error_of([&] { insert_all(h, keys); }, errc::not_found);
  EXPECT_EQ(keys_of(*server_, "*"), std::set<std::string>{});
}

TEST_F(RedisFilterSingle, DropRemovesEveryKeyOfTheNameIncludingOrphans) {
  // A filter, plus orphans: an interrupted rebuild's generation and stray shards of others.
  auto f = redis_filter::create(*client_, "d", 20000, 0.01, 14);
  f.insert("k");
  for (const std::string key : {"d:2:0", "d:2:5", "d:9:1", "d:1:99"}) {
    server_->raw({"SET", key, "x"});
  }
  const std::set<std::string> others = {"d",      "d:x",    "d:1",     "d:1:2:3",
                                        "d:01:1", "dd:1:0", "d:meta:x"};
  for (const auto& key : others) server_->raw({"SET", key, "other"});
  EXPECT_EQ(redis_filter::drop(*client_, "d"), f.layout().shard_count + 1 + 4);
  EXPECT_EQ(keys_of(*server_, "*"), others);
  error_of([&] { f.contains("k"); }, errc::not_found);
  error_of([&] { redis_filter::drop(*client_, "d"); }, errc::not_found);

  // Shards without any meta (a create killed half-way): drop finds them; create works again.
  server_->raw({"SET", "e:1:3", "x"});
  auto m =
      error_of([&] { redis_filter::create(*client_, "e", 20000, 0.01, 14); }, errc::already_exists);
  EXPECT_NE(m.find("`bloomkit redis drop e`"), npos) << m;
  EXPECT_EQ(redis_filter::drop(*client_, "e"), 1u);
  redis_filter::create(*client_, "e", 20000, 0.01, 14).insert("k");

  // A meta of another type is not ours to delete.
  server_->raw({"SET", "s:meta", "x"});
  server_->raw({"SET", "s:1:0", "x"});
  error_of([&] { redis_filter::drop(*client_, "s"); }, errc::wrong_type);
  EXPECT_EQ(server_->raw({"EXISTS", "s:1:0"}).integer(), 1);
}

// A filter as bloomkit made them before guard bits: no shard_guard in the meta, shards of
// exactly their bits' bytes.
void strip_guards(const redis_server& s, const redis_filter& f) {
  s.raw({"HDEL", f.name() + ":meta", "shard_guard"});
  for (std::uint64_t j = 0; j < f.layout().shard_count; ++j) {
    const std::string key = f.name() + ":1:" + std::to_string(j);
    const std::string bits =
        s.raw({"GETRANGE", key, "0", std::to_string(f.layout().shard_bytes() - 1)}).str();
    s.raw({"SET", key, bits});
  }
}

TEST_F(RedisFilterSingle, AFilterWithoutGuardBitsIsCheckedByLengthAndRebuildAddsThem) {
  auto f = redis_filter::create(*client_, "old", 20000, 0.01, 14);
  const auto keys = make_keys(2000, 77);
  insert_all(f, keys);
  strip_guards(*server_, f);
  auto g = redis_filter::open(*client_, "old");
  EXPECT_EQ(count_present(g, keys), keys.size());
  insert_all(g, make_keys(100, 78));
  const std::string victim = shard_of(g, keys[0]);
  server_->raw({"DEL", victim});
  auto m = error_of([&] { g.contains(keys[0]); }, errc::not_found);
  EXPECT_NE(m.find("shard '" + victim + "' is missing"), npos) << m;
  m = error_of([&] { g.insert(keys[0]); }, errc::not_found);
  EXPECT_NE(m.find("shard '" + victim + "' is missing"), npos) << m;
  EXPECT_EQ(server_->raw({"EXISTS", victim}).integer(), 0);
  error_of([&] { g.info(); }, errc::not_found);
  // A rebuild gives it guard bits: shard_guard names the generation that has them.
  g.rebuild(views(keys));
  EXPECT_EQ(server_->raw({"HGET", "old:meta", "shard_guard"}).str(), "2");
  EXPECT_EQ(count_present(g, keys), keys.size());
  EXPECT_EQ(count_present(f, keys), keys.size());  // the other handle follows the flip
  // A generation that an older bloomkit rebuilt has no guard bits, though the meta still names
  // the one before: checked by length.
  server_->raw({"HSET", "old:meta", "shard_guard", "1"});
  EXPECT_EQ(count_present(f, keys), keys.size());
  insert_all(f, make_keys(100, 83));
  server_->raw({"DEL", shard_of(g, keys[0], 2)});
  error_of([&] { f.contains(keys[0]); }, errc::not_found);
  server_->raw({"HSET", "old:meta", "shard_guard", "2"});
  error_of([&] { g.contains(keys[0]); }, errc::not_found);
}

TEST_F(RedisFilterSingle, InfoChecksEveryShardItsTtlAndTheEvictionPolicy) {
  auto f = redis_filter::create(*client_, "i", 20000, 0.01, 14);
  insert_all(f, make_keys(500, 79));
  auto i = f.info();
  EXPECT_EQ(i.warnings, std::vector<std::string>{});
  EXPECT_FALSE(i.inserted_stale);
  EXPECT_NEAR(static_cast<double>(i.bits_set), 500.0 * f.layout().hashes, 100.0);
  EXPECT_NEAR(i.estimated_count, 500, 20);
  server_->raw({"CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"});
  i = f.info();
  ASSERT_EQ(i.warnings.size(), 1u);
  EXPECT_EQ(i.warnings[0],
            "filter 'i': maxmemory-policy allkeys-lfu lets Redis evict its keys under memory "
            "pressure; use noeviction (docs/REDIS.md, \"Eviction\")");
  server_->raw({"CONFIG", "SET", "maxmemory-policy", "volatile-ttl"});
  EXPECT_EQ(f.info().warnings, std::vector<std::string>{});
  f.expire(100s);
  i = f.info();
  ASSERT_EQ(i.warnings.size(), 1u);
  EXPECT_NE(i.warnings[0].find("maxmemory-policy volatile-ttl"), npos) << i.warnings[0];
  server_->raw({"CONFIG", "SET", "maxmemory-policy", "noeviction"});
  EXPECT_EQ(f.info().warnings, std::vector<std::string>{});
  server_->raw({"PERSIST", "i:1:2"});
  server_->raw({"EXPIRE", "i:1:3", "10"});
  i = f.info();
  ASSERT_EQ(i.warnings.size(), 1u);
  EXPECT_EQ(i.warnings[0].rfind("filter 'i': 2 shards expire other than its meta ('i:1:2' "
                                "expires never, i:meta in 100 s)",
                                0),
            0u)
      << i.warnings[0];
  // A short shard: an error naming it, with its length.
  server_->raw({"SET", "i:1:4", "abc"});
  const auto m = error_of([&] { f.info(); }, errc::not_found);
  EXPECT_NE(m.find("shard 'i:1:4' is short (3 of "), npos) << m;
}

}  // namespace
