// redis_filter on a Redis Cluster: more than 2^32 bits over three masters, concurrent clients,
// a slot migration, orphans on every master, and a failover with WAIT.
#include "bloomkit/redis/redis_filter.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "redis/client/client_stats.hpp"
#include "redis/client/key_slot.hpp"
#include "redis_filter_fixtures.hpp"

namespace {

using namespace bloomkit::redis_filter_test;
using bloomkit::redis::command;
using bloomkit::redis::filter_options;
using bloomkit::redis::detail::stats_of;
using bloomkit::test::cluster_test;
using bloomkit::test::redis_cluster;

class RedisFilterCluster : public cluster_test {};

TEST_F(RedisFilterCluster, MoreThanTwoToThe32BitsOverThreeMasters) {
  // The smallest sizing past 2^32 bits at p = 0.01: 4.3e9 bits (about 513 MiB) in 33 shards of
  // 2^27 bits, preallocated one at a time and spread over the three masters.
  auto c = client::connect(cluster_->url());
  const std::uint64_t capacity = 448'200'000;
  auto f = redis_filter::create(c, "huge", capacity, 0.01);
  EXPECT_GT(f.layout().total_bits(), std::uint64_t{1} << 32);
  EXPECT_EQ(f.layout().shard_count, 33u);
  for (const auto m : cluster_->masters()) {
    EXPECT_GE(cluster_->node(m).raw({"DBSIZE"}).integer(), 5) << m;
  }
  const auto keys = make_keys(20000, 40);
  EXPECT_GE(insert_all(f, keys), 19990u);
  EXPECT_EQ(count_present(f, keys), keys.size());
  EXPECT_LT(count_present(f, make_keys(20000, 41)), 5u);
  const auto info = f.info();
  EXPECT_EQ(info.layout.total_bits(), f.layout().total_bits());
  EXPECT_NEAR(info.estimated_count, 20000, 200);
  f.drop();
}

TEST_F(RedisFilterCluster, EightClientsInsertConcurrentlyWithoutFalseNegatives) {
  {
    auto c = client::connect(cluster_->url());
    redis_filter::create(c, "shared", 100000, 0.01, 14);
  }
  constexpr int clients = 8;
  std::vector<std::vector<std::string>> keys;
  for (int t = 0; t < clients; ++t) keys.push_back(make_keys(2000, 200 + t));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < clients; ++t) {
    threads.emplace_back([&, t] {
      try {
        auto c = client::connect(cluster_->url());
        auto f = redis_filter::open(c, "shared");
        insert_all(f, keys[t]);
      } catch (const std::exception& e) {
        ++failures;
        ADD_FAILURE() << e.what();
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(failures.load(), 0);
  auto c = client::connect(cluster_->url());
  auto f = redis_filter::open(c, "shared");
  for (int t = 0; t < clients; ++t) EXPECT_EQ(count_present(f, keys[t]), keys[t].size());
}

TEST_F(RedisFilterCluster, NoFalseNegativesWhileASlotMigrates) {
  auto c = client::connect(cluster_->url());
  auto f = redis_filter::create(c, "mig", 20000, 0.01, 12);  // ~47 shards over the slots
  // Migrate the slot of shard 0 (it holds ~1/47 of the keys).
  const int slot = bloomkit::redis::key_slot("mig:1:0");
  const std::size_t from = cluster_->owner_of_slot(slot);
  const auto masters = cluster_->masters();
  const std::size_t to = masters[0] == from ? masters[1] : masters[0];
  std::vector<std::vector<std::string>> sets;
  for (int s = 0; s < 4; ++s) sets.push_back(make_keys(3000, 50 + s));
  std::vector<std::string> inserted;
  auto add = [&](const std::vector<std::string>& keys) {
    insert_all(f, keys);
    inserted.insert(inserted.end(), keys.begin(), keys.end());
    ASSERT_EQ(count_present(f, inserted), inserted.size());
  };
  // A second client keeps reading everything inserted before the migration the whole time.
  add(sets[0]);
  std::atomic<bool> stop{false};
  std::atomic<std::size_t> reader_misses{0};
  std::atomic<std::size_t> reader_rounds{0};
  std::thread reader([&] {
    try {
      auto c2 = client::connect(cluster_->url());
      auto r = redis_filter::open(c2, "mig");
      while (!stop) {
        reader_misses += sets[0].size() - count_present(r, sets[0]);
        ++reader_rounds;
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << "reader: " << e.what();
    }
  });
  cluster_->begin_slot_migration(slot, from, to);
  add(sets[1]);
  cluster_->move_slot_keys(slot, from, to);  // the shard moved: the source now answers ASK
  add(sets[2]);
  cluster_->finish_slot_migration(slot, from, to);  // now MOVED
  add(sets[3]);
  stop = true;
  reader.join();
  EXPECT_EQ(reader_misses.load(), 0u);
  EXPECT_GT(reader_rounds.load(), 0u);
  EXPECT_GT(stats_of(c).ask, 0u);
  EXPECT_GT(stats_of(c).moved, 0u);
  EXPECT_EQ(cluster_->owner_of_slot(slot), to);
}

TEST_F(RedisFilterCluster, DropFindsOrphansOnEveryMasterAndWritesCreateNone) {
  auto c = client::connect(cluster_->url());
  auto f = redis_filter::create(c, "orph", 20000, 0.01, 12);  // ~47 shards over the masters
  const auto keys = make_keys(500, 82);
  insert_all(f, keys);
  std::vector<command> orphans;
  for (int j = 0; j < 60; ++j) orphans.push_back({{"SET", "orph:7:" + std::to_string(j), "x"}});
  c.execute_many(orphans);
  // A stale handle after another client's drop: its writes create nothing, on any master.
  auto c2 = client::connect(cluster_->url());
  EXPECT_EQ(redis_filter::drop(c2, "orph"), f.layout().shard_count + 1 + 60);
  error_of([&] { insert_all(f, keys); }, errc::not_found);
  error_of([&] { f.insert("x"); }, errc::not_found);
  for (const auto m : cluster_->masters()) {
    EXPECT_EQ(cluster_->node(m).raw({"DBSIZE"}).integer(), 0) << m;
  }
}

TEST(RedisFilterFailover, InsertsAcknowledgedWithWaitSurviveAKilledMaster) {
  BLOOMKIT_REQUIRE_REDIS();
  bloomkit::test::redis_cluster_options o;
  o.masters = 3;
  o.replicas = 1;
  redis_cluster cluster(o);
  auto c = client::connect(cluster.url());
  filter_options fo;
  fo.wait_replicas = 1;
  fo.wait_timeout = 5000ms;
  auto f = redis_filter::create(c, "ha", 20000, 0.01, 12, fo);
  const auto keys = make_keys(5000, 60);
  insert_all(f, keys);  // every batch WAITed for its replica
  // Kill the master of the meta's slot and of shard 0.
  const auto victim = cluster.owner_of_slot(bloomkit::redis::key_slot("ha:meta"));
  cluster.kill_master(victim);
  EXPECT_EQ(count_present(f, keys), keys.size());
  const auto more = make_keys(2000, 61);
  filter_options no_wait;  // the promoted master has no replica any more
  auto g = redis_filter::open(c, "ha", no_wait);
  insert_all(g, more);
  EXPECT_EQ(count_present(g, more), more.size());
  EXPECT_EQ(count_present(g, keys), keys.size());
}

}  // namespace
