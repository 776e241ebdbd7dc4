// bloomkit::redis::client on a Redis Cluster: discovery, routing by key slot, one client per
// thread, hash tags, MOVED, TRYAGAIN and ASK during slot migrations.
#include "bloomkit/redis/client.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "client_fixtures.hpp"
#include "redis/client/client_stats.hpp"
#include "redis/client/key_slot.hpp"
#include "support/redis_fixtures.hpp"

namespace {

using namespace bloomkit::redis_client_test;
using bloomkit::redis::detail::stats_of;
using bloomkit::test::cluster_test;

class RedisCluster : public cluster_test {
 protected:
  // `count` keys in `slot`: "{tag}:i" where tag hashes to the slot.
  static std::vector<std::string> keys_in_slot(int slot, int count) {
    std::string tag;
    for (int i = 0;; ++i) {
      tag = std::string("t") + std::to_string(i);
      if (bloomkit::redis::key_slot(tag) == slot) break;
    }
    std::vector<std::string> keys;
    for (int i = 0; i < count; ++i) keys.push_back("{" + tag + "}:" + std::to_string(i));
    return keys;
  }
  // The master after `from` in slot order.
  static std::size_t next_master(std::size_t from) {
    const auto masters = cluster_->masters();
    const auto at = std::find(masters.begin(), masters.end(), from) - masters.begin();
    return masters[static_cast<std::size_t>(at + 1) % masters.size()];
  }
};

TEST_F(RedisCluster, DiscoversTheMasters) {
  auto c = client::connect(cluster_->url());
  EXPECT_TRUE(c.is_cluster());
  EXPECT_EQ(c.master_count(), 3u);
  std::vector<std::string> expected;
  for (const auto m : cluster_->masters()) expected.push_back(cluster_->node(m).address());
  EXPECT_EQ(c.masters(), expected);
  EXPECT_EQ(c.describe(), cluster_->url());
  // One seed is enough.
  auto from_one_seed =
      client::connect("redis-cluster://" + cluster_->node(cluster_->masters()[1]).address());
  EXPECT_EQ(from_one_seed.masters(), expected);
}

TEST_F(RedisCluster, ExecuteManyRoutesByKeySlotAndKeepsInputOrder) {
  auto c = client::connect(cluster_->url());
  constexpr int count = 3000;
  std::vector<command> sets;
  std::vector<command> gets;
  for (int i = 0; i < count; ++i) {
    sets.push_back(cmd({"SET", "key:" + std::to_string(i), "value:" + std::to_string(i)}));
    gets.push_back(cmd({"GET", "key:" + std::to_string(i)}));
  }
  for (const auto& r : c.execute_many(sets)) ASSERT_EQ(r.str(), "OK");
  const auto values = c.execute_many(gets);
  ASSERT_EQ(values.size(), static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) ASSERT_EQ(values[i].str(), "value:" + std::to_string(i));
  // Routed by CRC16 straight to the owner: no redirection was needed.
  EXPECT_EQ(stats_of(c).moved, 0u);
  EXPECT_EQ(stats_of(c).ask, 0u);
  // Each key really lives on the master that owns its slot, and every master got some.
  long long total = 0;
  for (const auto m : cluster_->masters()) {
    const auto size = cluster_->node(m).raw({"DBSIZE"}).integer();
    EXPECT_GT(size, count / 6);
    total += size;
  }
  EXPECT_EQ(total, count);
  for (int i = 0; i < count; i += 97) {
    const auto key = "key:" + std::to_string(i);
    const auto owner = cluster_->owner_of_slot(bloomkit::redis::key_slot(key));
    EXPECT_EQ(cluster_->node(owner).raw({"GET", key}).str(), "value:" + std::to_string(i));
  }
  const auto sizes = c.execute_on_masters(cmd({"DBSIZE"}, 0));
  ASSERT_EQ(sizes.size(), 3u);
  EXPECT_EQ(sizes[0].integer() + sizes[1].integer() + sizes[2].integer(), count);
}

TEST_F(RedisCluster, OneClientPerThread) {
  constexpr int threads = 4;
  constexpr int per_thread = 500;
  std::vector<std::thread> workers;
  std::vector<int> mismatches(threads, 0);
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      auto c = client::connect(cluster_->url());
      std::vector<command> sets;
      std::vector<command> gets;
      for (int i = 0; i < per_thread; ++i) {
        std::string key = "thread";
        key += std::to_string(t);
        key += ':';
        key += std::to_string(i);
        sets.push_back(cmd({"SET", key, key}));
        gets.push_back(cmd({"GET", key}));
      }
      for (int round = 0; round < 3; ++round) {
        c.execute_many(sets);
        const auto values = c.execute_many(gets);
        for (int i = 0; i < per_thread; ++i) {
          if (values[static_cast<std::size_t>(i)].str() !=
              gets[static_cast<std::size_t>(i)].args[1]) {
            ++mismatches[static_cast<std::size_t>(t)];
          }
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  EXPECT_EQ(mismatches, std::vector<int>(threads, 0));
}

TEST_F(RedisCluster, HashTagsKeepMultiKeyCommandsOnOneNode) {
  auto c = client::connect(cluster_->url());
  EXPECT_EQ(c.execute(cmd({"MSET", "{user7}:a", "1", "{user7}:b", "2"})).str(), "OK");
  const auto both = c.execute(cmd({"MGET", "{user7}:a", "{user7}:b"}));
  ASSERT_EQ(both.elements().size(), 2u);
  EXPECT_EQ(both.elements()[1].str(), "2");
  // Keys of different slots in one command: the server's CROSSSLOT error comes back as is.
  const auto cross = c.execute(cmd({"MGET", "{a}x", "{b}y"}));
  ASSERT_TRUE(cross.is_error());
  EXPECT_EQ(cross.str().rfind("CROSSSLOT", 0), 0u) << cross.str();
}

TEST_F(RedisCluster, ASingleServerUrlOnAClusterNodeIsAClearError) {
  const auto node = cluster_->masters().front();
  auto c = client::connect(cluster_->node(node).url());
  // A key whose slot another master owns.
  const std::string key = [&] {
    for (int i = 0;; ++i) {
      std::string candidate = std::to_string(i);
      if (cluster_->owner_of_slot(bloomkit::redis::key_slot(candidate)) != node) return candidate;
    }
  }();
  const auto message = error_of([&] { c.execute(cmd({"GET", key})); }, errc::server_error);
  EXPECT_NE(message.find("is a cluster node"), std::string::npos) << message;
  EXPECT_NE(message.find("connect with redis-cluster://"), std::string::npos) << message;
}

TEST_F(RedisCluster, FollowsMovedAfterASlotMigration) {
  auto c = client::connect(cluster_->url());
  client_options no_redirects;
  no_redirects.max_redirects = 0;
  auto strict = client::connect(cluster_->url(), no_redirects);
  const int slot = 1234;
  // Keys of the migrating slot interleaved with keys of every other slot's owners.
  std::vector<std::string> keys;
  const auto moving = keys_in_slot(slot, 50);
  for (int i = 0; i < 50; ++i) {
    keys.push_back(moving[static_cast<std::size_t>(i)]);
    keys.push_back("other:" + std::to_string(i));
  }
  std::vector<command> sets;
  std::vector<command> gets;
  for (const auto& k : keys) {
    sets.push_back(cmd({"SET", k, "v-" + k}));
    gets.push_back(cmd({"GET", k}));
  }
  c.execute_many(sets);
  const auto from = cluster_->owner_of_slot(slot);
  const auto to = next_master(from);
  cluster_->migrate_slot(slot, to);
  ASSERT_EQ(cluster_->owner_of_slot(slot), to);

  const auto values = c.execute_many(gets);
  ASSERT_EQ(values.size(), keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(values[i].str(), "v-" + keys[i]);
  const auto moved = stats_of(c).moved;
  EXPECT_GE(moved, 1u);
  // The map was updated: the next round goes straight to the new owner.
  c.execute_many(gets);
  EXPECT_EQ(stats_of(c).moved, moved);
  EXPECT_EQ(cluster_->node(to).raw({"GET", moving[0]}).str(), "v-" + moving[0]);
  // A client allowed no redirection says so, naming the key.
  const auto message = error_of(
      [&] {
        strict.execute(cmd({"GET", moving[0]}));
      },
      errc::server_error);
  EXPECT_EQ(
      message.rfind("too many redirections (0) for key \"" + moving[0] + "\", last: MOVED", 0), 0u)
      << message;

  cluster_->migrate_slot(slot, from);  // leave the cluster as the other tests expect it
}

TEST_F(RedisCluster, RetriesTryagainThenReturnsTheErrorReply) {
  client_options options;
  options.retry_delay = 1ms;
  options.max_retries = 2;
  auto c = client::connect(cluster_->url(), options);
  const int slot = 4321;
  const auto keys = keys_in_slot(slot, 2);
  c.execute(cmd({"MSET", keys[0], "a", keys[1], "b"}));
  const auto from = cluster_->owner_of_slot(slot);
  const auto to = next_master(from);
  cluster_->begin_slot_migration(slot, from, to);
  cluster_->move_slot_keys(slot, from, to, 1);
  // One key here, one there: a multi-key command gets TRYAGAIN until the migration ends.
  const auto before = stats_of(c).retries;
  const auto r = c.execute(cmd({"MGET", keys[0], keys[1]}));
  ASSERT_TRUE(r.is_error()) << r.to_string();
  EXPECT_EQ(r.str().rfind("TRYAGAIN", 0), 0u) << r.str();
  EXPECT_EQ(stats_of(c).retries, before + 2);
  cluster_->move_slot_keys(slot, from, to);
  cluster_->finish_slot_migration(slot, from, to);
  const auto both = c.execute(cmd({"MGET", keys[0], keys[1]}));
  ASSERT_EQ(both.type(), reply::kind::array) << both.to_string();
  EXPECT_EQ(both.elements()[0].str(), "a");
  EXPECT_EQ(both.elements()[1].str(), "b");
  cluster_->migrate_slot(slot, from);
}

TEST_F(RedisCluster, FollowsAskDuringASlotMigration) {
  auto c = client::connect(cluster_->url());
  const int slot = 9876;
  const auto keys = keys_in_slot(slot, 3);  // [0], [1] exist before the migration, [2] after
  c.execute(cmd({"SET", keys[0], "zero"}));
  c.execute(cmd({"SET", keys[1], "one"}));
  const auto from = cluster_->owner_of_slot(slot);
  const auto to = next_master(from);

  cluster_->begin_slot_migration(slot, from, to);
  ASSERT_EQ(cluster_->move_slot_keys(slot, from, to, 1), 1u);  // one key moves, one stays
  const auto values = c.execute_many(std::vector<command>{
      cmd({"GET", keys[0]}), cmd({"GET", keys[1]}), cmd({"SET", keys[2], "two"})});
  EXPECT_EQ(values[0].str(), "zero");
  EXPECT_EQ(values[1].str(), "one");
  EXPECT_EQ(values[2].str(), "OK");
  const auto ask = stats_of(c).ask;
  EXPECT_GE(ask, 2u);  // the moved key and the new key were asked for at the target
  EXPECT_EQ(stats_of(c).moved, 0u);
  // The new key went to the target: the source does not have it and sends ASK for it.
  const auto at_source = cluster_->node(from).raw({"GET", keys[2]});
  ASSERT_TRUE(at_source.is_error());
  EXPECT_EQ(at_source.str().rfind("ASK", 0), 0u) << at_source.str();
  // ASK does not change the map: asking again redirects again.
  EXPECT_EQ(c.execute(cmd({"GET", keys[2]})).str(), "two");
  EXPECT_EQ(stats_of(c).ask, ask + 1);

  cluster_->move_slot_keys(slot, from, to);
  cluster_->finish_slot_migration(slot, from, to);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(c.execute(cmd({"GET", keys[static_cast<std::size_t>(i)]})).str(),
              std::vector<std::string>({"zero", "one", "two"})[static_cast<std::size_t>(i)]);
  }
  EXPECT_GE(stats_of(c).moved, 1u);
  cluster_->migrate_slot(slot, from);
}

}  // namespace
