// bloomkit::redis::client through Redis Sentinel (redis-sentinel://) against real processes: a
// master, two replicas and three sentinels. Discovery, the sentinels' password, and a failover
// in the middle of a filter's inserts: every insert that WAIT acknowledged is there afterwards,
// and the same client carries on with the promoted replica.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "bloomkit/error.hpp"
#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/redis/url.hpp"
#include "redis/client/client_stats.hpp"
#include "support/errors.hpp"
#include "support/redis_sentinel.hpp"

namespace {

using namespace std::chrono_literals;
using bloomkit::errc;
using bloomkit::redis::client;
using bloomkit::redis::client_options;
using bloomkit::redis::parse_url;
using bloomkit::redis::redis_filter;
using bloomkit::redis::detail::stats_of;
using bloomkit::test::error_of;
using bloomkit::test::redis_sentinel_options;
using bloomkit::test::redis_sentinels;

// Retries that outlast a failover (down-after 1 s plus the election): 50 ms doubling, 8 times.
client_options riding_through_failovers() {
  client_options o;
  o.max_retries = 8;
  o.retry_delay = 50ms;
  return o;
}

TEST(RedisSentinel, FindsTheMasterAndChecksItsRole) {
  BLOOMKIT_REQUIRE_REDIS();
  redis_sentinel_options options;
  options.replicas = 1;
  options.sentinel_password = "Watch3rs";
  redis_sentinels group(options);
  auto target = parse_url(group.url());
  // The sentinels want a password: without it, a clear error naming them and the variable.
  const auto message = error_of([&] { client::connect(target); }, errc::auth_failed);
  EXPECT_NE(message.find("Sentinel at " + group.sentinel(0).address()), std::string::npos)
      << message;
  EXPECT_NE(message.find("BLOOMKIT_SENTINEL_AUTH"), std::string::npos) << message;
  target.sentinel_password = "Watch3rs";
  auto c = client::connect(target);
  EXPECT_EQ(c.masters(), std::vector<std::string>{group.node(group.master()).address()});
  EXPECT_EQ(c.execute({{"SET", "k", "v"}}).str(), "OK");
  EXPECT_EQ(group.node(group.master()).raw({"GET", "k"}).str(), "v");
  EXPECT_EQ(stats_of(c).master_lookups, 1u);
  // A master name the sentinels do not know.
  auto unknown = target;
  unknown.master_name = "other";
  client_options quick;
  quick.max_retries = 0;
  EXPECT_NE(error_of([&] { client::connect(unknown, quick); }, errc::unreachable)
                .find("knows no master named \"other\""),
            std::string::npos);
}

TEST(RedisSentinel, AFailoverMidAddLosesNoAcknowledgedKey) {
  BLOOMKIT_REQUIRE_REDIS();
  redis_sentinels group;
  auto c = client::connect(group.url(), riding_through_failovers());
  bloomkit::redis::filter_options wait_for_one;
  wait_for_one.wait_replicas = 1;
  wait_for_one.wait_timeout = 2000ms;
  auto filter = redis_filter::create(c, "ha", 200'000, 0.01, 27, wait_for_one);

  std::vector<std::string> acknowledged;  // keys of batches whose insert (and WAIT) returned
  std::atomic<int> batches{0};
  std::atomic<bool> failed_over{false};
  int after_failover = 0;
  int errors = 0;
  std::jthread writer([&] {
    for (int b = 0; b < 2000 && after_failover < 20; ++b) {
      std::vector<std::string> keys;
      for (int i = 0; i < 50; ++i) keys.push_back("key-" + std::to_string(b * 50 + i));
      const std::vector<std::string_view> views(keys.begin(), keys.end());
      try {
        filter.insert_many(views);
        acknowledged.insert(acknowledged.end(), keys.begin(), keys.end());
        if (failed_over) ++after_failover;
      } catch (const bloomkit::error&) {
        ++errors;  // during the failover: not acknowledged, so not counted on
      }
      ++batches;
    }
  });
  while (batches < 20) std::this_thread::sleep_for(5ms);
  const auto promoted = group.kill_master();
  failed_over = true;
  writer.join();

  EXPECT_EQ(after_failover, 20) << "the client did not carry on after the failover";
  EXPECT_EQ(c.masters(), std::vector<std::string>{group.node(promoted).address()});
  EXPECT_GE(stats_of(c).master_lookups, 2u);
  EXPECT_LE(errors, 5) << "the retries should outlast most of the failover";
  auto reader = client::connect(group.url());
  auto check = redis_filter::open(reader, "ha");
  const std::vector<std::string_view> views(acknowledged.begin(), acknowledged.end());
  std::unique_ptr<bool[]> found(new bool[views.size()]);
  check.contains_many(views, {found.get(), views.size()});
  std::size_t missing = 0;
  for (std::size_t i = 0; i < views.size(); ++i) missing += found[i] ? 0 : 1;
  EXPECT_EQ(missing, 0u) << "of " << views.size() << " acknowledged keys";
}

#ifdef BLOOMKIT_EXE
// The CLI with a sentinel URL (rediss-sentinel:// and --tls-ca under TLS): create, add, query.
TEST(RedisSentinel, TheCliFollowsTheSentinels) {
  BLOOMKIT_REQUIRE_REDIS();
  redis_sentinel_options options;
  options.replicas = 1;
  redis_sentinels group(options);
  bloomkit::test::temp_dir dir;
  std::string flags = "--url '" + group.url() + "'";
  if (bloomkit::test::tls_by_default()) {
    flags += " --tls-ca '" + bloomkit::test::tls_certificates::shared().ca().string() + "'";
  }
  auto run = [&](const std::string& args) {
    const auto out = dir / "out.txt";
    const std::string line = std::string("'") + BLOOMKIT_EXE + "' redis " + flags + " " + args +
                             " > '" + out.string() + "' 2>&1";
    const int status = std::system(line.c_str());
    std::stringstream text;
    text << std::ifstream(out).rdbuf();
    EXPECT_EQ(status, 0) << line << "\n" << text.str();
    return text.str();
  };
  run("create ids --capacity 1000 --fpp 0.01");
  run("add ids a b c");
  const auto answers = run("query ids a b c");
  EXPECT_NE(answers.find("a"), std::string::npos) << answers;
  EXPECT_EQ(group.node(group.master()).raw({"EXISTS", "ids:meta"}).integer(), 1);
}
#endif

}  // namespace
