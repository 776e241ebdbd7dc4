// End-to-end tests of window filters in the bloomkit tool (docs/CLI.md, "Window filters"):
// create --kind window --window DURATION|COUNT [--slices S], add / query / info / size / build on
// them, --now on every command, and the usage errors of bad windows and combinations.

#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_support.hpp"

namespace {

using namespace bloomkit::cli_test;

class CliWindow : public Cli {
 protected:
  // A 7-day window in 7 slices of one day, created at t0.
  std::string week() {
    const std::string f = at("week.bf");
    ok({"create", f, "--kind", "window", "--capacity", "1000", "--fpp", "0.01", "--window", "7d",
        "--slices", "7", "--now", now(0)});
    return f;
  }
  static constexpr std::uint64_t t0 = 1'700'006'400;  // a day boundary: slice 19676
  static std::string now(std::uint64_t days, std::uint64_t seconds = 0) {
    return std::to_string(t0 + days * 86400 + seconds);
  }
};

TEST_F(CliWindow, KeysAreFoundForTheWindowAndForgottenAfterIt) {
  const std::string f = week();
  EXPECT_EQ(ok({"add", f, "a", "b", "--now", now(0)}), "added 2 new of 2 keys\n");
  EXPECT_EQ(ok({"add", f, "a", "c", "--now", now(3)}), "added 1 new of 2 keys\n");
  // Day 6, the last second of the window: all present.
  EXPECT_EQ(ok({"query", f, "a", "b", "c", "--now", now(6, 86399)}), "1\ta\n1\tb\n1\tc\n");
  // Day 7: b (day 0) lies in the boundary slice, still live (forgotten between W and W + W/S).
  EXPECT_EQ(ok({"query", f, "a", "b", "c", "--now", now(7, 86399)}), "1\ta\n1\tb\n1\tc\n");
  // Day 8: b's slice is gone; a was refreshed on day 3.
  EXPECT_EQ(ok({"query", f, "a", "b", "c", "--now", now(8)}), "1\ta\n0\tb\n1\tc\n");
  EXPECT_EQ(ok({"query", f, "a", "b", "c", "--now", now(10, 86399)}), "1\ta\n0\tb\n1\tc\n");
  EXPECT_EQ(ok({"query", f, "a", "b", "c", "--now", now(11)}), "0\ta\n0\tb\n0\tc\n");
  // Lookups never change the file; a clock behind the newest slice (day 0) hides nothing.
  EXPECT_EQ(ok({"query", f, "--count", "--now", now(0)}, "a\nb\nc\n"), "present=3 absent=0\n");
}

// The case: a 1 h window of 6 slices, 100 keys a minute for an hour, then one backfilled
// insert from the day before: refused naming the time, the file unchanged, every key present.
// A backfill into a live slice is stored; a millisecond time and a far-future one are refused.
TEST_F(CliWindow, TimeNeverErasesALiveSlice) {
  const std::string f = at("hour.bf");
  ok({"create", f, "--kind", "window", "--capacity", "6000", "--fpp", "0.01", "--window", "1h",
      "--slices", "6", "--now", now(0)});
  std::string all;
  for (std::uint64_t minute = 0; minute < 60; ++minute) {
    std::string prefix = std::to_string(minute);
    prefix += '-';
    const std::string keys = make_keys(prefix, 100);
    ok({"add", f, "--now", now(0, minute * 60)}, keys);
    all += keys;
  }
  const std::string before = read("hour.bf");
  const std::string yesterday = std::to_string(t0 + 59 * 60 - 86400);
  result r = run({"add", f, "late-event", "--now", yesterday});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("time " + yesterday + " is older than the window"), std::string::npos) << r;
  EXPECT_NE(r.err.find("not stored"), std::string::npos) << r;
  EXPECT_EQ(read("hour.bf"), before);
  EXPECT_EQ(ok({"query", f, "--count", "--now", now(0, 3599)}, all), "present=6000 absent=0\n");
  EXPECT_EQ(ok({"query", f, "--count", "--now", yesterday}, all), "present=6000 absent=0\n");
  // A backfill half an hour late is stored, in its own slice.
  r = run({"add", f, "late-but-live", "--now", now(0, 1800)});  // its slice: 1 past its share
  EXPECT_EQ(r.out, "added 1 new of 1 keys\n") << r;
  EXPECT_EQ(ok({"query", f, "late-but-live", "--now", now(0, 3599)}), "1\tlate-but-live\n");
  // Milliseconds, and a time a day ahead of the system clock without --clock-moved.
  const std::string ms = std::to_string((t0 + 3599) * 1000);
  r = run({"add", f, "k", "--now", ms});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("time " + ms + " looks like milliseconds"), std::string::npos) << r;
  const std::string ahead = std::to_string(static_cast<std::uint64_t>(std::time(nullptr)) + 86400);
  r = run({"add", f, "k", "--now", ahead});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("ahead of the system clock"), std::string::npos) << r;
  EXPECT_NE(r.err.find("--clock-moved"), std::string::npos) << r;
  EXPECT_EQ(ok({"query", f, "--count", "--now", now(0, 3599)}, all), "present=6000 absent=0\n");
  EXPECT_EQ(ok({"add", f, "k", "--now", ahead, "--clock-moved"}), "added 1 new of 1 keys\n");
  EXPECT_EQ(ok({"query", f, "k", "--now", ahead, "--clock-moved"}), "1\tk\n");
}

// A burst into one slice: a grouped window grows overflow parts (no warning, every key found,
// the FPP held); the sub-filter layout cannot grow, so add warns as it does for a static filter
// past its capacity.
TEST_F(CliWindow, ABurstGrowsAGroupedWindowAndWarnsOnTheSubFilterLayout) {
  const std::string f = at("burst.bf");
  ok({"create", f, "--kind", "window", "--capacity", "800", "--fpp", "0.01", "--window", "1h",
      "--slices", "4", "--now", now(0)});
  std::vector<std::uint64_t> added;
  const std::string line = ok({"add", f, "--now", now(0, 60)}, make_keys("burst", 800));
  ASSERT_TRUE(matches(line, "added {N} new of 800 keys\n", &added)) << line;
  EXPECT_GE(added[0], 790u);  // "new" misses only a false positive's worth
  EXPECT_EQ(ok({"query", f, "--count", "--now", now(0, 3599)}, make_keys("burst", 800)),
            "present=800 absent=0\n");
  std::vector<std::uint64_t> counts;
  const std::string others =
      ok({"query", f, "--count", "--now", now(0, 3599)}, make_keys("other", 2000));
  ASSERT_TRUE(matches(others, "present={N} absent={N}\n", &counts)) << others;
  EXPECT_LE(counts[0], 50u);  // p = 1%: 20 expected of 2000

  const std::string old = at("old-burst.bf");
  bloomkit::save(
      bloomkit::blocked_window_filter({800, 0.01, 3600, bloomkit::window_unit::seconds, 4}), old);
  const result r = run({"add", old, "--now", now(0, 60)}, make_keys("burst", 600));
  EXPECT_EQ(r.status, 0) << r;
  const std::string warning =
      "bloomkit: warning: '" + old + "' (a window of capacity 800) has a slice that holds about ";
  ASSERT_EQ(r.err.rfind(warning, 0), 0u) << r;
  std::vector<std::uint64_t> held;
  ASSERT_TRUE(
      matches(r.err.substr(warning.size(), r.err.find(',') - warning.size()), "{N} keys", &held))
      << r;
  EXPECT_GT(held[0], 500u) << r;  // 600 keys, less any whose bits were all set already
  EXPECT_NE(r.err.find("past its capacity 200: its false-positive rate is now about "),
            std::string::npos)
      << r;
}

// add --print-new: a pipeline's dedup within the window. stdout holds the keys that were new (in
// input order, a repeat within the input once), stderr the result line; a key seen within the
// window is not printed, one forgotten after it is again.
TEST_F(CliWindow, PrintNewPrintsTheKeysNotSeenWithinTheWindow) {
  const std::string f = week();
  result r = run({"add", f, "--print-new", "--now", now(0)}, "u1\nu2\nu1\nu3\n");
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.out, "u1\nu2\nu3\n") << r;
  EXPECT_EQ(r.err, "added 3 new of 4 keys\n") << r;
  r = run({"add", f, "u2", "u4", "--print-new", "--now", now(3)});
  EXPECT_EQ(r.out, "u4\n") << r;
  // Day 9: u1 and u3 (day 0) are forgotten; u2 was refreshed on day 3, u4 came on day 3.
  r = run({"add", f, "--print-new", "--now", now(9)}, "u1\nu2\nu3\nu4\nu5\n");
  EXPECT_EQ(r.out, "u1\nu3\nu5\n") << r;
  EXPECT_EQ(r.err, "added 3 new of 5 keys\n") << r;
  EXPECT_EQ(ok({"query", f, "--count", "--now", now(9)}, "u1\nu2\nu3\nu4\nu5\n"),
            "present=5 absent=0\n");
  // Every kind answers per key: a classic filter prints a key the first time only.
  const std::string c = at("set.bf");
  ok({"create", c, "--capacity", "1000", "--fpp", "0.01"});
  r = run({"add", c, "--print-new"}, "x\ny\nx\n");
  EXPECT_EQ(r.out, "x\ny\n") << r;
  r = run({"add", c, "--print-new", "y", "z"});
  EXPECT_EQ(r.out, "z\n") << r;
  EXPECT_EQ(r.err, "added 1 new of 2 keys\n") << r;
}

TEST_F(CliWindow, InfoShowsTheWindowSlicesAndFillPerSlice) {
  const std::string f = week();
  ok({"add", f, "--now", now(1)}, make_keys("w", 100));
  const auto info = parse_lines(ok({"info", f, "--now", now(2)}));
  EXPECT_EQ(info.at("kind"), "window");
  EXPECT_EQ(info.at("window"), "604800");
  EXPECT_EQ(info.at("window_unit"), "seconds");
  EXPECT_EQ(info.at("slices"), "7");
  EXPECT_EQ(info.at("current_slice"), std::to_string(t0 / 86400 + 2));
  EXPECT_EQ(info.at("inserted"), "100");
  // Newest first: today's slice empty, yesterday's with the 100 keys, older ones empty.
  const std::string fill = info.at("slice_fill");
  EXPECT_EQ(fill.substr(0, 9), "0.000000 ");
  EXPECT_NE(fill.substr(9, 8), "0.000000");
  EXPECT_EQ(count_char(fill, ' '), 7u);  // 8 live slices
  const auto json = parse_flat_json(ok({"info", f, "--json", "--now", now(2)}));
  EXPECT_EQ(json.at("slices").text, "7");
  EXPECT_EQ(parse_lines(ok({"info", f, "--now", now(9)})).at("inserted"), "0");
}

// Files of the older layout (S + 1 blocked sub-filters, scheme xxh3-64-split-block) work as the
// grouped ones do, stay in their layout, and `info` shows the same fields for both.
TEST_F(CliWindow, SubFilterLayoutFilesWorkAsBefore) {
  const std::string f = at("old.bf");
  bloomkit::save(
      bloomkit::blocked_window_filter({1000, 0.01, 7 * 86400, bloomkit::window_unit::seconds, 7}),
      f);
  EXPECT_EQ(ok({"add", f, "a", "b", "--now", now(0)}), "added 2 new of 2 keys\n");
  EXPECT_EQ(ok({"add", f, "a", "c", "--now", now(3)}), "added 1 new of 2 keys\n");
  EXPECT_EQ(ok({"query", f, "a", "b", "c", "--now", now(7, 86399)}), "1\ta\n1\tb\n1\tc\n");
  EXPECT_EQ(ok({"query", f, "a", "b", "c", "--now", now(8)}), "1\ta\n0\tb\n1\tc\n");
  EXPECT_EQ(bloomkit::read_header(f).scheme, bloomkit::hash_scheme::xxh3_64_split_block);
  const std::string g = week();
  EXPECT_EQ(bloomkit::read_header(g).scheme, bloomkit::hash_scheme::xxh3_128_window_groups);
  ok({"add", g, "a", "b", "--now", now(0)});
  const auto old_info = parse_lines(ok({"info", f, "--now", now(3)}));
  const auto new_info = parse_lines(ok({"info", g, "--now", now(3)}));
  std::vector<std::string> old_fields;
  std::vector<std::string> new_fields;
  for (const auto& [name, value] : old_info) old_fields.push_back(name);
  for (const auto& [name, value] : new_info) new_fields.push_back(name);
  EXPECT_EQ(old_fields, new_fields);
  for (const char* same : {"kind", "window", "window_unit", "slices", "current_slice"}) {
    EXPECT_EQ(old_info.at(same), new_info.at(same)) << same;
  }
  EXPECT_EQ(count_char(old_info.at("slice_fill"), ' '), 7u);
}

TEST_F(CliWindow, CountWindowKeepsTheLastInserts) {
  const std::string f = at("count.bf");
  ok({"create", f, "--kind", "window", "--capacity", "100", "--fpp", "0.01", "--window", "100",
      "--slices", "4"});
  ok({"add", f}, make_keys("old", 100));
  ok({"add", f}, make_keys("new", 100));  // slices of 25 inserts: slices 4..8 live, 0..3 gone
  EXPECT_EQ(ok({"query", f, "--count"}, make_keys("new", 100)), "present=100 absent=0\n");
  const std::string old = ok({"query", f, "--count"}, make_keys("old", 100));
  std::vector<std::uint64_t> counts;
  ASSERT_TRUE(matches(old, "present={N} absent={N}\n", &counts)) << old;
  EXPECT_LT(counts[0], 10u);
  const auto info = parse_lines(ok({"info", f}));
  EXPECT_EQ(info.at("window_unit"), "inserts");
  EXPECT_EQ(info.at("insert_count"), "200");
}

TEST_F(CliWindow, SizeAndBuildMakeWindows) {
  const auto shown = parse_lines(
      ok({"size", "--kind", "window", "--capacity", "1000", "--fpp", "0.01", "--window", "24h"}));
  EXPECT_EQ(shown.at("window"), "86400");
  EXPECT_EQ(shown.at("slices"), "8");
  write("keys.txt", make_keys("b", 500));
  ok({"build", at("b.bf"), "--kind", "window", "--fpp", "0.01", "--window", "1h", "--now", now(0),
      at("keys.txt")});
  EXPECT_EQ(ok({"query", at("b.bf"), "--count", "--now", now(0, 3599)}, read("keys.txt")),
            "present=500 absent=0\n");
}

TEST_F(CliWindow, BadWindowsAreUsageErrorsNamingTheProblem) {
  const std::vector<std::string> create = {"create", at("x.bf"), "--capacity",
                                           "10",     "--fpp",    "0.01"};
  const auto with = [&](std::vector<std::string> extra) {
    auto args = create;
    args.insert(args.end(), extra.begin(), extra.end());
    return run(args);
  };
  const std::string hint = "; give a duration (90s, 15m, 24h, 7d) or a count of inserts (1000000)";
  expect_usage_error(with({"--kind", "window", "--window", "15x"}),
                     "--window: '15x' is not a duration nor a count" + hint, "create");
  expect_usage_error(with({"--kind", "window", "--window", "0s"}),
                     "--window: '0s' is not in 1..31622400000 seconds" + hint, "create");
  expect_usage_error(with({"--kind", "window", "--window", "99999999d"}),
                     "--window: '99999999d' is not in 1..366000 days" + hint, "create");
  expect_usage_error(with({"--kind", "window"}),
                     "--kind window needs --window DURATION|COUNT (90s, 15m, 24h, 7d, or a number "
                     "of inserts)",
                     "create");
  expect_usage_error(with({"--window", "7d"}), "--window applies only to --kind window", "create");
  expect_usage_error(with({"--kind", "scalable", "--slices", "4"}),
                     "--slices applies only to --kind window", "create");
  expect_usage_error(with({"--kind", "window", "--window", "5s", "--slices", "8"}),
                     "window filter: window of 5 seconds must be at least one per slice (8) and "
                     "at most 31622400000",
                     "create");
  EXPECT_FALSE(exists("x.bf"));
  ok({"create", at("c.bf"), "--capacity", "10", "--fpp", "0.01"});
  expect_usage_error(
      run({"query", at("c.bf"), "a", "--now", "5"}),
      "--now applies only to window filters; '" + at("c.bf") + "' holds a classic filter", "query");
}

}  // namespace
