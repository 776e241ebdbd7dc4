// Redis URLs (bloomkit/redis/url.hpp) without a server: single-server and cluster URLs, bad URLs
// named by their problem and never showing a password, settings from BLOOMKIT_REDIS_URL and
// REDISCLI_AUTH, and options connect refuses before connecting.
#include "bloomkit/redis/url.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "client_fixtures.hpp"
#include "support/scoped_env.hpp"

namespace {

using namespace bloomkit::redis_client_test;
using bloomkit::error;
using bloomkit::redis::parse_url;

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

}  // namespace
