// The cuckoo kind in the bloomkit tool (docs/CLI.md, issue 31): create, add, remove, query,
// info, size and build --kind cuckoo; a full filter is an error naming it, its keys kept.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bloomkit/bloomkit.hpp"
#include "bloomkit/cuckoo_filter.hpp"
#include "cli_support.hpp"

namespace {

using namespace bloomkit::cli_test;

class CliCuckoo : public Cli {};

TEST_F(CliCuckoo, CreateAddRemoveQueryInfo) {
  const std::string f = at("c.bf");
  const auto made = bloomkit::cuckoo_filter::for_capacity(1000, 0.01);
  EXPECT_EQ(ok({"create", f, "--kind", "cuckoo", "--capacity", "1000", "--fpp", "0.01"}),
            "created " + f + ": " + std::to_string(made.cells()) + " bits, " +
                std::to_string(made.byte_size()) + " bytes, 2 hashes\n");
  const std::string keys = make_keys("cuckoo", 900);
  EXPECT_EQ(ok({"add", f}, keys), "added 900 new of 900 keys\n");
  // Every add stores a copy: a repeat needs its own remove.
  EXPECT_EQ(ok({"add", f, "twice", "twice"}), "added 2 new of 2 keys\n");
  EXPECT_EQ(ok({"query", f, "--count"}, keys), "present=900 absent=0\n");
  EXPECT_EQ(ok({"remove", f, "twice", "never-added"}), "removed 1 of 2 keys\n");
  EXPECT_EQ(ok({"query", f, "twice"}), "1\ttwice\n");
  EXPECT_EQ(ok({"remove", f, "twice"}), "removed 1 of 1 keys\n");
  EXPECT_EQ(ok({"query", f, "twice"}), "0\ttwice\n");
  const auto info = parse_lines(ok({"info", f}));
  EXPECT_EQ(info.at("kind"), "cuckoo");
  EXPECT_EQ(info.at("hash_scheme"), "xxh3-64-cuckoo");
  EXPECT_EQ(info.at("inserted"), "900");
  EXPECT_EQ(info.at("items"), "900");
  EXPECT_EQ(info.at("bucket_size"), std::to_string(made.bucket_size()));
  EXPECT_EQ(info.at("fingerprint_bits"), std::to_string(made.fingerprint_bits()));
  EXPECT_NEAR(std::stod(info.at("load_factor")), 900.0 / static_cast<double>(made.slot_count()),
              1e-9);
  EXPECT_EQ(parse_flat_json(ok({"info", f, "--json"})).at("kind").text, "cuckoo");
}

TEST_F(CliCuckoo, SizeShowsWhatCreateMakesAndTheCountingRatio) {
  const auto shown =
      parse_lines(ok({"size", "--kind", "cuckoo", "--capacity", "1000000", "--fpp", "0.01"}));
  const auto made = bloomkit::cuckoo_filter::for_capacity(1'000'000, 0.01);
  EXPECT_EQ(shown.at("bits"), std::to_string(made.cells()));
  EXPECT_EQ(shown.at("bytes"), std::to_string(made.byte_size()));
  EXPECT_EQ(shown.at("bucket_size"), "4");
  EXPECT_EQ(shown.at("fingerprint_bits"), "10");
  EXPECT_LT(std::stod(shown.at("counting_ratio")), 0.35);
  EXPECT_LT(std::stod(shown.at("bits_per_key")), 11.0);
}

TEST_F(CliCuckoo, FullFilterIsAnErrorAndKeepsItsKeys) {
  const std::string f = at("small.bf");
  ok({"create", f, "--kind", "cuckoo", "--capacity", "50", "--fpp", "0.01"});
  const std::string keys = make_keys("many", 1000);
  const result r = run({"add", f}, keys);
  EXPECT_EQ(r.status, 1) << r;
  std::vector<std::uint64_t> n;
  ASSERT_TRUE(matches(r.err,
                      "bloomkit: error: '" + f +
                          "' is full: it took {N} of the keys and refused the next (a cuckoo "
                          "filter, {N} fingerprints, load factor {S}); the keys it took were "
                          "saved, the rest were not added (create it with a larger --capacity)\n",
                      &n))
      << r;
  EXPECT_GE(n[0], 50U);
  EXPECT_EQ(n[0], n[1]);
  // The keys it took, the first n[0] lines, are all there.
  std::string taken;
  std::size_t lines = 0, at_char = 0;
  while (lines < n[0]) {
    const std::size_t end = keys.find('\n', at_char);
    taken += keys.substr(at_char, end + 1 - at_char);
    at_char = end + 1;
    ++lines;
  }
  EXPECT_EQ(ok({"query", f, "--count"}, taken), "present=" + std::to_string(n[0]) + " absent=0\n");
  EXPECT_EQ(parse_lines(ok({"info", f})).at("items"), std::to_string(n[0]));
}

TEST_F(CliCuckoo, BuildInsertsEachDistinctKeyOnce) {
  const std::string keys = make_keys("build", 3000);
  write("keys.txt", keys + keys);  // every key twice
  const std::string f = at("built.bf");
  EXPECT_TRUE(matches(ok({"build", f, "--kind", "cuckoo", "--fpp", "0.001", at("keys.txt")}),
                      "built " + f + ": 6000 keys read, 3000 new, in {S} s\n"));
  EXPECT_EQ(ok({"query", f, "--count", "-"}, keys), "present=3000 absent=0\n");
  const auto info = parse_lines(ok({"info", f}));
  EXPECT_EQ(info.at("capacity"), "3000");  // the distinct keys
  EXPECT_EQ(info.at("items"), "3000");
  // From stdin, with a given capacity; one remove takes a key out.
  const std::string g = at("piped.bf");
  EXPECT_TRUE(matches(
      ok({"build", g, "--kind", "cuckoo", "--fpp", "0.01", "--capacity", "5000", "-"}, keys),
      "built " + g + ": 3000 keys read, 3000 new, in {S} s\n"));
  EXPECT_EQ(parse_lines(ok({"info", g})).at("capacity"), "5000");
  const std::string first = keys.substr(0, keys.find('\n'));
  EXPECT_EQ(ok({"remove", g, first}), "removed 1 of 1 keys\n");
  // A capacity far below the keys: full, an error naming the file; what it took is saved.
  const result r =
      run({"build", at("tiny.bf"), "--kind", "cuckoo", "--fpp", "0.01", "--capacity", "100", "-"},
          keys);
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("' is full: it took "), std::string::npos) << r;
  EXPECT_GE(std::stoull(parse_lines(ok({"info", at("tiny.bf")})).at("items")), 100U);
  // Options of other kinds are refused, not ignored.
  EXPECT_EQ(run({"build", at("x.bf"), "--kind", "cuckoo", "--fpp", "0.01", "--temp-dir", at(""),
                 at("keys.txt")})
                .status,
            2);
}

}  // namespace
