// End-to-end tests of window filters in Redis from the bloomkit tool (docs/CLI.md, "Window
// filters in Redis"): the real binary against a real redis-server, clocks set with --now.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_support.hpp"
#include "cli_with_redis.hpp"
#include "support/window_time.hpp"

namespace {

using namespace bloomkit::cli_test;

// Slices expire by the server's clock: test times lie ahead of it (support/window_time.hpp).
const std::uint64_t t0 = bloomkit::test::start_of_tomorrow();

std::string at_day(std::uint64_t days, std::uint64_t seconds = 0) {
  return std::to_string(t0 + days * 86400 + seconds);
}

class RedisWindowCli : public CliWithRedis {};

TEST_F(RedisWindowCli, CreateAddQueryInfoDrop) {
  EXPECT_TRUE(matches(ok(redis_args({"create", "seen", "--window", "7d", "--capacity", "100000",
                                     "--fpp", "0.01", "--slices", "7"})),
                      "created seen: 7 slices of {N} bits ({N} bytes), {N} hashes, 1 shards per "
                      "slice\n"));
  // Creating it again with the same parameters succeeds (every instance may run it).
  ok(redis_args({"create", "seen", "--window", "7d", "--capacity", "100000", "--fpp", "0.01",
                 "--slices", "7"}));
  EXPECT_EQ(ok(redis_args({"add", "seen", "a", "b", "--now", at_day(0)})),
            "added 2 new of 2 keys\n");
  EXPECT_EQ(ok(redis_args({"add", "seen", "a", "c", "--now", at_day(3)})),
            "added 1 new of 2 keys\n");
  EXPECT_EQ(ok(redis_args({"query", "seen", "a", "b", "c", "x", "--now", at_day(7, 86399)})),
            "1\ta\n1\tb\n1\tc\n0\tx\n");
  // Past W + W/S + skew after b's slice: forgotten; a was refreshed on day 3.
  EXPECT_EQ(ok(redis_args({"query", "seen", "a", "b", "--now", at_day(8, 11)})), "1\ta\n0\tb\n");
  EXPECT_EQ(ok(redis_args({"query", "seen", "--count", "--now", at_day(3)}), "a\nb\nc\nd\n"),
            "present=3 absent=1\n");
  const auto info = parse_lines(ok(redis_args({"info", "seen", "--now", at_day(3)})));
  EXPECT_EQ(info.at("kind"), "window");
  EXPECT_EQ(info.at("window"), "604800");
  EXPECT_EQ(info.at("slices"), "7");
  EXPECT_EQ(info.at("skew"), "10");
  EXPECT_EQ(info.at("current_slice"), std::to_string(t0 / 86400 + 3));
  EXPECT_EQ(info.at("live_slices"), "9");  // S + 1, and one more back for the skew
  EXPECT_EQ(info.at("slice_fill").substr(0, 1), "0");
  EXPECT_EQ(count_char(info.at("slice_ttl"), ' '), 8u);
  EXPECT_EQ(parse_flat_json(ok(redis_args({"info", "seen", "--json", "--now", at_day(3)})))
                .at("kind")
                .text,
            "window");
  // Without --now the clock is the system's: today, before t0, nothing was inserted yet.
  EXPECT_EQ(ok(redis_args({"query", "seen", "--count"}), "a\nb\nc\n"), "present=0 absent=3\n");
  EXPECT_EQ(ok(redis_args({"drop", "seen"})), "dropped seen\n");
  EXPECT_EQ(server_->raw({"DBSIZE"}).integer(), 0);
}

TEST_F(RedisWindowCli, PrintNewPrintsTheKeysNotSeenWithinTheWindow) {
  ok(redis_args({"create", "seen", "--window", "7d", "--capacity", "100000", "--fpp", "0.01",
                 "--slices", "7"}));
  result r = run(redis_args({"add", "seen", "--print-new", "--now", at_day(0)}), "u1\nu2\nu1\n");
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.out, "u1\nu2\n") << r;
  EXPECT_EQ(r.err, "added 2 new of 3 keys\n") << r;
  r = run(redis_args({"add", "seen", "u2", "u3", "--print-new", "--now", at_day(3)}));
  EXPECT_EQ(r.out, "u3\n") << r;
  // Day 9: u1 (day 0) is forgotten; u2 was refreshed on day 3.
  r = run(redis_args({"add", "seen", "--print-new", "--now", at_day(9)}), "u1\nu2\nu3\n");
  EXPECT_EQ(r.out, "u1\n") << r;
  EXPECT_EQ(r.err, "added 1 new of 3 keys\n") << r;
}

TEST_F(RedisWindowCli, TwoClientsWithClocksSecondsApart) {
  ok(redis_args({"create", "w", "--window", "1h", "--capacity", "1000", "--fpp", "0.01"}));
  // Slices of 450 s; the writer's clock 8 s ahead, at a slice boundary.
  const std::uint64_t boundary = t0 + 450;
  ok(redis_args({"add", "w", "k", "--now", std::to_string(boundary + 3)}));
  for (const std::uint64_t reader : {boundary - 5, boundary + 3600 - 8}) {
    EXPECT_EQ(ok(redis_args({"query", "w", "k", "--now", std::to_string(reader)})), "1\tk\n")
        << reader;
  }
}

// --slice-format bits makes a format-1 window (for clients before the words format) and --skew
// the clock difference its clients may have; both are stored in the meta and reported by info.
TEST_F(RedisWindowCli, SliceFormatAndSkewAreChosenAtCreate) {
  ok(redis_args({"create", "old", "--window", "1d", "--capacity", "1000", "--fpp", "0.01",
                 "--slices", "4", "--slice-format", "bits", "--skew", "60"}));
  EXPECT_EQ(server_->raw({"HGET", "old:meta", "format_version"}).str(), "1");
  EXPECT_EQ(server_->raw({"HGET", "old:meta", "skew"}).str(), "60");
  auto info = parse_lines(ok(redis_args({"info", "old", "--now", at_day(0)})));
  EXPECT_EQ(info.at("slice_format"), "bits");
  EXPECT_EQ(info.at("word_bits"), "0");
  EXPECT_EQ(info.at("skew"), "60");
  EXPECT_EQ(ok(redis_args({"add", "old", "a", "b", "--now", at_day(0, 100)})),
            "added 2 new of 2 keys\n");
  EXPECT_EQ(ok(redis_args({"query", "old", "a", "b", "x", "--now", at_day(1, 99)})),
            "1\ta\n1\tb\n0\tx\n");
  // Forgotten W + W/S + skew after the start of their slice (slice 0 of day 0: 0 .. 21600 s):
  // still found 59 s past W + W/S, as the skew of 60 (not the default 10) says.
  EXPECT_EQ(ok(redis_args({"query", "old", "a", "--now", at_day(1, 21600 + 59)})), "1\ta\n");
  EXPECT_EQ(ok(redis_args({"query", "old", "a", "--now", at_day(1, 21600 + 61)})), "0\ta\n");
  // Created again with the same parameters: opened as it is, whatever --slice-format says.
  ok(redis_args({"create", "old", "--window", "1d", "--capacity", "1000", "--fpp", "0.01",
                 "--slices", "4", "--skew", "60"}));
  EXPECT_EQ(server_->raw({"HGET", "old:meta", "format_version"}).str(), "1");
  // Another skew is another configuration.
  const result other = run(redis_args({"create", "old", "--window", "1d", "--capacity", "1000",
                                       "--fpp", "0.01", "--slices", "4", "--skew", "10"}));
  EXPECT_EQ(other.status, 1) << other;
  EXPECT_NE(other.err.find("skew 60 (asked 10)"), std::string::npos) << other;
  // The default: words, skew 10.
  ok(redis_args({"create", "new", "--window", "1d", "--capacity", "1000", "--fpp", "0.01"}));
  info = parse_lines(ok(redis_args({"info", "new", "--now", at_day(0)})));
  EXPECT_EQ(info.at("slice_format"), "words");
  EXPECT_EQ(info.at("word_bits"), "64");
  EXPECT_EQ(info.at("skew"), "10");
}

// A Redis window's slices do not grow: a burst past a slice's share is warned of as a static
// filter past its capacity is; the sized rate is not.
TEST_F(RedisWindowCli, ABurstPastASlicesShareWarns) {
  ok(redis_args({"create", "burst", "--window", "1h", "--capacity", "4000", "--fpp", "0.01",
                 "--slices", "4"}));
  ok(redis_args({"add", "burst", "--now", at_day(0)}), make_keys("steady", 1000));  // its share
  const result r =
      run(redis_args({"add", "burst", "--now", at_day(0, 60)}), make_keys("burst", 3000));
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_TRUE(matches(r.out, "added {N} new of 3000 keys\n")) << r;
  EXPECT_EQ(r.err.rfind("bloomkit: warning: redis window filter 'burst' (a window of capacity "
                        "4000) has a slice that holds about ",
                        0),
            0u)
      << r;
  EXPECT_NE(r.err.find("past its capacity 1000: its false-positive rate is now about "),
            std::string::npos)
      << r;
}

TEST_F(RedisWindowCli, BadWindowsAndCombinationsAreUsageErrors) {
  const std::vector<std::string> sizing = {"--capacity", "10", "--fpp", "0.01"};
  const auto create = [&](std::vector<std::string> extra) {
    auto args = redis_args({"create", "x"});
    args.insert(args.end(), sizing.begin(), sizing.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  };
  expect_usage_error(create({"--window", "1000"}),
                     "--window: '1000' is a count of inserts; a window filter in Redis is a "
                     "window of time (90s, 15m, 24h, 7d): its clients agree on the current slice "
                     "from their clocks alone",
                     "redis create");
  expect_usage_error(create({"--window", "7w"}),
                     "--window: '7w' is not a duration nor a count; give a duration (90s, 15m, "
                     "24h, 7d) or a count of inserts (1000000)",
                     "redis create");
  expect_usage_error(create({"--window", "4s", "--slices", "8"}),
                     "window filter: window of 4 seconds must be at least one per slice (8) and "
                     "at most 31622400000",
                     "redis create");
  expect_usage_error(create({"--slices", "8"}), "redis create: --slices applies only with --window",
                     "redis create");
  expect_usage_error(create({"--skew", "5"}), "redis create: --skew applies only with --window",
                     "redis create");
  expect_usage_error(create({"--slice-format", "bits"}),
                     "redis create: --slice-format applies only with --window", "redis create");
  expect_usage_error(create({"--window", "1h", "--slice-format", "bytes"}),
                     "--slice-format: bytes not in {words,bits}", "redis create");
  EXPECT_EQ(server_->raw({"DBSIZE"}).integer(), 0);
  ok(redis_args({"create", "native", "--capacity", "100", "--fpp", "0.01"}));
  expect_usage_error(run(redis_args({"query", "native", "a", "--now", "5"})),
                     "--now applies only to window filters; redis filter 'native' is not one",
                     "redis query");
  ok(redis_args({"create", "w", "--window", "1h", "--capacity", "1000", "--fpp", "0.01"}));
  // A window has no file form (docs/REDIS.md): pull refuses it, naming its kind, and writes
  // nothing.
  const result pulled = run(redis_args({"pull", "w", at("w.bf")}));
  expect_error_naming(pulled, "a window filter, not a native one");
  EXPECT_FALSE(exists("w.bf"));
  // Another configuration of an existing window: an error naming what differs.
  const result other =
      run(redis_args({"create", "w", "--window", "2h", "--capacity", "1000", "--fpp", "0.01"}));
  EXPECT_EQ(other.status, 1) << other;
  EXPECT_NE(other.err.find("window 3600 (asked 7200)"), std::string::npos) << other;
}

}  // namespace
