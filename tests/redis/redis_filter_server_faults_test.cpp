// redis_filter when its server fails: an evicted shard is an error, never an answer; a server
// that is down gives a clear error, and the same client recovers after the restart.
#include "bloomkit/redis/redis_filter.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "redis_filter_fixtures.hpp"

namespace {

using namespace bloomkit::redis_filter_test;
using bloomkit::error;
using bloomkit::redis::client_options;
using bloomkit::redis::command;
using bloomkit::test::redis_server_options;

TEST(RedisFilterEviction, AnEvictedShardIsAnErrorNeverAnAnswer) {
  BLOOMKIT_REQUIRE_REDIS();
  redis_server_options so;
  so.extra_args = {"--maxmemory",         "8mb", "--maxmemory-policy", "allkeys-lru",
                   "--maxmemory-samples", "10"};
  redis_server server(so);
  auto c = client::connect(server.url());
  auto f = redis_filter::create(c, "ev", 200000, 0.01, 14);  // ~117 shards of 2 KiB
  const auto keys = make_keys(5000, 74);
  insert_all(f, keys);
  ASSERT_EQ(count_present(f, keys), keys.size());
  // Fill the server with other keys, touched as we go, until some key of the filter is gone.
  auto shards_left = [&] { return keys_of(server, "ev:1:*").size(); };
  const std::string value(4096, 'x');
  for (int i = 0; shards_left() == f.layout().shard_count && i < 100; ++i) {
    std::vector<command> fill;
    for (int j = 0; j < 200; ++j) {
      fill.push_back({{"SET", "filler:" + std::to_string(i) + ":" + std::to_string(j), value}});
    }
    c.execute_many(fill);
  }
  ASSERT_LT(shards_left(), f.layout().shard_count) << "nothing of the filter was evicted";
  // Every lookup of the inserted keys errs (a shard or the meta is gone): none answers absent.
  for (std::size_t i = 0; i < 200; ++i) {
    try {
      EXPECT_TRUE(f.contains(keys[i])) << keys[i];
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::not_found) << e.what();
    }
  }
  error_of([&] { count_present(f, keys); }, errc::not_found);
}

TEST(RedisFilterRestart, ClearErrorWhileDownAndRecoveryWithoutANewClient) {
  BLOOMKIT_REQUIRE_REDIS();
  redis_server_options so;
  so.appendonly = true;
  redis_server server(so);
  client_options co;
  co.retry_delay = 20ms;
  auto c = client::connect(server.url(), co);
  auto f = redis_filter::create(c, "survivor", 10000, 0.01);
  const auto keys = make_keys(3000, 30);
  insert_all(f, keys);
  server.stop();
  auto m = error_of([&] { f.contains(keys[0]); }, errc::unreachable);
  EXPECT_NE(m.find(server.address()), std::string::npos) << m;
  error_of([&] { insert_all(f, make_keys(10, 31)); }, errc::unreachable);
  server.restart();
  EXPECT_EQ(count_present(f, keys), keys.size());
  EXPECT_TRUE(f.insert("after restart"));
}

}  // namespace
