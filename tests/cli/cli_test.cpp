// End-to-end tests of the bloomkit tool (docs/CLI.md): every subcommand runs as the real binary
// on files in a fresh temp dir, and stdout, stderr and the exit code are checked exactly.
// The library is linked only to compute expected values (sizes, its validation messages) and to
// compare the filters the tool writes. Here: version, help, usage, create, add, query, info,
// size and merge; build and bad files are in build_cli_test.cpp and bad_files_cli_test.cpp.

#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "bloomkit/bloomkit.hpp"
#include "cli_support.hpp"

namespace {

using namespace bloomkit::cli_test;
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// version, help, usage

TEST_F(Cli, VersionAndHelp) {
  EXPECT_EQ(ok({"--version"}), std::string("bloomkit ") + bloomkit::version_string + "\n");
  const std::string help = ok({"--help"});
  for (const char* command : {"create", "add", "build", "query", "info", "merge", "size"}) {
    EXPECT_NE(help.find(command), std::string::npos) << command << "\n" << help;
  }
  const std::string query_help = ok({"query", "--help"});
  EXPECT_NE(query_help.find("--present"), std::string::npos) << query_help;
  EXPECT_NE(query_help.find("--count"), std::string::npos) << query_help;
}

TEST_F(Cli, UsageErrorsExitTwo) {
  expect_usage_error(run({}), "A subcommand is required", "");
  expect_usage_error(run({"frobnicate"}), "unknown command 'frobnicate'", "");
  expect_usage_error(run({"create", at("f.bf"), "--capacity", "10", "--fpp", "0.1", "--bogus"}),
                     "The following argument was not expected: --bogus", "create");
  expect_usage_error(run({"create", at("f.bf"), "--fpp", "0.1"}), "--capacity is required",
                     "create");
  expect_usage_error(run({"create", "--capacity", "10", "--fpp", "0.1"}), "FILE is required",
                     "create");
  expect_usage_error(run({"create", at("f.bf"), "--capacity", "10", "--fpp", "abc"}),
                     "--fpp: 'abc' is not a number", "create");
  expect_usage_error(run({"size", "--capacity", "ten", "--fpp", "0.1"}),
                     "--capacity: 'ten' is not a number", "size");
  expect_usage_error(run({"size", "--capacity", "1.5", "--fpp", "0.1"}),
                     "--capacity: '1.5' is not a whole number", "size");
  expect_usage_error(run({"size", "--capacity", "99999999999999999999", "--fpp", "0.1"}),
                     "--capacity: '99999999999999999999' is out of range (0 to "
                     "18446744073709551615)",
                     "size");
  expect_usage_error(run({"merge", at("out.bf")}), "IN is required", "merge");
  expect_usage_error(run({"query", at("f.bf"), "--present", "--count"}),
                     "--present excludes --count", "query");
  expect_usage_error(run({"build", at("f.bf"), "--fpp", "0.1", "--threads", "0", at("x")}),
                     "--threads: '0' is out of range (1 to 1024)", "build");
  EXPECT_FALSE(exists("f.bf"));
}

// --capacity 0, --fpp 0, --fpp 1.5: the library's validators reject them; exit 2 with their
// message, and nothing is written.
TEST_F(Cli, OutOfRangeSizingIsAUsageError) {
  const std::string capacity_zero = library_message([] { bloomkit::validate_capacity(0); });
  const std::string fpp_zero = library_message([] { bloomkit::validate_fpp(0); });
  const std::string fpp_big = library_message([] { bloomkit::validate_fpp(1.5); });
  ASSERT_NE(capacity_zero, "<no error thrown>");
  ASSERT_NE(fpp_zero, "<no error thrown>");
  ASSERT_NE(fpp_big, "<no error thrown>");
  const std::string f = at("f.bf");
  expect_usage_error(run({"create", f, "--capacity", "0", "--fpp", "0.01"}), capacity_zero,
                     "create");
  expect_usage_error(run({"create", f, "--capacity", "100", "--fpp", "0"}), fpp_zero, "create");
  expect_usage_error(run({"create", f, "--capacity", "100", "--fpp", "1.5"}), fpp_big, "create");
  expect_usage_error(run({"size", "--capacity", "0", "--fpp", "0.01"}), capacity_zero, "size");
  expect_usage_error(run({"size", "--capacity", "100", "--fpp", "0"}), fpp_zero, "size");
  expect_usage_error(run({"size", "--capacity", "100", "--fpp", "1.5"}), fpp_big, "size");
  write("keys.txt", "a\nb\n");
  expect_usage_error(run({"build", f, "--capacity", "0", "--fpp", "0.01", at("keys.txt")}),
                     capacity_zero, "build");
  expect_usage_error(run({"build", f, "--fpp", "1.5", at("keys.txt")}), fpp_big, "build");
  expect_usage_error(run({"build", f, "--capacity", "10", "--fpp", "0", at("keys.txt")}), fpp_zero,
                     "build");
  // Too large to exist: the library's too_large message, also a usage error.
  const std::string too_large =
      library_message([] { (void)bloomkit::optimal_params(1'000'000'000'000'000, 1e-300); });
  expect_usage_error(run({"size", "--capacity", "1e15", "--fpp", "1e-300"}), too_large, "size");
  EXPECT_FALSE(exists("f.bf"));
}

// ---------------------------------------------------------------------------------------------
// create, add, query

TEST_F(Cli, CreateAddQueryRoundTrip) {
  const std::string f = at("f.bf");
  // m = ceil(-1000 ln 0.01 / ln^2 2) = 9586, k = round(9586 / 1000 ln 2) = 7, 150 words.
  EXPECT_EQ(ok({"create", f, "--capacity", "1000", "--fpp", "0.01"}),
            "created " + f + ": 9586 bits, 1200 bytes, 7 hashes\n");
  EXPECT_EQ(ok({"add", f, "apple", "banana", "cherry"}), "added 3 new of 3 keys\n");
  EXPECT_EQ(ok({"add", f, "apple", "banana"}), "added 0 new of 2 keys\n");
  // From stdin; a key repeated within one run is new only once.
  EXPECT_EQ(ok({"add", f}, "date\nelder\ndate\n"), "added 2 new of 3 keys\n");
  EXPECT_EQ(ok({"add", f}, ""), "added 0 new of 0 keys\n");

  const std::string all = "1\tapple\n1\tbanana\n0\tkiwi\n1\tcherry\n1\tdate\n0\tmango\n1\telder\n";
  EXPECT_EQ(ok({"query", f, "apple", "banana", "kiwi", "cherry", "date", "mango", "elder"}), all);
  EXPECT_EQ(ok({"query", f}, "apple\nbanana\nkiwi\ncherry\ndate\nmango\nelder\n"), all);
  EXPECT_EQ(ok({"query", f, "--present"}, "apple\nbanana\nkiwi\ncherry\ndate\nmango\nelder\n"),
            "apple\nbanana\ncherry\ndate\nelder\n");
  EXPECT_EQ(ok({"query", f, "--absent"}, "apple\nbanana\nkiwi\ncherry\ndate\nmango\nelder\n"),
            "kiwi\nmango\n");
  EXPECT_EQ(ok({"query", f, "--count"}, "apple\nbanana\nkiwi\ncherry\ndate\nmango\nelder\n"),
            "present=5 absent=2\n");
  EXPECT_EQ(ok({"query", f, "--count"}, ""), "present=0 absent=0\n");
  EXPECT_EQ(ok({"query", f}, ""), "");
  // Flags after the keys, and "-" splicing stdin between arguments, in order.
  EXPECT_EQ(ok({"query", f, "kiwi", "-", "apple", "--present"}, "cherry\nmango\n"),
            "cherry\napple\n");
  EXPECT_EQ(ok({"query", f, "kiwi", "-", "apple"}, "cherry\nmango\n"),
            "0\tkiwi\n1\tcherry\n0\tmango\n1\tapple\n");
  // "--" ends the options: a key may start with '-'.
  EXPECT_EQ(ok({"add", f, "--", "--dash"}), "added 1 new of 1 keys\n");
  EXPECT_EQ(ok({"query", f, "--", "--dash", "-x"}), "1\t--dash\n0\t-x\n");

  // The filter the tool wrote is the library's filter with the same keys.
  auto expected = bloomkit::bloom_filter::for_capacity(1000, 0.01);
  for (const char* key : {"apple", "banana", "cherry", "date", "elder", "--dash"}) {
    expected.insert(key);
  }
  const auto written = bloomkit::load(f);
  EXPECT_TRUE(written == expected);
  EXPECT_EQ(written.inserted(), 6u);
}

TEST_F(Cli, QueryOfManyKeysFromAPipe) {
  const std::string f = at("f.bf");
  const std::string keys = make_keys("in", 20000);
  const std::string others = make_keys("out", 20000);
  ok({"create", f, "--capacity", "20000", "--fpp", "0.001"});
  // A few keys are false positives of the keys before them (about 0.1% at the end).
  std::vector<std::uint64_t> added;
  const std::string out = ok({"add", f}, keys, stdin_kind::pipe);
  ASSERT_TRUE(matches(out, "added {N} new of 20000 keys\n", &added)) << out;
  EXPECT_GT(added[0], 19950u);
  EXPECT_LE(added[0], 20000u);
  // No false negatives; every output line is "1\t" + the key, in order.
  const std::string answers = ok({"query", f}, keys, stdin_kind::pipe);
  std::string expected;
  std::istringstream in(keys);
  for (std::string line; std::getline(in, line);) expected += "1\t" + line + "\n";
  EXPECT_EQ(answers, expected);
  EXPECT_EQ(ok({"query", f, "--count"}, keys, stdin_kind::pipe), "present=20000 absent=0\n");
  // Misses: --present and --absent partition the keys; --count agrees; the FPP is sane.
  const std::string present = ok({"query", f, "--present"}, others, stdin_kind::pipe);
  const std::string absent = ok({"query", f, "--absent"}, others, stdin_kind::pipe);
  const std::size_t hits = count_char(present, '\n');
  EXPECT_EQ(hits + count_char(absent, '\n'), 20000u);
  EXPECT_EQ(ok({"query", f, "--count"}, others),
            "present=" + std::to_string(hits) + " absent=" + std::to_string(20000 - hits) + "\n");
  EXPECT_LT(hits, 100u);  // expected about 20 at p = 0.001
}

// Keys are lines: '\n' ends a key, one '\r' before it is dropped, an empty line is the empty
// key, and the last line counts even without its '\n' (but nothing after a final '\n' does).
TEST_F(Cli, LineRules) {
  const std::string f = at("f.bf");
  ok({"create", f, "--capacity", "100", "--fpp", "0.001"});
  EXPECT_EQ(ok({"query", f}, "\n"), "0\t\n");
  // Keys: "a", "", "b", "", "c"  (the empty key twice: new once).
  EXPECT_EQ(ok({"add", f}, "a\r\n\r\nb\n\nc"), "added 4 new of 5 keys\n");
  EXPECT_EQ(ok({"query", f}, "a\nb\r\nc\n\n"), "1\ta\n1\tb\n1\tc\n1\t\n");
  EXPECT_EQ(ok({"query", f}, "c"), "1\tc\n");
  EXPECT_EQ(ok({"query", f, "--count"}, "a\nb\nc\n"), "present=3 absent=0\n");
  EXPECT_EQ(ok({"query", f, "--count"}, "a\nb\nc"), "present=3 absent=0\n");
  // Only one '\r' is removed, and only at the end of a line; arguments are taken verbatim.
  EXPECT_EQ(ok({"add", f, "p\rq", "r\r"}), "added 2 new of 2 keys\n");
  EXPECT_EQ(ok({"query", f}, "p\rq\nr\r\r\nr\npq\n"), "1\tp\rq\n1\tr\r\n0\tr\n0\tpq\n");
  // A long line (larger than one read block) is one key.
  const std::string long_key(3 << 20, 'x');
  EXPECT_EQ(ok({"add", f}, long_key + "\nshort\n", stdin_kind::pipe), "added 2 new of 2 keys\n");
  EXPECT_EQ(ok({"query", f, "--count"}, "short\n" + long_key, stdin_kind::pipe),
            "present=2 absent=0\n");
}

// ---------------------------------------------------------------------------------------------
// info and size

TEST_F(Cli, InfoHumanAndJson) {
  const std::string f = at("f.bf");
  ok({"create", f, "--capacity", "1000", "--fpp", "0.01"});
  ok({"add", f, "one", "two", "three"});
  const auto filter = bloomkit::load(f);
  const auto number = [](double v) {
    // The tool prints the shortest text that reads back as the value.
    std::ostringstream os;
    os.precision(17);
    os << v;
    return std::strtod(os.str().c_str(), nullptr);
  };

  const std::string human = ok({"info", f});
  std::vector<std::string> names;
  {
    std::istringstream in(human);
    for (std::string line; std::getline(in, line);) names.push_back(line.substr(0, line.find(':')));
  }
  const std::vector<std::string> expected_names{"file",
                                                "format_version",
                                                "kind",
                                                "hash_scheme",
                                                "bits",
                                                "bytes",
                                                "hashes",
                                                "capacity",
                                                "target_fpp",
                                                "inserted",
                                                "estimated_count",
                                                "fill_ratio",
                                                "estimated_fpp"};
  EXPECT_EQ(names, expected_names) << human;
  const auto lines = parse_lines(human);
  EXPECT_EQ(lines.at("file"), f);
  EXPECT_EQ(lines.at("format_version"), "1");
  EXPECT_EQ(lines.at("kind"), "classic");
  EXPECT_EQ(lines.at("hash_scheme"),
            std::string(bloomkit::to_string(bloomkit::hash_scheme::xxh3_128)));
  EXPECT_EQ(lines.at("bits"), "9586");
  EXPECT_EQ(lines.at("bytes"), "1200");
  EXPECT_EQ(lines.at("hashes"), "7");
  EXPECT_EQ(lines.at("capacity"), "1000");
  EXPECT_EQ(lines.at("target_fpp"), "0.01");
  EXPECT_EQ(lines.at("inserted"), "3");
  EXPECT_EQ(std::strtod(lines.at("estimated_count").c_str(), nullptr),
            number(filter.estimated_count()));
  EXPECT_EQ(std::strtod(lines.at("fill_ratio").c_str(), nullptr), number(filter.fill_ratio()));
  EXPECT_EQ(std::strtod(lines.at("estimated_fpp").c_str(), nullptr),
            number(filter.estimated_fpp()));
  EXPECT_NEAR(std::strtod(lines.at("estimated_count").c_str(), nullptr), 3.0, 0.1);

  const auto json = parse_flat_json(ok({"info", f, "--json"}));
  for (const char* name :
       {"kind", "hash_scheme", "bits", "bytes", "hashes", "capacity", "target_fpp", "inserted",
        "estimated_count", "fill_ratio", "estimated_fpp"}) {
    ASSERT_TRUE(json.count(name)) << name;
    // The same values as the human form.
    EXPECT_EQ(json.at(name).text, lines.at(name)) << name;
  }
  EXPECT_TRUE(json.at("kind").is_string);
  EXPECT_TRUE(json.at("hash_scheme").is_string);
  EXPECT_FALSE(json.at("bits").is_string);
  EXPECT_EQ(json.at("file").text, f);

  // bits, bytes and hashes are what `size` computes for the same capacity and fpp.
  const auto size = parse_flat_json(ok({"size", "--capacity", "1000", "--fpp", "0.01", "--json"}));
  for (const char* name : {"bits", "bytes", "hashes"}) {
    EXPECT_EQ(json.at(name).text, size.at(name).text) << name;
  }
}

TEST_F(Cli, Size) {
  EXPECT_EQ(ok({"size", "--capacity", "1000000", "--fpp", "0.01"}),
            "capacity: 1000000\nfpp: 0.01\nbits: 9585059\nbytes: 1198136\nhashes: 7\n");
  EXPECT_EQ(ok({"size", "--capacity", "1e6", "--fpp", "0.01", "--json"}),
            "{\n  \"capacity\": 1000000,\n  \"fpp\": 0.01,\n  \"bits\": 9585059,\n"
            "  \"bytes\": 1198136,\n  \"hashes\": 7\n}\n");
  // Whatever the parameters, size agrees with the library.
  for (const auto& [n, p] : std::vector<std::pair<std::uint64_t, double>>{
           {1, 0.5}, {1, 1e-9}, {12345, 0.001}, {10'000'000'000, 0.01}}) {
    const auto params = bloomkit::optimal_params(n, p);
    std::ostringstream fpp;
    fpp << p;
    const auto json = parse_flat_json(
        ok({"size", "--capacity", std::to_string(n), "--fpp", fpp.str(), "--json"}));
    EXPECT_EQ(json.at("capacity").text, std::to_string(n));
    EXPECT_EQ(json.at("bits").text, std::to_string(params.bits)) << n << " " << p;
    EXPECT_EQ(json.at("bytes").text, std::to_string(bloomkit::bytes_for_bits(params.bits)));
    EXPECT_EQ(json.at("hashes").text, std::to_string(params.hashes));
  }
}

// ---------------------------------------------------------------------------------------------
// merge

TEST_F(Cli, MergeUnionAndIntersection) {
  const std::string a = at("a.bf"), b = at("b.bf"), c = at("c.bf");
  for (const std::string& f : {a, b, c}) ok({"create", f, "--capacity", "1000", "--fpp", "0.001"});
  ok({"add", a, "apple", "common", "avocado"});
  ok({"add", b, "banana", "common"});
  ok({"add", c, "cherry"});

  const std::string u = at("union.bf");
  EXPECT_EQ(ok({"merge", u, a, b, c}), "merged 3 filters into " + u + " (union)\n");
  EXPECT_EQ(ok({"query", u}, "apple\ncommon\navocado\nbanana\ncherry\nkiwi\n"),
            "1\tapple\n1\tcommon\n1\tavocado\n1\tbanana\n1\tcherry\n0\tkiwi\n");
  // The union is the filter of all the keys.
  ok({"create", at("all.bf"), "--capacity", "1000", "--fpp", "0.001"});
  ok({"add", at("all.bf"), "apple", "common", "avocado", "banana", "cherry"});
  EXPECT_TRUE(bloomkit::load(u) == bloomkit::load(at("all.bf")));

  const std::string i = at("intersection.bf");
  EXPECT_EQ(ok({"merge", i, a, b, "--intersect"}),
            "merged 2 filters into " + i + " (intersection)\n");
  EXPECT_EQ(ok({"query", i}, "common\napple\nbanana\n"), "1\tcommon\n0\tapple\n0\tbanana\n");
  auto expected = bloomkit::load(a);
  expected.intersect(bloomkit::load(b));
  EXPECT_TRUE(bloomkit::load(i) == expected);

  // One input: a copy. The output may be one of the inputs.
  EXPECT_EQ(ok({"merge", at("copy.bf"), c}),
            "merged 1 filters into " + at("copy.bf") + " (union)\n");
  EXPECT_TRUE(bloomkit::load(at("copy.bf")) == bloomkit::load(c));
  auto a_and_b = bloomkit::load(a);
  a_and_b.merge(bloomkit::load(b));
  EXPECT_EQ(ok({"merge", a, a, b}), "merged 2 filters into " + a + " (union)\n");
  EXPECT_TRUE(bloomkit::load(a) == a_and_b);
  EXPECT_EQ(ok({"query", a, "--count"}, "apple\nbanana\ncommon\navocado\ncherry\n"),
            "present=4 absent=1\n");
}

TEST_F(Cli, MergeOfIncompatibleFilters) {
  const std::string a = at("a.bf"), big = at("big.bf"), out = at("out.bf");
  ok({"create", a, "--capacity", "1000", "--fpp", "0.01"});
  ok({"create", big, "--capacity", "2000", "--fpp", "0.01"});
  const std::string library = library_message([&] {
    auto x = bloomkit::load(a);
    x.merge(bloomkit::load(big));
  });
  for (const bool intersect : {false, true}) {
    std::vector<std::string> args{"merge", out, a, big};
    if (intersect) args.push_back("--intersect");
    const result r = run(args);
    expect_error_naming(r, a);
    EXPECT_NE(r.err.find(big), std::string::npos) << r;
    if (!intersect) {
      EXPECT_EQ(r.err, "bloomkit: error: '" + a + "' and '" + big +
                           "' are incompatible: " + library + "\n");
    }
    EXPECT_NE(r.err.find("bits differ"), std::string::npos) << r;
    EXPECT_FALSE(exists("out.bf"));
  }
}

}  // namespace
