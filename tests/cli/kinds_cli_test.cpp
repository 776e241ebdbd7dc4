// End-to-end tests of the filter kinds in the bloomkit tool (docs/CLI.md "Filter kinds"):
// create / build / size --kind, and add, query, info and merge on files of every kind; remove for
// counting filters and its errors for the others.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bloomkit/bloomkit.hpp"
#include "cli_support.hpp"

namespace {

using namespace bloomkit::cli_test;

// Every kind `--kind` accepts.
const std::vector<std::string> all_kinds = {"classic", "blocked", "counting", "scalable"};

class CliKinds : public Cli, public ::testing::WithParamInterface<std::string> {};

TEST_P(CliKinds, CreateAddQueryInfo) {
  const std::string kind = GetParam();
  const std::string f = at(kind + ".bf");
  std::vector<std::uint64_t> numbers;
  EXPECT_TRUE(matches(ok({"create", f, "--capacity", "1000", "--fpp", "0.01", "--kind", kind}),
                      "created " + f + ": {N} bits, {N} bytes, {N} hashes\n", &numbers));
  const auto info = parse_lines(ok({"info", f}));
  EXPECT_EQ(info.at("kind"), kind);
  EXPECT_EQ(info.at("bits"), std::to_string(numbers[0]));
  EXPECT_EQ(info.at("inserted"), "0");

  const std::string keys = make_keys(kind, 1000);
  // A key that is a false positive when added is not new: a few of 1000 at p = 0.01.
  std::vector<std::uint64_t> added;
  ASSERT_TRUE(matches(ok({"add", f}, keys), "added {N} new of 1000 keys\n", &added));
  EXPECT_GE(added[0], 970u);
  EXPECT_EQ(ok({"add", f}, keys), "added 0 new of 1000 keys\n");
  EXPECT_EQ(ok({"query", f, "--count"}, keys), "present=1000 absent=0\n");
  // Absent keys: at p = 0.01 about 10 of 1000 are false positives; 60 is far out of bounds.
  const std::string answer = ok({"query", f, "--count"}, make_keys(kind + "-absent", 1000));
  std::vector<std::uint64_t> counts;
  ASSERT_TRUE(matches(answer, "present={N} absent={N}\n", &counts)) << answer;
  EXPECT_LT(counts[0], 60u) << answer;
  EXPECT_EQ(parse_flat_json(ok({"info", f, "--json"})).at("kind").text, kind);
}

TEST_P(CliKinds, BuildFindsEveryKey) {
  const std::string kind = GetParam();
  write("keys.txt", make_keys("build", 5000));
  const std::string f = at("built.bf");
  EXPECT_TRUE(matches(ok({"build", f, "--fpp", "0.01", "--kind", kind, at("keys.txt")}),
                      "built " + f + ": 5000 keys read, {N} new, in {S} s\n"));
  EXPECT_EQ(ok({"query", f, "--count", "-"}, read("keys.txt")), "present=5000 absent=0\n");
  EXPECT_EQ(parse_lines(ok({"info", f})).at("kind"), kind);
}

// `size --kind K` shows what `create --kind K` makes (docs/CLI.md, "size"): the same bits,
// bytes and hashes, for tiny to large filters, and the kind's own fields after them.
TEST_P(CliKinds, SizeShowsWhatCreateMakes) {
  const std::string kind = GetParam();
  for (const std::string capacity : {"1", "1000", "1000000"}) {
    for (const std::string fpp : {"0.1", "0.001"}) {
      const std::vector<std::string> sizing = {"--capacity", capacity, "--fpp",
                                               fpp,          "--kind", kind};
      std::vector<std::string> create = {"create", at("s.bf")};
      create.insert(create.end(), sizing.begin(), sizing.end());
      std::vector<std::uint64_t> made;
      ASSERT_TRUE(matches(ok(create),
                          "created " + at("s.bf") + ": {N} bits, {N} bytes, {N} hashes\n", &made));
      std::vector<std::string> size = {"size"};
      size.insert(size.end(), sizing.begin(), sizing.end());
      const auto shown = parse_lines(ok(size));
      const std::string what = kind + " " + capacity + " " + fpp;
      EXPECT_EQ(shown.at("capacity"), capacity) << what;
      EXPECT_EQ(shown.at("fpp"), fpp) << what;
      EXPECT_EQ(shown.at("bits"), std::to_string(made[0])) << what;
      EXPECT_EQ(shown.at("bytes"), std::to_string(made[1])) << what;
      EXPECT_EQ(shown.at("hashes"), std::to_string(made[2])) << what;
      size.push_back("--json");
      const auto json = parse_flat_json(ok(size));
      EXPECT_EQ(json.at("bits").text, std::to_string(made[0])) << what;
      EXPECT_EQ(json.size(), shown.size()) << what;
      if (kind == "blocked") {
        EXPECT_EQ(shown.size(), 10u) << what;
        EXPECT_EQ(shown.at("blocks"), std::to_string(made[0] / 256)) << what;
        // The layout k names (docs/VARIANTS.md, "Layouts at every p") and its price.
        EXPECT_EQ(shown.at("layout"), made[2] == 8    ? "split-block"
                                      : made[2] == 16 ? "two-line"
                                                      : "one-line")
            << what;
        const double ratio = std::stod(shown.at("classic_ratio"));
        EXPECT_NEAR(ratio, static_cast<double>(made[0]) / std::stod(shown.at("classic_bits")), 1e-9)
            << what;
        if (capacity == "1000000") {
          EXPECT_LE(ratio, 1.15) << what;
        }
      } else if (kind == "scalable") {
        EXPECT_EQ(shown.size(), 8u) << what;
        EXPECT_EQ(shown.at("growth"), "2") << what;
        EXPECT_EQ(shown.at("tightening"), "0.5") << what;
        EXPECT_EQ(shown.at("memory_ceiling"), "0") << what;
      } else {
        EXPECT_EQ(shown.size(), 5u) << what;
      }
    }
  }
}

TEST_P(CliKinds, RemoveOnlyFromCountingFilters) {
  const std::string kind = GetParam();
  const std::string f = at("r.bf");
  ok({"create", f, "--capacity", "100", "--fpp", "0.01", "--kind", kind});
  ok({"add", f, "a", "b"});
  const result r = run({"remove", f, "a", "zzz"});
  if (kind == "counting") {
    EXPECT_EQ(r.status, 0) << r;
    EXPECT_EQ(r.out, "removed 1 of 2 keys\n") << r;
    EXPECT_EQ(ok({"query", f, "a", "b"}), "0\ta\n1\tb\n");
  } else {
    EXPECT_EQ(r.status, 1) << r;
    EXPECT_EQ(r.err, "bloomkit: error: '" + f + "' holds a " + kind +
                         " filter; only counting and cuckoo filters can remove keys\n")
        << r;
    EXPECT_EQ(ok({"query", f, "a", "b"}), "1\ta\n1\tb\n");
  }
}

TEST_P(CliKinds, MergeWithinAKindAndNotAcross) {
  const std::string kind = GetParam();
  const std::string a = at("a.bf");
  const std::string b = at("b.bf");
  for (const std::string& f : {a, b}) {
    ok({"create", f, "--capacity", "1000", "--fpp", "0.01", "--kind", kind});
  }
  ok({"add", a}, make_keys("a", 100));
  ok({"add", b}, make_keys("b", 100));
  const result merged = run({"merge", at("u.bf"), a, b});
  if (kind == "scalable") {
    EXPECT_EQ(merged.status, 1) << merged;
    EXPECT_EQ(merged.err, "bloomkit: error: '" + a +
                              "' holds a scalable filter: filters of this kind cannot be merged\n")
        << merged;
  } else {
    EXPECT_EQ(merged.status, 0) << merged;
    EXPECT_EQ(ok({"query", at("u.bf"), "--count"}, make_keys("a", 100) + make_keys("b", 100)),
              "present=200 absent=0\n");
  }
  for (const std::string& other : all_kinds) {
    if (other == kind) continue;
    const std::string o = at("other.bf");
    ok({"create", o, "--capacity", "1000", "--fpp", "0.01", "--kind", other});
    const result r = run({"merge", at("x.bf"), a, o});
    EXPECT_EQ(r.status, 1) << r;
    EXPECT_EQ(r.err, "bloomkit: error: '" + a + "' and '" + o + "' are incompatible: '" + a +
                         "' holds a " + kind + " filter, '" + o + "' holds a " + other +
                         " filter\n")
        << r;
    EXPECT_FALSE(exists("x.bf"));
  }
}

INSTANTIATE_TEST_SUITE_P(, CliKinds, ::testing::ValuesIn(all_kinds),
                         [](const auto& info) { return info.param; });

TEST_F(Cli, KindDefaultsToClassicAndUnknownKindsAreUsageErrors) {
  ok({"create", at("d.bf"), "--capacity", "100", "--fpp", "0.01"});
  ok({"create", at("c.bf"), "--capacity", "100", "--fpp", "0.01", "--kind", "classic"});
  EXPECT_EQ(read("d.bf"), read("c.bf"));
  const result r =
      run({"create", at("x.bf"), "--capacity", "100", "--fpp", "0.01", "--kind", "quotient"});
  EXPECT_EQ(r.status, 2) << r;
  EXPECT_NE(r.err.find("--kind: quotient not in {"), std::string::npos) << r;
  EXPECT_FALSE(exists("x.bf"));
}

TEST_F(Cli, ScalableGrowsPastItsCapacity) {
  const std::string f = at("s.bf");
  ok({"create", f, "--capacity", "100", "--fpp", "0.01", "--kind", "scalable", "--growth", "4",
      "--tightening", "0.8"});
  const std::string keys = make_keys("grow", 5000);
  ok({"add", f}, keys);
  EXPECT_EQ(ok({"query", f, "--count"}, keys), "present=5000 absent=0\n");
  const auto info = parse_lines(ok({"info", f}));
  EXPECT_EQ(info.at("kind"), "scalable");
  EXPECT_EQ(info.at("initial_capacity"), "100");
  EXPECT_EQ(info.at("growth"), "4");
  EXPECT_EQ(info.at("tightening"), "0.8");
  EXPECT_EQ(info.at("memory_ceiling"), "0");
  EXPECT_GE(std::stoull(info.at("sub_filters")), 3u);  // 100 + 400 + 1600 < 5000
  EXPECT_LE(std::stod(info.at("estimated_fpp")), 0.01);
}

TEST_F(Cli, ScalableMemoryCeilingIsAnErrorThatKeepsTheFile) {
  const std::string f = at("s.bf");
  ok({"create", f, "--capacity", "100", "--fpp", "0.01", "--kind", "scalable", "--max-memory",
      "1000"});
  const std::string before = read("s.bf");
  const result r = run({"add", f}, make_keys("ceiling", 1000));
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("memory ceiling"), std::string::npos) << r;
  EXPECT_EQ(read("s.bf"), before);
}

TEST_F(Cli, ScalableOptionsNeedTheScalableKind) {
  for (const char* option : {"--growth", "--tightening", "--max-memory"}) {
    const std::string value = std::string(option) == "--tightening" ? "0.5" : "4";
    const result r =
        run({"create", at("x.bf"), "--capacity", "100", "--fpp", "0.01", option, value});
    EXPECT_EQ(r.status, 2) << r;
    EXPECT_EQ(
        r.err.rfind(
            "bloomkit: error: " + std::string(option) + " applies only to --kind scalable\n", 0),
        0u)
        << r;
  }
  const result bad = run({"create", at("x.bf"), "--capacity", "100", "--fpp", "0.01", "--kind",
                          "scalable", "--tightening", "1.5"});
  EXPECT_EQ(bad.status, 2) << bad;
  EXPECT_NE(bad.err.find("tightening"), std::string::npos) << bad;
  EXPECT_FALSE(exists("x.bf"));
}

TEST_F(Cli, SizeOfScalableFiltersTakesTheirOptionsAndOtherKindsRefuseThem) {
  const std::vector<std::string> sizing = {"--capacity",   "100",      "--fpp",        "0.01",
                                           "--kind",       "scalable", "--growth",     "4",
                                           "--tightening", "0.8",      "--max-memory", "100000"};
  std::vector<std::string> create = {"create", at("s.bf")};
  create.insert(create.end(), sizing.begin(), sizing.end());
  std::vector<std::uint64_t> made;
  ASSERT_TRUE(
      matches(ok(create), "created " + at("s.bf") + ": {N} bits, {N} bytes, {N} hashes\n", &made));
  std::vector<std::string> size = {"size"};
  size.insert(size.end(), sizing.begin(), sizing.end());
  const auto shown = parse_lines(ok(size));
  EXPECT_EQ(shown.at("bits"), std::to_string(made[0]));
  EXPECT_EQ(shown.at("growth"), "4");
  EXPECT_EQ(shown.at("tightening"), "0.8");
  EXPECT_EQ(shown.at("memory_ceiling"), "100000");
  // A ceiling below the first sub-filter: create refuses it, and so does size.
  const result tight = run({"size", "--capacity", "100000", "--fpp", "0.01", "--kind", "scalable",
                            "--max-memory", "1000"});
  EXPECT_EQ(tight.status, 2) << tight;
  EXPECT_NE(tight.err.find("memory ceiling"), std::string::npos) << tight;
  // The default kind is classic, and its output is the classic five lines.
  EXPECT_EQ(ok({"size", "--capacity", "1000", "--fpp", "0.01"}),
            ok({"size", "--capacity", "1000", "--fpp", "0.01", "--kind", "classic"}));
  for (const char* kind : {"classic", "blocked", "counting"}) {
    const result r =
        run({"size", "--capacity", "100", "--fpp", "0.01", "--kind", kind, "--growth", "4"});
    EXPECT_EQ(r.status, 2) << r;
    EXPECT_EQ(r.err.rfind("bloomkit: error: --growth applies only to --kind scalable\n", 0), 0u)
        << r;
  }
  const result unknown = run({"size", "--capacity", "100", "--fpp", "0.01", "--kind", "quotient"});
  EXPECT_EQ(unknown.status, 2) << unknown;
}

TEST_F(Cli, CountingFiltersMergeButDoNotIntersect) {
  const std::string a = at("a.bf");
  const std::string b = at("b.bf");
  for (const std::string& f : {a, b}) {
    ok({"create", f, "--capacity", "100", "--fpp", "0.01", "--kind", "counting"});
  }
  const result r = run({"merge", at("x.bf"), a, b, "--intersect"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_EQ(r.err, "bloomkit: error: '" + a +
                       "' holds a counting filter: filters of this kind cannot be intersected\n")
      << r;
  // Removing after a merge: the counts of both inputs add up.
  ok({"add", a, "k"});
  ok({"add", b, "k"});
  ok({"merge", at("m.bf"), a, b});
  EXPECT_EQ(ok({"remove", at("m.bf"), "k"}), "removed 1 of 1 keys\n");
  EXPECT_EQ(ok({"query", at("m.bf"), "k"}), "1\tk\n");
  EXPECT_EQ(ok({"remove", at("m.bf"), "k"}), "removed 1 of 1 keys\n");
  EXPECT_EQ(ok({"query", at("m.bf"), "k"}), "0\tk\n");
}

}  // namespace

namespace bloomkit::cli_test {
// A counting filter counts every insert: adding a key again must be saved, or a later remove of
// one of the two inserts leaves the key absent (a false negative).
TEST_F(Cli, CountingAddOfAPresentKeyIsSavedSoOneRemoveKeepsIt) {
  const std::string f = at("c.bf");
  ok({"create", f, "--capacity", "100", "--fpp", "0.01", "--kind", "counting"});
  ok({"add", f, "twice"});
  ok({"add", f, "twice"});
  ok({"remove", f, "twice"});
  EXPECT_EQ(ok({"query", f, "twice"}), "1\ttwice\n");
}
}  // namespace bloomkit::cli_test
