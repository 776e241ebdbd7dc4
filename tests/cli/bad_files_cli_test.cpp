// End-to-end tests of the bloomkit tool on bad files (docs/CLI.md): missing, corrupt and
// truncated filters are errors naming the file and change nothing; write errors are reported.

#include <cstddef>
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
// bad files

TEST_F(Cli, MissingFile) {
  const std::string nope = at("nope.bf");
  for (const std::vector<std::string>& args : {std::vector<std::string>{"query", nope, "a"},
                                               {"add", nope, "a"},
                                               {"info", nope},
                                               {"info", nope, "--json"},
                                               {"merge", at("out.bf"), nope}}) {
    const result r = run(args);
    expect_error_naming(r, nope);
    EXPECT_NE(r.err.find("No such file or directory"), std::string::npos) << r;
  }
  // The second input of a merge is missing.
  ok({"create", at("a.bf"), "--capacity", "10", "--fpp", "0.01"});
  expect_error_naming(run({"merge", at("out.bf"), at("a.bf"), nope}), nope);
  EXPECT_FALSE(exists("out.bf"));
  EXPECT_FALSE(exists("nope.bf"));
}

TEST_F(Cli, CorruptAndTruncatedFiles) {
  const std::string good = at("good.bf");
  ok({"create", good, "--capacity", "1000", "--fpp", "0.01"});
  ok({"add", good, "a", "b", "c"});
  const std::string bytes = read("good.bf");
  ASSERT_GT(bytes.size(), bloomkit::file_header_size + 64);

  std::vector<std::pair<std::string, std::string>> bad;  // name, contents
  for (const std::size_t offset : {std::size_t{0}, std::size_t{20}, std::size_t{100},
                                   bloomkit::file_header_size + 10, bytes.size() - 1}) {
    std::string flipped = bytes;
    flipped[offset] = static_cast<char>(flipped[offset] ^ 0x10);
    bad.emplace_back("flip" + std::to_string(offset) + ".bf", flipped);
  }
  for (const std::size_t length : {std::size_t{0}, std::size_t{10}, bloomkit::file_header_size,
                                   bytes.size() / 2, bytes.size() - 1}) {
    bad.emplace_back("cut" + std::to_string(length) + ".bf", bytes.substr(0, length));
  }
  bad.emplace_back("text.bf", "this is not a filter\n");
  bad.emplace_back("longer.bf", bytes + "trailing garbage");

  for (const auto& [name, contents] : bad) {
    SCOPED_TRACE(name);
    write(name, contents);
    const std::string f = at(name);
    expect_error_naming(run({"query", f, "a"}), f);
    expect_error_naming(run({"query", f, "--count"}, "a\n"), f);
    expect_error_naming(run({"info", f}), f);
    expect_error_naming(run({"info", f, "--json"}), f);
    expect_error_naming(run({"add", f, "zzz"}), f);
    expect_error_naming(run({"merge", at("out.bf"), good, f}), f);
    expect_error_naming(run({"merge", at("out.bf"), f, good}), f);
    EXPECT_EQ(read(name), contents) << "a failed command must not change its input";
    EXPECT_FALSE(exists("out.bf"));
  }
}

TEST_F(Cli, WriteErrorsAreReported) {
  const std::string f = at("f.bf");
  ok({"create", f, "--capacity", "100", "--fpp", "0.01"});
  ok({"add", f, "a"});
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  for (const std::vector<std::string>& args : {std::vector<std::string>{"query", f, "a", "b"},
                                               {"info", f},
                                               {"size", "--capacity", "5", "--fpp", "0.1"}}) {
    const result r = run(args, "", stdin_kind::file, "/dev/full");
    EXPECT_EQ(r.status, 1) << r;
    EXPECT_EQ(r.err, "bloomkit: error: writing to stdout: No space left on device\n") << r;
  }
  // The filter cannot be written: exit 1, the message names the file.
  const std::string unwritable = at("no-such-dir/f.bf");
  expect_error_naming(run({"create", unwritable, "--capacity", "10", "--fpp", "0.1"}), unwritable);
}

}  // namespace
