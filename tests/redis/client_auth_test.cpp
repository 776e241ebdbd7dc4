// bloomkit::redis::client authentication: passwords and ACL users in the URL or from
// REDISCLI_AUTH, on a single server and a cluster; refusals never show the password.
#include "bloomkit/redis/client.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bloomkit/redis/url.hpp"
#include "client_fixtures.hpp"
#include "support/scoped_env.hpp"

namespace {

using namespace bloomkit::redis_client_test;

TEST(RedisAuth, PasswordAndAclUsers) {
  BLOOMKIT_REQUIRE_REDIS();
  redis_server_options o;
  o.requirepass = "right-pass";
  o.users = {{"alice", "alice-pass"}};
  redis_server server(o);
  const auto base = "127.0.0.1:" + std::to_string(server.port());

  auto c = client::connect("redis://:right-pass@" + base);
  EXPECT_EQ(c.execute(cmd({"PING"}, 0)).str(), "PONG");
  EXPECT_EQ(c.describe(), "redis://" + base);  // no password
  auto alice = client::connect("redis://alice:alice-pass@" + base);
  EXPECT_EQ(alice.execute(cmd({"SET", "k", "v"})).str(), "OK");
  EXPECT_EQ(alice.describe(), "redis://alice@" + base);

  auto message =
      error_of([&] { client::connect("redis://:wrong-pass@" + base); }, errc::auth_failed);
  EXPECT_EQ(message.rfind("Redis at " + base + " refused AUTH: WRONGPASS", 0), 0u) << message;
  EXPECT_EQ(message.find("wrong-pass"), std::string::npos) << message;
  message = error_of([&] { client::connect("redis://alice:nope@" + base); }, errc::auth_failed);
  EXPECT_EQ(message.rfind("Redis at " + base + " refused AUTH of user \"alice\": WRONGPASS", 0), 0u)
      << message;
  message = error_of([&] { client::connect("redis://" + base); }, errc::auth_failed);
  EXPECT_EQ(message.rfind("Redis at " + base + " requires a password: NOAUTH", 0), 0u) << message;
}

// REDISCLI_AUTH gives the password of a URL that has none, for the default user and for an ACL
// user ("redis://alice:@host"); a wrong one fails naming the user, never the password.
TEST(RedisAuth, PasswordFromTheEnvironment) {
  BLOOMKIT_REQUIRE_REDIS();
  using bloomkit::redis::settings_from_environment;
  using bloomkit::test::scoped_env;
  redis_server_options o;
  o.requirepass = "right-pass";
  o.users = {{"alice", "alice-pass"}};
  redis_server server(o);
  const auto base = "127.0.0.1:" + std::to_string(server.port());
  {
    scoped_env env({{"BLOOMKIT_REDIS_URL", "redis://" + base}, {"REDISCLI_AUTH", "right-pass"}});
    auto c = client::connect(settings_from_environment(std::nullopt).url);
    EXPECT_EQ(c.execute(cmd({"PING"}, 0)).str(), "PONG");
    EXPECT_EQ(c.describe(), "redis://" + base);
  }
  {
    scoped_env env({{"REDISCLI_AUTH", "alice-pass"}});
    auto alice = client::connect(settings_from_environment("redis://alice:@" + base).url);
    EXPECT_EQ(alice.execute(cmd({"ACL", "WHOAMI"}, 0)).str(), "alice");
  }
  {
    scoped_env env({{"REDISCLI_AUTH", "Wrong7-pass"}});
    auto message =
        error_of([&] { client::connect(settings_from_environment("redis://alice:@" + base).url); },
                 errc::auth_failed);
    EXPECT_EQ(message.rfind("Redis at " + base + " refused AUTH of user \"alice\": WRONGPASS", 0),
              0u)
        << message;
    EXPECT_EQ(message.find("Wrong7"), std::string::npos) << message;
    message = error_of([&] { client::connect(settings_from_environment("redis://" + base).url); },
                       errc::auth_failed);
    EXPECT_EQ(message.find("Wrong7"), std::string::npos) << message;
  }
}

TEST(RedisAuth, ClusterWithPassword) {
  BLOOMKIT_REQUIRE_REDIS();
  bloomkit::test::redis_cluster_options o;
  o.masters = 3;
  o.requirepass = "cluster-pass";
  redis_cluster cluster(o);
  auto c = client::connect(cluster.url());
  EXPECT_EQ(c.master_count(), 3u);
  std::vector<command> sets;
  for (int i = 0; i < 100; ++i) sets.push_back(cmd({"SET", "key:" + std::to_string(i), "v"}));
  for (const auto& r : c.execute_many(sets)) EXPECT_EQ(r.str(), "OK");
  EXPECT_EQ(c.describe().find("cluster-pass"), std::string::npos);
  {
    bloomkit::test::scoped_env env({{"REDISCLI_AUTH", "cluster-pass"}});
    auto from_env = client::connect(
        bloomkit::redis::settings_from_environment("redis-cluster://" + cluster.node(0).address())
            .url);
    EXPECT_EQ(from_env.master_count(), 3u);
  }
  const auto seed = cluster.node(0).address();
  auto message =
      error_of([&] { client::connect("redis-cluster://:bad@" + seed); }, errc::auth_failed);
  EXPECT_EQ(message.rfind("Redis at " + seed + " refused AUTH: WRONGPASS", 0), 0u) << message;
  message = error_of([&] { client::connect("redis-cluster://" + seed); }, errc::auth_failed);
  EXPECT_EQ(message.rfind("Redis at " + seed + " requires a password: NOAUTH", 0), 0u) << message;
}

}  // namespace
