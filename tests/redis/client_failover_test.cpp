// bloomkit::redis::client through a cluster failover: writes acknowledged by WAIT survive a
// killed master, and traffic rides through with enough retries.
#include "bloomkit/redis/client.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "client_fixtures.hpp"
#include "redis/client/client_stats.hpp"
#include "redis/client/key_slot.hpp"

namespace {

using namespace bloomkit::redis_client_test;
using bloomkit::error;
using bloomkit::redis::detail::stats_of;

class RedisFailover : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!redis_server::available()) return;
    bloomkit::test::redis_cluster_options o;
    o.masters = 3;
    o.replicas = 1;
    cluster_ = std::make_unique<redis_cluster>(o);
  }
  static void TearDownTestSuite() { cluster_.reset(); }
  void SetUp() override { BLOOMKIT_REQUIRE_REDIS(); }
  // The master serving `key`, which must still have a replica to promote.
  static std::size_t master_with_replica_for(const std::string& key) {
    const auto slot = bloomkit::redis::key_slot(key);
    const auto owner = cluster_->owner_of_slot(slot);
    const auto info = cluster_->node(owner).raw({"INFO", "replication"}).str();
    EXPECT_EQ(info.find("connected_slaves:0"), std::string::npos) << "no replica left to promote";
    return owner;
  }
  static inline std::unique_ptr<redis_cluster> cluster_;
};

TEST_F(RedisFailover, DataAcknowledgedByWaitSurvivesAKilledMaster) {
  auto c = client::connect(cluster_->url());
  ASSERT_EQ(c.master_count(), 3u);

  constexpr int count = 2000;
  std::vector<command> sets;
  std::vector<command> gets;
  for (int i = 0; i < count; ++i) {
    sets.push_back(cmd({"SET", "f:" + std::to_string(i), std::to_string(i)}));
    gets.push_back(cmd({"GET", "f:" + std::to_string(i)}));
  }
  c.execute_many(sets);
  EXPECT_EQ(c.wait_replicas(1, 5000ms), 1);

  const auto victim = master_with_replica_for("f:0");
  const auto promoted = cluster_->kill_master(victim);
  const auto refreshes = stats_of(c).slot_map_refreshes;

  const auto values = c.execute_many(gets);
  for (int i = 0; i < count; ++i) ASSERT_EQ(values[i].str(), std::to_string(i)) << i;
  EXPECT_GT(stats_of(c).slot_map_refreshes, refreshes);
  EXPECT_EQ(c.master_count(), 3u);
  const auto masters = c.masters();
  EXPECT_NE(std::find(masters.begin(), masters.end(), cluster_->node(promoted).address()),
            masters.end());
  EXPECT_EQ(std::find(masters.begin(), masters.end(), cluster_->node(victim).address()),
            masters.end());
  EXPECT_EQ(c.execute(cmd({"SET", "f:0", "after"})).str(), "OK");
  EXPECT_EQ(c.execute(cmd({"GET", "f:0"})).str(), "after");
  // The promoted master has no replica left: WAIT 1 there times out with 0.
  c.execute(cmd({"SET", "f:0", "again"}));
  EXPECT_EQ(c.wait_replicas(1, 50ms), 0);
}

TEST_F(RedisFailover, TrafficRidesThroughAFailoverWithEnoughRetries) {
  // Retries spanning more than the failover (node timeout 1 s + election): 50 ms doubling over
  // 8 retries waits up to 12.75 s in all.
  client_options options;
  options.max_retries = 8;
  options.retry_delay = 50ms;
  auto c = client::connect(cluster_->url(), options);
  const std::string key = "ride:{through}";
  const auto victim = master_with_replica_for(key);

  std::atomic<bool> killed = false;
  std::thread killer([&] {
    std::this_thread::sleep_for(200ms);
    cluster_->kill_master(victim);
    killed = true;
  });
  // Writes and reads on the victim's slot never fail and never lose an acknowledged write.
  long long written = 0;
  std::string failure;
  try {
    while (!killed || written < 20) {
      ++written;
      EXPECT_EQ(c.execute(cmd({"RPUSH", key, std::to_string(written)})).type(),
                reply::kind::integer);
      std::this_thread::sleep_for(5ms);
    }
  } catch (const error& e) {
    failure = e.what();
  }
  killer.join();
  EXPECT_EQ(failure, "");
  const auto stored = c.execute(cmd({"LRANGE", key, "0", "-1"}));
  ASSERT_EQ(stored.type(), reply::kind::array);
  // Writes acknowledged before the kill may be lost (asynchronous replication; WAIT is the
  // answer to that), but every write after the promotion is there, in order.
  ASSERT_FALSE(stored.elements().empty());
  EXPECT_EQ(stored.elements().back().str(), std::to_string(written));
  EXPECT_GT(stats_of(c).retries, 0u);
}

}  // namespace
