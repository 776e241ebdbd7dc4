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
  for (int i = first; i < first + count; ++i) out += "k" + std::to_string(i) + "\n";
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

TEST_F(CapacityWarning, BuildWarnsExactlyWhenItPassesTheCapacity) {
  for (const char* kind : {"classic", "blocked", "counting"}) {
    const std::string f = at(std::string(kind) + ".bf");
    // Exactly the capacity: silent.
    auto r = run({"build", f, "--capacity", "20", "--fpp", "0.01", "--kind", kind}, numbered(0, 20),
                 stdin_kind::pipe);
    EXPECT_EQ(r.status, 0) << r;
    EXPECT_EQ(r.err, "") << kind;
    // One key more: the warning, and the filter is still written.
    r = run({"build", f, "--capacity", "20", "--fpp", "0.01", "--kind", kind}, numbered(0, 21),
            stdin_kind::pipe);
    expect_warning(r, f, 20);
    EXPECT_EQ(run({"query", f, "k20"}).out, "1\tk20\n") << kind;
  }
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
