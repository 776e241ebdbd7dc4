// bloomkit::redis::client against real redis-server processes: URLs, key slots, a single server
// (commands, pipelining, binary safety, errors, auth, timeouts, restarts) and a Redis Cluster
// (routing, MOVED, ASK, failover).
#include "bloomkit/redis/client.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <random>
#include <set>
#include <thread>

#include "bloomkit/error.hpp"
#include "bloomkit/redis/url.hpp"
#include "redis/client_stats.hpp"
#include "redis/key_slot.hpp"
#include "support/errors.hpp"
#include "support/redis_fixtures.hpp"
#include "support/redis_server.hpp"
#include "support/scoped_env.hpp"

namespace {

using bloomkit::redis::detail::stats_of;

using bloomkit::test::cluster_test;
using bloomkit::test::error_of;
using bloomkit::test::single_server_test;

using namespace std::chrono_literals;
using bloomkit::errc;
using bloomkit::error;
using bloomkit::redis::client;
using bloomkit::redis::client_options;
using bloomkit::redis::command;
using bloomkit::redis::parse_url;
using bloomkit::redis::reply;
using bloomkit::test::redis_cluster;
using bloomkit::test::redis_server;
using bloomkit::test::redis_server_options;
using clock_type = std::chrono::steady_clock;

command cmd(std::vector<std::string> args, std::size_t key_index = 1) {
  return command{std::move(args), key_index};
}

// A port nobody listens on (bound, then closed).
int closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

long long elapsed_ms(clock_type::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(clock_type::now() - start).count();
}

// --- URLs ----------------------------------------------------------------------------------

TEST(RedisUrl, ParsesSingleServerUrls) {
  auto u = parse_url("redis://127.0.0.1:6380");
  EXPECT_FALSE(u.cluster);
  ASSERT_EQ(u.nodes.size(), 1u);
  EXPECT_EQ(u.nodes[0].host, "127.0.0.1");
  EXPECT_EQ(u.nodes[0].port, 6380);
  EXPECT_EQ(u.db, 0);
  EXPECT_TRUE(u.user.empty());
  EXPECT_TRUE(u.password.empty());
  EXPECT_EQ(u.to_string(), "redis://127.0.0.1:6380");

  u = parse_url("redis://localhost");
  EXPECT_EQ(u.nodes[0].host, "localhost");
  EXPECT_EQ(u.nodes[0].port, 6379);

  u = parse_url("redis://:s3cret@cache.internal:7000/3");
  EXPECT_EQ(u.password, "s3cret");
  EXPECT_TRUE(u.user.empty());
  EXPECT_EQ(u.db, 3);
  EXPECT_EQ(u.to_string(), "redis://cache.internal:7000/3");

  u = parse_url("redis://alice:p%40ss%3Aw0rd@h:1/");
  EXPECT_EQ(u.user, "alice");
  EXPECT_EQ(u.password, "p@ss:w0rd");
  EXPECT_EQ(u.to_string(), "redis://alice@h:1");

  u = parse_url("redis://justapassword@h:2");  // as redis-cli reads it
  EXPECT_TRUE(u.user.empty());
  EXPECT_EQ(u.password, "justapassword");

  u = parse_url("redis://[::1]:6379");
  EXPECT_EQ(u.nodes[0].host, "::1");
  EXPECT_EQ(u.to_string(), "redis://[::1]:6379");
}

TEST(RedisUrl, ParsesClusterUrls) {
  const auto u = parse_url("redis-cluster://:pw@10.0.0.1:7000,10.0.0.2,[fe80::1]:7002");
  EXPECT_TRUE(u.cluster);
  ASSERT_EQ(u.nodes.size(), 3u);
  EXPECT_EQ(u.nodes[0], (bloomkit::redis::endpoint{"10.0.0.1", 7000}));
  EXPECT_EQ(u.nodes[1], (bloomkit::redis::endpoint{"10.0.0.2", 6379}));
  EXPECT_EQ(u.nodes[2], (bloomkit::redis::endpoint{"fe80::1", 7002}));
  EXPECT_EQ(u.password, "pw");
  EXPECT_EQ(u.to_string(), "redis-cluster://10.0.0.1:7000,10.0.0.2:6379,[fe80::1]:7002");
}

TEST(RedisUrl, RejectsBadUrlsNamingTheProblem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"http://h:1",
       R"(invalid Redis URL "http://h:1": expected redis://host:port or redis-cluster://host:port,...)"},
      {"127.0.0.1:6379",
       R"(invalid Redis URL "127.0.0.1:6379": expected redis://host:port or redis-cluster://host:port,...)"},
      {"redis://", R"(invalid Redis URL "redis://": missing host)"},
      {"redis://:6379", R"(invalid Redis URL "redis://:6379": missing host)"},
      {"redis://h:0", R"(invalid Redis URL "redis://h:0": port "0" is not a number in 1-65535)"},
      {"redis://h:65536",
       R"(invalid Redis URL "redis://h:65536": port "65536" is not a number in 1-65535)"},
      {"redis://h:port",
       R"(invalid Redis URL "redis://h:***": port (hidden: it may be a password) is not a number in 1-65535)"},
      {"redis://h:", R"(invalid Redis URL "redis://h:": port "" is not a number in 1-65535)"},
      {"redis://h:1/x",
       R"(invalid Redis URL "redis://h:1/x": database "x" is not a non-negative number)"},
      {"redis://h:1/-1",
       R"(invalid Redis URL "redis://h:1/-1": database "-1" is not a non-negative number)"},
      {"redis-cluster://h:1/2",
       R"(invalid Redis URL "redis-cluster://h:1/2": a cluster has no databases; remove "/2")"},
      {"redis://a:1,b:2",
       R"(invalid Redis URL "redis://a:1,b:2": several hosts need redis-cluster://)"},
      {"redis-cluster://a:1,,b:2",
       R"(invalid Redis URL "redis-cluster://a:1,,b:2": empty host in the node list)"},
      {"redis://:@h:1", R"(invalid Redis URL "redis://***@h:1": empty password)"},
      {"redis://u:p%4@h:1",
       R"(invalid Redis URL "redis://u:***@h:1": bad %-escape in the password)"},
      // Hidden: ":1:6379" could as well be ":password" without its "@host".
      {"redis://::1:6379",
       R"(invalid Redis URL "redis://:***": IPv6 hosts must be written in brackets)"},
      {"redis://[::1:6379", R"(invalid Redis URL "redis://[::1:6379": unterminated '[' in host)"},
      {"redis://h:1?timeout=3",
       R"(invalid Redis URL "redis://h:1?timeout=***": query strings and fragments are not supported)"},
  };
  for (const auto& [text, message] : cases) {
    EXPECT_EQ(error_of([&] { parse_url(text); }, errc::invalid_argument), message) << text;
  }
}

TEST(RedisUrl, MessagesNeverShowThePassword) {
  const auto message =
      error_of([] { parse_url("redis://admin:hunter2@h:99999"); }, errc::invalid_argument);
  EXPECT_EQ(message.find("hunter2"), std::string::npos) << message;
  EXPECT_NE(message.find("admin:***@h:99999"), std::string::npos) << message;
}

// Every malformed shape a password may come in: the message names the problem, never the
// password (neither as written nor %-decoded, nor any piece of it).
TEST(RedisUrl, NoMalformedUrlShowsItsPassword) {
  struct bad_url {
    std::string text;
    std::vector<std::string> secrets;  // none may appear in the message
    std::string problem;               // must appear in the message
  };
  const std::string expected_scheme = "expected redis://host:port or redis-cluster://host:port";
  const std::string in_query = "a password in the query string is not supported";
  const std::vector<bad_url> cases = {
      // The six shapes of issue 11 (item 12).
      {"redis:/user:Alpha7@h:1", {"Alpha7"}, expected_scheme},
      {"redis:user:Alpha7@h", {"Alpha7"}, expected_scheme},
      {"redis://:Alpha7@", {"Alpha7"}, "missing host"},
      {"redis://user:Alpha7@", {"Alpha7"}, "missing host"},
      {"redis://h:1?password=Alpha7", {"Alpha7"}, in_query},
      {"redis://Charlie3@h:1?password=Alpha7", {"Alpha7", "Charlie3"}, in_query},
      // More of the same family.
      {"redis://user:x@h:1?password=Alpha7", {"Alpha7"}, in_query},
      {"redis://h:1?user=u&password=Alpha7", {"Alpha7"}, in_query},
      {"redis://h:1#Alpha7", {"Alpha7"}, "query strings and fragments are not supported"},
      {"redis-cluster:/:Alpha7@h:1", {"Alpha7"}, expected_scheme},
      {"redis//user:Alpha7@h:1", {"Alpha7"}, expected_scheme},
      {"http://user:Alpha7@h:1", {"Alpha7"}, expected_scheme},
      {"user:Alpha7@h:1", {"Alpha7"}, expected_scheme},
      {"Alpha7@h:1", {"Alpha7"}, expected_scheme},
      {" redis://user:Alpha7@h:1", {"Alpha7"}, expected_scheme},
      {"redis://Alpha7@", {"Alpha7"}, "missing host"},
      {"redis-cluster://:Alpha7@", {"Alpha7"}, "missing host"},
      {"redis://user:Alpha7@:6379", {"Alpha7"}, "missing host"},
      // "@host" forgotten: the password sits where the port goes.
      {"redis://user:Alpha7", {"Alpha7"}, "is not a number in 1-65535"},
      {"redis://:Alpha7", {"Alpha7"}, "missing host"},
      {"redis://user:Alpha7/0", {"Alpha7"}, "is not a number in 1-65535"},
      {"redis://user:Alpha7/Bravo9", {"Alpha7", "Bravo9"}, "is not a number in 1-65535"},
      {"redis-cluster://h:1,user:Alpha7", {"Alpha7"}, "is not a number in 1-65535"},
      {"redis://:Alpha7:Bravo9", {"Alpha7", "Bravo9"}, "IPv6 hosts must be written"},
      {"redis://:Alpha7&:Bravo9?a=1", {"Alpha7", "Bravo9"}, "query strings"},
      {"redis://user:Alpha7:Bravo9", {"Alpha7", "Bravo9"}, "IPv6 hosts must be written"},
      {"redis//:Alpha7/x", {"Alpha7"}, expected_scheme},
      {"redis//alice:Alpha7", {"Alpha7"}, expected_scheme},
      {"redis//alice:Alpha7#Bravo9/0", {"Alpha7", "Bravo9"}, expected_scheme},
      {"REDIS://alice:Alpha7:Bravo9/0", {"Alpha7", "Bravo9"}, expected_scheme},
      {"alice:Alpha7:Bravo9/", {"Alpha7", "Bravo9"}, expected_scheme},
      // Passwords holding reserved characters, raw and %-encoded, in otherwise bad URLs.
      {"redis://u:Alpha7@Bravo9@h:99999", {"Alpha7", "Bravo9"}, R"(port "99999")"},
      {"redis://u:Alpha7:Bravo9@h:0", {"Alpha7", "Bravo9"}, R"(port "0")"},
      {"redis://u:Alpha7/Bravo9@h:1/x", {"Alpha7", "Bravo9"}, R"(database "x")"},
      {"redis://u:Alpha7/Bravo9@h:1,h:2", {"Alpha7", "Bravo9"}, "several hosts"},
      {"redis://u:Alpha7%2FBravo9@h:0", {"Alpha7", "Bravo9"}, R"(port "0")"},
      {"redis://u:Alpha7%40Bravo9@", {"Alpha7", "Bravo9"}, "missing host"},
      {"redis://u:Alpha7%zz@h:1", {"Alpha7"}, "bad %-escape in the password"},
      {"redis://u:Alpha7?Bravo9@h:1", {"Alpha7", "Bravo9"}, "%-encode"},
      {"redis://u:Alpha7#Bravo9@h:1", {"Alpha7", "Bravo9"}, "%-encode"},
      {"redis://h:1?password=Alpha7@Bravo9", {"Alpha7", "Bravo9"}, in_query},
      {"redis-cluster://u:Alpha7@h:1/0", {"Alpha7"}, "a cluster has no databases"},
      {"redis-cluster://u:Alpha7@a:1,,b:2", {"Alpha7"}, "empty host in the node list"},
      {"redis://u:Alpha7@[::1", {"Alpha7"}, "unterminated '['"},
      {"redis://u:Alpha7@::1:6379", {"Alpha7"}, "IPv6 hosts must be written in brackets"},
      {"redis://:@h:1", {}, "empty password"},
  };
  for (const auto& c : cases) {
    const auto message = error_of([&] { parse_url(c.text); }, errc::invalid_argument);
    EXPECT_EQ(message.rfind("invalid Redis URL \"", 0), 0u) << c.text << "\n" << message;
    EXPECT_NE(message.find(c.problem), std::string::npos) << c.text << "\n" << message;
    for (const auto& secret : c.secrets) {
      EXPECT_EQ(message.find(secret), std::string::npos) << c.text << "\n" << message;
    }
  }
  // The user name stays (it names who failed); the redacted URL still shows where.
  EXPECT_EQ(
      error_of([] { parse_url("redis://alice:Alpha7@h:1?password=x"); }, errc::invalid_argument),
      "invalid Redis URL \"redis://alice:***@h:1?password=***\": a password in the query "
      "string is not supported: write redis://[user]:password@host or set REDISCLI_AUTH");
}

// The same over generated URLs: passwords "Qz...Wy" with reserved characters inside, in the user
// info, where the port goes ("@host" missing) or in a query, behind good and bad schemes and hosts.
// (A password with an '@' whose "@host" is missing reads as password@host: not generated.)
TEST(RedisUrl, NoGeneratedBadUrlShowsItsPassword) {
  std::mt19937 rng(11);
  const auto pick = [&](const std::vector<std::string>& from) { return from[rng() % from.size()]; };
  const std::vector<std::string> schemes = {
      "redis://", "redis-cluster://", "redis:/", "redis:", "", "http://", "redis//", "REDIS://"};
  const std::vector<std::string> users = {"", "alice"};
  const std::vector<std::string> hosts = {"",         "h",       "h:1",    "h:0",  "[::1]:6379",
                                          "::1:6379", "h:1,h:2", "h:1,,h", "[::1", "h:x",
                                          ":6379",    "h:1/0",   "h:1/x"};
  const std::vector<std::string> tails = {"", "/", "/0", "/x", "?a=1", "#f", "?password="};
  const std::string reserved = "@:/?#,%[]=&";
  int errors = 0;
  for (int i = 0; i < 5000; ++i) {
    std::string password = "Qz";
    for (int n = rng() % 4; n > 0; --n) password += reserved[rng() % reserved.size()];
    password += "Wy";
    const auto scheme = pick(schemes);
    const auto user = pick(users);
    std::string text;
    switch (rng() % 3) {
      case 0:
        text = scheme + user + ":" + password + "@" + pick(hosts) + pick(tails);
        break;
      case 1:
        if (password.find('@') != std::string::npos) continue;
        text = scheme + user + ":" + password + pick(tails);
        break;
      default:
        text = scheme + user + (user.empty() ? "" : "@") + pick(hosts) + "?password=" + password;
    }
    try {
      parse_url(text);
    } catch (const error& e) {
      ++errors;
      const std::string message = e.what();
      ASSERT_EQ(message.find("Qz"), std::string::npos) << text << "\n" << message;
      ASSERT_EQ(message.find("Wy"), std::string::npos) << text << "\n" << message;
    }
  }
  EXPECT_GT(errors, 4000);
}

TEST(RedisUrl, PasswordsMayHoldReservedCharacters) {
  auto u = parse_url("redis://u:pa@ss@h:1");
  EXPECT_EQ(u.password, "pa@ss");
  EXPECT_EQ(u.nodes[0], (bloomkit::redis::endpoint{"h", 1}));
  u = parse_url("redis://u:pa/ss@h:1/2");
  EXPECT_EQ(u.user, "u");
  EXPECT_EQ(u.password, "pa/ss");
  EXPECT_EQ(u.db, 2);
  u = parse_url("redis://:pa:ss@h");
  EXPECT_EQ(u.user, "");
  EXPECT_EQ(u.password, "pa:ss");
  u = parse_url("redis://u:%3F%23%2F%40%3A%25@h");
  EXPECT_EQ(u.password, "?#/@:%");
  u = parse_url("redis-cluster://u:a,b/c@h:1,h:2");
  EXPECT_EQ(u.password, "a,b/c");
  EXPECT_EQ(u.nodes.size(), 2u);
}

// "redis://user:@host": an ACL user whose password comes from elsewhere (REDISCLI_AUTH); connecting
// without one is an error before any AUTH, never a silent connection as the default user.
TEST(RedisUrl, AUserWithoutAPasswordNeedsOne) {
  const auto u = parse_url("redis://alice:@h:1/2");
  EXPECT_EQ(u.user, "alice");
  EXPECT_EQ(u.password, "");
  EXPECT_EQ(u.db, 2);
  EXPECT_EQ(error_of([] { client::connect("redis://alice:@127.0.0.1:1"); }, errc::invalid_argument),
            "Redis URL \"redis://alice@127.0.0.1:1\" names user \"alice\" but no password: add it "
            "to the URL or set REDISCLI_AUTH");
}

// settings_from_environment: the URL given, else BLOOMKIT_REDIS_URL, else the default; the password
// from REDISCLI_AUTH when the URL has none. (setenv is safe here: one thread per test process.)
TEST(RedisUrl, SettingsFromTheEnvironment) {
  using bloomkit::redis::settings_from_environment;
  using bloomkit::test::scoped_env;
  {
    scoped_env env({{"BLOOMKIT_REDIS_URL", std::nullopt}, {"REDISCLI_AUTH", std::nullopt}});
    const auto s = settings_from_environment(std::nullopt);
    EXPECT_EQ(s.url.to_string(), "redis://127.0.0.1:6379");
    EXPECT_EQ(s.url.password, "");
    EXPECT_EQ(settings_from_environment("redis://h:1/3").url.to_string(), "redis://h:1/3");
  }
  {
    scoped_env env({{"BLOOMKIT_REDIS_URL", "redis://u:from-env-url@10.0.0.1:7000/2"},
                    {"REDISCLI_AUTH", std::nullopt}});
    auto s = settings_from_environment(std::nullopt);
    EXPECT_EQ(s.url.to_string(), "redis://u@10.0.0.1:7000/2");
    EXPECT_EQ(s.url.password, "from-env-url");
    s = settings_from_environment("redis://h:1");  // the URL given wins
    EXPECT_EQ(s.url.to_string(), "redis://h:1");
    EXPECT_EQ(s.url.password, "");
  }
  {
    scoped_env env({{"BLOOMKIT_REDIS_URL", ""}, {"REDISCLI_AUTH", ""}});  // empty: unset
    const auto s = settings_from_environment(std::nullopt);
    EXPECT_EQ(s.url.to_string(), "redis://127.0.0.1:6379");
    EXPECT_EQ(s.url.password, "");
  }
  {
    scoped_env env({{"BLOOMKIT_REDIS_URL", "redis-cluster://h:1,h:2"}, {"REDISCLI_AUTH", "envpw"}});
    EXPECT_EQ(settings_from_environment(std::nullopt).url.password, "envpw");
    EXPECT_TRUE(settings_from_environment(std::nullopt).url.cluster);
    EXPECT_EQ(settings_from_environment("redis://h:1").url.password, "envpw");
    EXPECT_EQ(settings_from_environment("redis://:in-url@h:1").url.password, "in-url");
    const auto alice = settings_from_environment("redis://alice:@h:1").url;
    EXPECT_EQ(alice.user, "alice");
    EXPECT_EQ(alice.password, "envpw");
  }
  {
    // A bad URL from the environment: the message names the variable, never the password.
    scoped_env env(
        {{"BLOOMKIT_REDIS_URL", "redis://u:Alpha7@h:99999"}, {"REDISCLI_AUTH", "Bravo9"}});
    const auto message =
        error_of([] { settings_from_environment(std::nullopt); }, errc::invalid_argument);
    EXPECT_EQ(message,
              R"(BLOOMKIT_REDIS_URL: invalid Redis URL "redis://u:***@h:99999": port "99999" is )"
              "not a number in 1-65535");
    EXPECT_EQ(
        error_of([] { settings_from_environment("redis://u:Alpha7@h:0"); }, errc::invalid_argument)
            .find("Alpha7"),
        std::string::npos);
  }
}

TEST(RedisUrl, ConnectRejectsBadUrlsAndOptionsBeforeConnecting) {
  EXPECT_EQ(
      error_of([] { client::connect("redis:/h"); }, errc::invalid_argument),
      R"(invalid Redis URL "redis:/h": expected redis://host:port or redis-cluster://host:port,...)");
  client_options options;
  options.command_timeout = 0ms;
  error_of([&] { client::connect("redis://127.0.0.1:1", options); }, errc::invalid_argument);
  options = {};
  options.max_retries = -1;
  error_of([&] { client::connect("redis://127.0.0.1:1", options); }, errc::invalid_argument);
}

// --- key slots -----------------------------------------------------------------------------

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

// --- authentication ------------------------------------------------------------------------

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

// --- faults --------------------------------------------------------------------------------

TEST(RedisFaults, UnreachablePortFailsFastNamingTheAddress) {
  const int port = closed_port();
  client_options options;
  options.max_retries = 1;
  options.retry_delay = 10ms;
  const auto start = clock_type::now();
  const auto message =
      error_of([&] { client::connect("redis://127.0.0.1:" + std::to_string(port), options); },
               errc::unreachable);
  EXPECT_LT(elapsed_ms(start), 1000);
  EXPECT_EQ(message, "cannot connect to Redis at 127.0.0.1:" + std::to_string(port) +
                         ": Connection refused (gave up after 1 retry)");
  const auto cluster_message = error_of(
      [&] {
        client::connect("redis-cluster://127.0.0.1:" + std::to_string(port) +
                            ",127.0.0.1:" + std::to_string(closed_port()),
                        options);
      },
      errc::unreachable);
  EXPECT_EQ(cluster_message.rfind("cannot load the slot map of redis-cluster://127.0.0.1:", 0), 0u)
      << cluster_message;
  EXPECT_TRUE(cluster_message.ends_with(": Connection refused (gave up after 1 retry)"))
      << cluster_message;
}

// The message docs/REDIS.md and docs/CLI.md quote, with the default options.
TEST(RedisFaults, ConnectFailureMessageIsTheDocumentedOne) {
  const int port = closed_port();
  const auto message = error_of(
      [&] { client::connect("redis://127.0.0.1:" + std::to_string(port)); }, errc::unreachable);
  EXPECT_EQ(message, "cannot connect to Redis at 127.0.0.1:" + std::to_string(port) +
                         ": Connection refused (gave up after 3 retries)");
}

TEST(RedisFaults, ConnectTimeoutIsHonored) {
  // A listener that never accepts, with its backlog filled: further connects hang in SYN_SENT.
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 0), 0);
  socklen_t len = sizeof addr;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  std::vector<int> fillers;
  for (int i = 0; i < 4; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    fillers.push_back(fd);
  }
  std::this_thread::sleep_for(50ms);
  client_options options;
  options.connect_timeout = 300ms;
  options.max_retries = 0;
  const auto start = clock_type::now();
  const auto message = error_of(
      [&] {
        client::connect("redis://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)), options);
      },
      errc::unreachable);
  const auto took = elapsed_ms(start);
  EXPECT_GE(took, 250);
  EXPECT_LT(took, 1500);
  EXPECT_NE(message.find("(connect timeout 300 ms)"), std::string::npos) << message;
  for (const int fd : fillers) ::close(fd);
  ::close(listener);
}

TEST(RedisFaults, RecoversAfterARestartWithoutANewClient) {
  BLOOMKIT_REQUIRE_REDIS();
  redis_server_options o;
  o.appendonly = true;
  redis_server server(o);
  client_options options;
  options.retry_delay = 20ms;
  auto c = client::connect(server.url(), options);
  c.execute(cmd({"SET", "survivor", "yes"}));

  server.stop();
  const auto start = clock_type::now();
  const auto message = error_of([&] { c.execute(cmd({"GET", "survivor"})); }, errc::unreachable);
  EXPECT_LT(elapsed_ms(start), 2000);
  EXPECT_EQ(
      message.rfind("cannot connect to Redis at " + server.address() + ": Connection refused", 0),
      0u)
      << message;
  EXPECT_NE(message.find("(gave up after 3 retries)"), std::string::npos) << message;
  // Still down: still a clear error, not a hang or a crash.
  error_of(
      [&] {
        c.execute_many(std::vector<command>(10, cmd({"GET", "survivor"})));
      },
      errc::unreachable);

  server.restart();
  EXPECT_EQ(c.execute(cmd({"GET", "survivor"})).str(), "yes");
  EXPECT_EQ(c.execute(cmd({"SET", "after", "restart"})).str(), "OK");
}

// --- a Redis Cluster -----------------------------------------------------------------------

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

// --- failover ------------------------------------------------------------------------------

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
