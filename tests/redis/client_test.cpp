// bloomkit::redis::client on a single redis-server: key slots, every reply type, pipelining,
// binary safety, error replies, databases, WAIT, reconnection, timeouts.
#include "bloomkit/redis/client.hpp"

#include <gtest/gtest.h>

#include <random>
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
using bloomkit::test::single_server_test;

TEST(RedisKeySlot, KnownVectors) {
  using bloomkit::redis::crc16;
  using bloomkit::redis::key_slot;
  // The CRC16 XMODEM check value and the slots the Redis Cluster specification gives.
  EXPECT_EQ(crc16("123456789"), 0x31C3);
  EXPECT_EQ(key_slot("123456789"), 12739);
  EXPECT_EQ(crc16(""), 0);
  EXPECT_EQ(key_slot("{user1000}.following"), key_slot("user1000"));
  EXPECT_EQ(key_slot("{user1000}.followers"), key_slot("user1000"));
  EXPECT_EQ(key_slot("foo{}{bar}"), crc16("foo{}{bar}") % 16384);  // empty tag: whole key
  EXPECT_EQ(key_slot("foo{{bar}}zap"), key_slot("{bar"));          // tag is "{bar"
  EXPECT_EQ(key_slot("foo{bar}{zap}"), key_slot("bar"));           // first tag only
  EXPECT_EQ(key_slot("foo{bar"), crc16("foo{bar") % 16384);        // no closing brace
}

TEST(RedisKeySlot, AgreesWithClusterKeyslotOnRandomKeys) {
  BLOOMKIT_REQUIRE_REDIS();
  redis_server_options o;
  o.cluster = true;  // CLUSTER KEYSLOT needs cluster mode, not a formed cluster
  redis_server server(o);
  auto c = client::connect(server.url());
  std::mt19937_64 rng(7);
  static constexpr char alphabet[] = "ab{}{}xyz0\x01\xff:";
  std::vector<std::string> keys;
  for (int i = 0; i < 3000; ++i) {
    std::string key;
    const auto length = rng() % 16;
    for (std::size_t k = 0; k < length; ++k) key += alphabet[rng() % (sizeof alphabet - 1)];
    keys.push_back(key);
  }
  keys.push_back("{user1000}.following");
  keys.push_back("123456789");
  std::vector<command> commands;
  for (const auto& k : keys) commands.push_back(cmd({"CLUSTER", "KEYSLOT", k}, 2));
  const auto replies = c.execute_many(commands);
  ASSERT_EQ(replies.size(), keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(replies[i].integer(), bloomkit::redis::key_slot(keys[i]))
        << reply::make_string(keys[i]).to_string();
  }
}

// --- a single server -----------------------------------------------------------------------

class RedisSingleNode : public single_server_test {};

TEST_F(RedisSingleNode, ExecutesCommandsOfEveryReplyType) {
  auto c = client::connect(server_->url());
  EXPECT_FALSE(c.is_cluster());
  EXPECT_EQ(c.master_count(), 1u);
  EXPECT_EQ(c.masters(), std::vector<std::string>{server_->address()});
  EXPECT_EQ(c.describe(), server_->url());

  const auto ok = c.execute(cmd({"SET", "greeting", "hello"}));
  EXPECT_EQ(ok.type(), reply::kind::status);
  EXPECT_EQ(ok.str(), "OK");
  const auto value = c.execute(cmd({"GET", "greeting"}));
  EXPECT_EQ(value.type(), reply::kind::string);
  EXPECT_EQ(value.str(), "hello");
  EXPECT_TRUE(c.execute(cmd({"GET", "absent"})).is_nil());
  EXPECT_EQ(c.execute(cmd({"INCRBY", "counter", "41"})).integer(), 41);
  c.execute(cmd({"RPUSH", "list", "a", "b"}));
  const auto list = c.execute(cmd({"LRANGE", "list", "0", "-1"}));
  ASSERT_EQ(list.type(), reply::kind::array);
  ASSERT_EQ(list.elements().size(), 2u);
  EXPECT_EQ(list.elements()[1].str(), "b");
  EXPECT_EQ(list.to_string(), R"(["a", "b"])");

  // Accessors of the wrong kind throw instead of inventing a value.
  EXPECT_EQ(error_of([&] { value.integer(); }, errc::server_error),
            R"(expected an integer reply from Redis, got "hello")");
  error_of([&] { ok.elements(); }, errc::server_error);
  error_of([&] { reply{}.str(); }, errc::server_error);
}

TEST_F(RedisSingleNode, PipelinesTenThousandCommandsInOrder) {
  auto c = client::connect(server_->url());
  constexpr int count = 10000;
  std::vector<command> commands;
  for (int i = 0; i < count; ++i) commands.push_back(cmd({"RPUSH", "order", std::to_string(i)}));
  commands.push_back(cmd({"LRANGE", "order", "0", "-1"}));
  const auto replies = c.execute_many(commands);
  ASSERT_EQ(replies.size(), commands.size());
  for (int i = 0; i < count; ++i) ASSERT_EQ(replies[i].integer(), i + 1) << i;
  const auto& stored = replies.back().elements();
  ASSERT_EQ(stored.size(), static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) ASSERT_EQ(stored[i].str(), std::to_string(i));
  EXPECT_TRUE(c.execute_many({}).empty());
}

TEST_F(RedisSingleNode, ArgumentsAndRepliesAreBinarySafe) {
  auto c = client::connect(server_->url());
  std::string key("k\0\r\n\xff{x}", 8);
  std::string value;
  for (int b = 0; b < 256; ++b) value += static_cast<char>(b);
  value += std::string("\r\n$3\r\n*1\0", 9);
  c.execute(cmd({"SET", key, value}));
  EXPECT_EQ(c.execute(cmd({"GET", key})).str(), value);
  EXPECT_EQ(c.execute(cmd({"STRLEN", key})).integer(), static_cast<long long>(value.size()));
  EXPECT_TRUE(c.execute(cmd({"GET", std::string("k\0", 2)})).is_nil());  // a different key
  EXPECT_EQ(c.execute(cmd({"SET", "", "empty key"})).str(), "OK");
  EXPECT_EQ(c.execute(cmd({"GET", ""})).str(), "empty key");
}

TEST_F(RedisSingleNode, ErrorRepliesComeBackInPlace) {
  auto c = client::connect(server_->url());
  const auto replies = c.execute_many(std::vector<command>{
      cmd({"SET", "s", "text"}),
      cmd({"LPUSH", "s", "x"}),  // WRONGTYPE
      cmd({"INCR", "s"}),        // ERR value is not an integer
      cmd({"NOSUCHCOMMAND", "s"}),
      cmd({"GET", "s"}),
  });
  ASSERT_EQ(replies.size(), 5u);
  EXPECT_EQ(replies[0].str(), "OK");
  EXPECT_TRUE(replies[1].is_error());
  EXPECT_EQ(replies[1].str().rfind("WRONGTYPE", 0), 0u) << replies[1].str();
  EXPECT_TRUE(replies[2].is_error());
  EXPECT_EQ(replies[2].str().rfind("ERR", 0), 0u) << replies[2].str();
  EXPECT_TRUE(replies[3].is_error());
  EXPECT_EQ(replies[4].str(), "text");
}

TEST_F(RedisSingleNode, RejectsMalformedCommands) {
  auto c = client::connect(server_->url());
  EXPECT_EQ(error_of([&] { c.execute(command{}); }, errc::invalid_argument), "empty Redis command");
  EXPECT_EQ(error_of([&] { c.execute(cmd({"GET"})); }, errc::invalid_argument),
            "Redis command GET: key_index 1 is past its 1 arguments");
  EXPECT_EQ(c.execute(cmd({"PING"}, 0)).str(), "PONG");
}

TEST_F(RedisSingleNode, SelectsTheDatabaseOfTheUrl) {
  auto db2 = client::connect(server_->url() + "/2");
  auto db0 = client::connect(server_->url() + "/0");
  EXPECT_EQ(db2.describe(), server_->url() + "/2");
  db2.execute(cmd({"SET", "where", "db2"}));
  EXPECT_TRUE(db0.execute(cmd({"GET", "where"})).is_nil());
  EXPECT_EQ(db2.execute(cmd({"GET", "where"})).str(), "db2");
  const auto message =
      error_of([&] { client::connect(server_->url() + "/100000"); }, errc::invalid_argument);
  EXPECT_NE(message.find("refused SELECT 100000"), std::string::npos) << message;
  EXPECT_NE(message.find(server_->address()), std::string::npos) << message;
}

TEST_F(RedisSingleNode, WaitReplicasWithoutReplicas) {
  auto c = client::connect(server_->url());
  EXPECT_EQ(c.wait_replicas(1, 10ms), 1);  // nothing sent: nothing to wait for
  c.execute(cmd({"SET", "k", "v"}));
  EXPECT_EQ(c.wait_replicas(0, 100ms), 0);
  c.execute(cmd({"SET", "k", "v"}));
  const auto start = clock_type::now();
  EXPECT_EQ(c.wait_replicas(1, 100ms), 0);  // no replica acknowledges
  EXPECT_GE(elapsed_ms(start), 90);
}

TEST_F(RedisSingleNode, ExecuteOnMastersReachesTheServer) {
  auto c = client::connect(server_->url());
  c.execute(cmd({"SET", "a", "1"}));
  const auto sizes = c.execute_on_masters(cmd({"DBSIZE"}, 0));
  ASSERT_EQ(sizes.size(), 1u);
  EXPECT_EQ(sizes[0].integer(), 1);
}

TEST_F(RedisSingleNode, ReconnectsWhenTheServerClosesTheConnection) {
  auto c = client::connect(server_->url());
  c.execute(cmd({"SET", "k", "v"}));
  const auto before = stats_of(c);
  // The server drops every normal client; the next pipeline (large enough that writing to the
  // dead socket raises EPIPE / SIGPIPE) must reconnect and succeed.
  EXPECT_GE(server_->raw({"CLIENT", "KILL", "TYPE", "normal"}).integer(), 1);
  std::vector<command> commands(2000, cmd({"SET", "big", std::string(1000, 'x')}));
  commands.push_back(cmd({"GET", "k"}));
  const auto replies = c.execute_many(commands);
  EXPECT_EQ(replies.back().str(), "v");
  EXPECT_GT(stats_of(c).connects, before.connects);
  EXPECT_GT(stats_of(c).retries, before.retries);
}

TEST_F(RedisSingleNode, AConnectionLostMidPipelineResumesWithoutRepeats) {
  auto c = client::connect(server_->url());
  const auto id = c.execute(cmd({"CLIENT", "ID"}, 0)).integer();
  // The server closes the connection after the 10th reply (the client kills itself): the first
  // ten commands were answered and must not run again; the rest are resent on a new connection.
  std::vector<command> commands;
  for (int i = 0; i < 10; ++i) commands.push_back(cmd({"RPUSH", "resume", std::to_string(i)}));
  commands.push_back(cmd({"CLIENT", "KILL", "ID", std::to_string(id), "SKIPME", "no"}, 0));
  for (int i = 10; i < 20; ++i) commands.push_back(cmd({"RPUSH", "resume", std::to_string(i)}));
  const auto retries = stats_of(c).retries;
  const auto replies = c.execute_many(commands);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(replies[static_cast<std::size_t>(i)].integer(), i + 1);
  for (int i = 10; i < 20; ++i)
    EXPECT_EQ(replies[static_cast<std::size_t>(i) + 1].integer(), i + 1);
  EXPECT_EQ(stats_of(c).retries, retries + 10);
  const auto stored = c.execute(cmd({"LRANGE", "resume", "0", "-1"}));
  ASSERT_EQ(stored.elements().size(), 20u);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(stored.elements()[static_cast<std::size_t>(i)].str(), std::to_string(i));
  }
}

TEST_F(RedisSingleNode, CommandTimeoutThrowsAndTheClientRecovers) {
  client_options options;
  options.command_timeout = 200ms;
  auto c = client::connect(server_->url(), options);
  c.execute(cmd({"SET", "k", "before"}));
  const auto start = clock_type::now();
  const auto message = error_of([&] { c.execute(cmd({"DEBUG", "SLEEP", "1"}, 0)); }, errc::timeout);
  EXPECT_LT(elapsed_ms(start), 900);
  EXPECT_EQ(message, "Redis at " + server_->address() + " did not answer within 200 ms");
  std::this_thread::sleep_for(1s);  // let DEBUG SLEEP finish; its late +OK must not leak
  EXPECT_EQ(c.execute(cmd({"GET", "k"})).str(), "before");
}

TEST_F(RedisSingleNode, TheClientIsMovable) {
  auto a = client::connect(server_->url());
  client b = std::move(a);
  EXPECT_EQ(b.execute(cmd({"PING"}, 0)).str(), "PONG");
  a = std::move(b);
  EXPECT_EQ(a.execute(cmd({"PING"}, 0)).str(), "PONG");
}

}  // namespace
