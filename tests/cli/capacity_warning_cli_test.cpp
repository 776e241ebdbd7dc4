// build and add warn on stderr, in one line, once a filter holds more keys than its capacity
// (issue 11, item 7); never for a scalable filter, which grows instead. The command still
// succeeds: the warning is advice, the filter is saved.

#include <regex>
#include <string>

#include "cli_support.hpp"

namespace bloomkit::cli_test {
namespace {

// "k0\nk1\n...": `count` distinct keys from `first` on.
std::string numbered(int first, int count) {
  std::string out;
  for (int i = first; i < first + count; ++i) {
    out += 'k';
    out += std::to_string(i);
    out += '\n';
  }
  return out;
}

// The one warning line for `file` at capacity `capacity` and target 0.01.
void expect_warning(const result& r, const std::string& file, int capacity) {
  EXPECT_EQ(r.status, 0) << r;
  const std::regex line("bloomkit: warning: '" + file + "' holds about [0-9]+ keys, past its " +
                        "capacity " + std::to_string(capacity) +
                        ": its false-positive rate is now about [0-9.e+-]+ \\(target 0\\.01\\)\n");
  EXPECT_TRUE(std::regex_match(r.err, line)) << r;
}

class CapacityWarning : public Cli {};

// "Holds" is the filter's own count of inserts that changed it (info's `inserted`): a key that
// was a false positive when inserted changed nothing and does not count.
TEST_F(CapacityWarning, BuildWarnsExactlyWhenItPassesTheCapacity) {
  for (const char* kind : {"classic", "blocked"}) {
    const std::string f = at(std::string(kind) + ".bf");
    const auto build = [&](int keys) {
      return run({"build", f, "--capacity", "20", "--fpp", "0.01", "--kind", kind},
                 numbered(0, keys), stdin_kind::pipe);
    };
    // Exactly the capacity: silent.
    auto r = build(20);
    EXPECT_EQ(r.status, 0) << r;
    EXPECT_EQ(r.err, "") << kind;
    // One key more: the warning when it changed the filter, and the filter is still written.
    r = build(21);
    if (std::stoul(parse_lines(ok({"info", f})).at("inserted")) > 20) {
      expect_warning(r, f, 20);
    } else {
      EXPECT_EQ(r.err, "") << kind;
    }
    EXPECT_EQ(run({"query", f, "k20"}).out, "1\tk20\n") << kind;
    expect_warning(build(30), f, 20);
  }
}

// A counting filter counts repeats too (each needs a remove): it warns by the distinct keys its
// counters show, so adding its keys again is not passing its capacity.
TEST_F(CapacityWarning, CountingFiltersWarnByTheirDistinctKeys) {
  const std::string f = at("c.bf");
  // Every key twice: 200 inserts of 100 keys.
  ok({"build", f, "--capacity", "100", "--fpp", "0.01", "--kind", "counting"},
     numbered(0, 100) + numbered(0, 100), stdin_kind::pipe);
  EXPECT_EQ(parse_lines(ok({"info", f})).at("inserted"), "200");
  expect_warning(run({"add", f}, numbered(100, 100)), f, 100);
}

TEST_F(CapacityWarning, AddWarnsOnceTheFilterHoldsMoreThanItsCapacity) {
  const std::string f = at("f.bf");
  ok({"create", f, "--capacity", "10", "--fpp", "0.01"});
  auto r = run({"add", f}, numbered(0, 10));
  EXPECT_EQ(r.out, "added 10 new of 10 keys\n") << r;
  EXPECT_EQ(r.err, "");
  r = run({"add", f, "k10"});
  EXPECT_EQ(r.out, "added 1 new of 1 keys\n") << r;
  expect_warning(r, f, 10);
  // Still past it: every add says so.
  expect_warning(run({"add", f, "k3"}), f, 10);
}

TEST_F(CapacityWarning, ASaturatedFilterReportsARateOfAboutOne) {
  const std::string f = at("f.bf");
  ok({"create", f, "--capacity", "10", "--fpp", "0.01"});
  const result r = run({"add", f}, numbered(0, 2000));
  expect_warning(r, f, 10);
  EXPECT_NE(r.err.find("its false-positive rate is now about 1 (target"), std::string::npos) << r;
  EXPECT_EQ(parse_lines(ok({"info", f})).at("estimated_fpp"), "1");
}

TEST_F(CapacityWarning, ScalableFiltersGrowAndNeverWarn) {
  const std::string f = at("s.bf");
  auto r = run({"build", f, "--capacity", "10", "--fpp", "0.01", "--kind", "scalable"},
               numbered(0, 500), stdin_kind::pipe);
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.err, "");
  r = run({"add", f}, numbered(500, 500));
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.err, "");
}

}  // namespace
}  // namespace bloomkit::cli_test
