// --key-type long on the native commands: create / build make filters of integer keys (kinds
// classic, blocked, counting), add / query feed them integers by the file's scheme, bad integers
// and keys of the other type are refused naming the key and the file (merge with a string file
// too), and the library reads the files the tool writes as the same integer keys.

#include <cstdint>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/integer_keys.hpp"
#include "cli_support.hpp"

namespace {

using namespace bloomkit::cli_test;

class IntegerKeysCli : public Cli {};

TEST_F(IntegerKeysCli, CreateAddQueryByTheIntegerScheme) {
  for (const std::string kind : {"classic", "blocked", "counting"}) {
    SCOPED_TRACE(kind);
    const std::string file = at(kind + ".bf");
    ok({"create", file, "--kind", kind, "--key-type", "long", "--capacity", "1000", "--fpp",
        "0.01"});
    EXPECT_EQ(ok({"add", file}, "1\n-2\n+3\n18446744073709551615\n"), "added 4 new of 4 keys\n");
    // -1 is the same key as 2^64 - 1; 007 is 7, not added.
    EXPECT_EQ(ok({"query", file, "--", "1", "-2", "3", "-1"}), "1\t1\n1\t-2\n1\t3\n1\t-1\n");
    const auto [filter, header] = bloomkit::open_any(file, bloomkit::open_mode::load);
    EXPECT_EQ(header.keys(), bloomkit::key_type::int64);
    EXPECT_TRUE(bloomkit::is_integer_scheme(header.scheme));
    EXPECT_EQ(bloomkit::keys_of(filter), bloomkit::key_type::int64);
    const std::int64_t keys[] = {1, -2, 3, -1};
    bool found[4];
    EXPECT_EQ(bloomkit::contains_integers(filter, std::span<const std::int64_t>(keys), found), 4u);
    EXPECT_NE(ok({"info", file}).find("key_type: long"), std::string::npos);
  }
}

TEST_F(IntegerKeysCli, CountingRemovesIntegers) {
  const std::string file = at("c.bf");
  ok({"create", file, "--kind", "counting", "--key-type", "long", "--capacity", "100", "--fpp",
      "0.01"});
  ok({"add", file, "5", "6"});
  EXPECT_EQ(ok({"remove", file, "5", "+5"}), "removed 1 of 2 keys\n");
  EXPECT_EQ(ok({"query", file, "5", "6"}), "0\t5\n1\t6\n");
  const result r = run({"remove", file, "x"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("key 'x' is not a decimal integer"), std::string::npos) << r;
}

TEST_F(IntegerKeysCli, BuildReadsDecimalLines) {
  write("ids.txt", "10\n20\n30\n");
  const std::string file = at("ids.bf");
  ok({"build", file, "--kind", "blocked", "--key-type", "long", "--fpp", "0.01", at("ids.txt")});
  EXPECT_EQ(ok({"query", file, "--count", "10", "20", "30"}), "present=3 absent=0\n");
}

// Integer keys are parsed and inserted by every worker (insert_integers_concurrent): the bits
// (the payload after the 128-byte header; its `inserted` may differ, as for string keys) are those
// of one thread, every key answers, and a bad line in a threaded build fails it by name.
TEST_F(IntegerKeysCli, ThreadedBuildsSetTheBitsOfOneThread) {
  std::string lines;
  for (std::int64_t k = -300000; k < 300000; k += 3) lines += std::to_string(k) + "\n";
  write("many.txt", lines);
  for (const std::string kind : {"classic", "blocked"}) {
    SCOPED_TRACE(kind);
    for (const std::string threads : {"1", "4"}) {
      ok({"build", at(kind + threads + ".bf"), "--kind", kind, "--key-type", "long", "--fpp",
          "0.01", "--threads", threads, at("many.txt")});
    }
    EXPECT_EQ(read(kind + "1.bf").substr(128), read(kind + "4.bf").substr(128));
    EXPECT_EQ(ok({"query", at(kind + "4.bf"), "--count", "--", "-300000", "-3", "0", "299997"}),
              "present=4 absent=0\n");
  }
  write("bad.txt", lines + "12\nx7\n");
  const result r = run({"build", at("bad.bf"), "--kind", "blocked", "--key-type", "long", "--fpp",
                        "0.01", "--threads", "4", at("bad.txt")});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("key 'x7' is not a decimal integer"), std::string::npos) << r;
}

TEST_F(IntegerKeysCli, BadIntegersAndOtherKeyTypesAreRefused) {
  const std::string file = at("ids.bf");
  ok({"create", file, "--key-type", "long", "--capacity", "100", "--fpp", "0.01"});
  for (const std::string bad : {"abc", "1.5", "18446744073709551616", " 1", ""}) {
    const result r = run({"add", file}, bad + "\n");
    EXPECT_EQ(r.status, 1) << r;
    EXPECT_NE(r.err.find("key '" + bad + "' is not a decimal integer"), std::string::npos) << r;
    EXPECT_NE(r.err.find("ids.bf"), std::string::npos) << r;
  }
  expect_usage_error(run({"query", file, "--key-type", "string", "x"}),
                     "--key-type string: '" + file + "' holds integer (long) keys", "query");
  const std::string strings = at("s.bf");
  ok({"create", strings, "--capacity", "100", "--fpp", "0.01"});
  expect_usage_error(run({"add", strings, "--key-type", "long", "1"}),
                     "--key-type long: '" + strings + "' holds string keys", "add");
  for (const std::string kind : {"scalable", "cuckoo"}) {
    expect_usage_error(run({"create", at("k.bf"), "--kind", kind, "--key-type", "long",
                            "--capacity", "100", "--fpp", "0.01"}),
                       "--key-type long applies only to --kind classic, blocked or counting (a " +
                           kind + " filter takes string keys)",
                       "create");
  }
  const result merged = run({"merge", at("m.bf"), file, strings});
  EXPECT_EQ(merged.status, 1) << merged;
  EXPECT_NE(merged.err.find("one holds 64-bit integer keys, the other text keys"),
            std::string::npos)
      << merged;
}

}  // namespace
