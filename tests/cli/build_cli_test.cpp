// End-to-end tests of `bloomkit build` (docs/CLI.md): the same filter whatever the threads and
// inputs, pipes of many blocks, capacity from counted lines, input errors, the terminal progress.

#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bloomkit/bloomkit.hpp"
#include "cli_support.hpp"

namespace {

using namespace bloomkit::cli_test;
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// build

TEST_F(Cli, BuildIsTheSameFilterWhateverTheThreadsAndInput) {
  const std::size_t n = 60000;
  const std::string keys = make_keys("build", n);
  write("keys.txt", keys);
  // The same keys split over two files, the second with CRLF line ends and no final newline.
  const std::size_t half = keys.find('\n', keys.size() / 2) + 1;
  write("part1.txt", keys.substr(0, half));
  std::string crlf;
  for (char c : keys.substr(half)) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  crlf.resize(crlf.size() - 2);  // drop the final "\r\n"
  write("part2.txt", crlf);

  const auto build = [&](const std::string& name, std::vector<std::string> extra,
                         const std::string& input, stdin_kind kind) {
    std::vector<std::string> args{"build",           at(name), "--capacity",
                                  std::to_string(n), "--fpp",  "0.01"};
    args.insert(args.end(), extra.begin(), extra.end());
    const std::string out = ok(args, input, kind);
    std::vector<std::uint64_t> numbers;
    ASSERT_TRUE(
        matches(out, "built " + at(name) + ": {N} keys read, {N} new, in {S} s\n", &numbers))
        << out;
    EXPECT_EQ(numbers[0], n);
    EXPECT_GT(numbers[1], n - n / 100);  // a few keys collide at p = 0.01
    EXPECT_LE(numbers[1], n);
  };
  build("file1.bf", {"--threads", "1", at("keys.txt")}, "", stdin_kind::file);
  build("file4.bf", {"--threads", "4", at("keys.txt")}, "", stdin_kind::file);
  build("parts.bf", {"--threads", "3", at("part1.txt"), at("part2.txt")}, "", stdin_kind::file);
  build("stdin1.bf", {"--threads", "1"}, keys, stdin_kind::file);
  build("pipe4.bf", {"--threads", "4", "-"}, keys, stdin_kind::pipe);
  build("mixed.bf", {"--threads", "2", at("part1.txt"), "-"}, crlf, stdin_kind::pipe);
  build("default.bf", {at("keys.txt")}, "", stdin_kind::file);  // every core

  // All the same bits, and the same as create + add (the single-threaded path).
  ok({"create", at("added.bf"), "--capacity", std::to_string(n), "--fpp", "0.01"});
  ok({"add", at("added.bf")}, keys);
  const auto reference = bloomkit::load(at("added.bf"));
  for (const char* name :
       {"file1.bf", "file4.bf", "parts.bf", "stdin1.bf", "pipe4.bf", "mixed.bf", "default.bf"}) {
    EXPECT_TRUE(bloomkit::load(at(name)) == reference) << name;
  }
  // And they answer identically: no false negatives, the same false positives.
  const std::string others = make_keys("other", 20000);
  const std::string expected_misses = ok({"query", at("added.bf")}, others);
  for (const char* name : {"file1.bf", "file4.bf", "pipe4.bf"}) {
    EXPECT_EQ(ok({"query", at(name), "--count"}, keys),
              "present=" + std::to_string(n) + " absent=0\n")
        << name;
    EXPECT_EQ(ok({"query", at(name)}, others), expected_misses) << name;
  }
}

// A pipe is read in blocks of whole lines (2 MiB) that the workers share: keys that straddle a
// block end, and a key longer than a block, arrive whole.
TEST_F(Cli, BuildFromAPipeOfManyBlocksReadsEveryKeyWhole) {
  const std::size_t n = 300000;
  const std::string first = make_keys("blocks", n / 2);
  const std::string second = make_keys("blocks-2", n / 2);
  const std::string long_key(5 << 20, 'k');
  const std::string keys = first + long_key + "\n" + second;
  ASSERT_GT(keys.size(), std::size_t{12} << 20);
  const std::string f = at("piped.bf");
  const std::string out =
      ok({"build", f, "--capacity", std::to_string(n + 1), "--fpp", "0.01", "--threads", "2"}, keys,
         stdin_kind::pipe);
  EXPECT_TRUE(
      matches(out, "built " + f + ": " + std::to_string(n + 1) + " keys read, {N} new, in {S} s\n"))
      << out;
  ok({"create", at("added.bf"), "--capacity", std::to_string(n + 1), "--fpp", "0.01"});
  ok({"add", at("added.bf")}, keys);
  EXPECT_TRUE(bloomkit::load(f) == bloomkit::load(at("added.bf")));
}

TEST_F(Cli, BuildWithoutCapacityCountsLines) {
  // 5 keys: "a", "", "b", "c", "d" (the last without '\n').
  write("one.txt", "a\n\nb\n");
  write("two.txt", "c\r\nd");
  write("empty.txt", "");
  const std::string f = at("f.bf");
  const std::string built =
      ok({"build", f, "--fpp", "0.01", at("one.txt"), at("two.txt"), at("empty.txt")});
  EXPECT_TRUE(matches(built, "built " + f + ": 5 keys read, 5 new, in {S} s\n")) << built;
  const auto info = parse_lines(ok({"info", f}));
  const bloomkit::filter_params params = bloomkit::optimal_params(5, 0.01);
  EXPECT_EQ(info.at("capacity"), "5");
  EXPECT_EQ(info.at("bits"), std::to_string(params.bits));
  EXPECT_EQ(info.at("hashes"), std::to_string(params.hashes));
  EXPECT_EQ(info.at("inserted"), "5");
  EXPECT_EQ(ok({"query", f}, "a\n\nb\nc\nd\n"), "1\ta\n1\t\n1\tb\n1\tc\n1\td\n");

  // An empty input makes an empty filter sized for one key.
  const std::string g = at("g.bf");
  const std::string empty = ok({"build", g, "--fpp", "0.01", at("empty.txt")});
  EXPECT_TRUE(matches(empty, "built " + g + ": 0 keys read, 0 new, in {S} s\n")) << empty;
  EXPECT_EQ(parse_lines(ok({"info", g})).at("capacity"), "1");
}

TEST_F(Cli, BuildFromStdinNeedsCapacity) {
  write("keys.txt", "a\n");
  const std::string message =
      "--capacity is required when keys come from stdin (it can be left out only when every "
      "INPUT is a regular file, whose lines are then counted)";
  expect_usage_error(run({"build", at("f.bf"), "--fpp", "0.01"}, "a\n"), message, "build");
  expect_usage_error(run({"build", at("f.bf"), "--fpp", "0.01", "-"}, "a\n"), message, "build");
  expect_usage_error(run({"build", at("f.bf"), "--fpp", "0.01", at("keys.txt"), "-"}, "a\n"),
                     message, "build");
  // A named input that is not a regular file (here a pipe, via /dev/stdin).
  expect_usage_error(
      run({"build", at("f.bf"), "--fpp", "0.01", "/dev/stdin"}, "a\n", stdin_kind::pipe),
      "--capacity is required when INPUT '/dev/stdin' is not a regular file (it "
      "can be left out only when every INPUT is a regular file, whose lines are "
      "then counted)",
      "build");
  EXPECT_FALSE(exists("f.bf"));
}

TEST_F(Cli, BuildInputErrors) {
  const std::string f = at("f.bf");
  const result missing = run({"build", f, "--capacity", "10", "--fpp", "0.01", at("nope.txt")});
  expect_error_naming(missing, at("nope.txt"));
  EXPECT_NE(missing.err.find("No such file or directory"), std::string::npos) << missing;
  expect_error_naming(run({"build", f, "--capacity", "10", "--fpp", "0.01", dir_.string()}),
                      dir_.string());
  EXPECT_FALSE(exists("f.bf"));
}

// A progress line appears on a terminal, and only there (the other build tests check that
// stderr stays empty when it is a file).
TEST_F(Cli, BuildShowsProgressOnATerminal) {
  const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0);
  ASSERT_EQ(::grantpt(master), 0);
  ASSERT_EQ(::unlockpt(master), 0);
  const std::string terminal = ::ptsname(master);
  // Keep the terminal open here too, so that reading the master after the tool exits gets the
  // buffered output rather than a hang-up.
  const int slave = ::open(terminal.c_str(), O_RDWR | O_NOCTTY);
  ASSERT_GE(slave, 0);
  write("keys.txt", make_keys("tty", 20000));
  const result r = run({"build", at("f.bf"), "--fpp", "0.01", at("keys.txt")}, "", stdin_kind::file,
                       "", terminal);
  EXPECT_EQ(r.status, 0) << r;
  std::string shown;
  char buffer[4096];
  pollfd p{master, POLLIN, 0};
  while (::poll(&p, 1, 100) > 0 && (p.revents & POLLIN)) {
    const ssize_t got = ::read(master, buffer, sizeof buffer);
    if (got <= 0) break;
    shown.append(buffer, static_cast<std::size_t>(got));
  }
  ::close(slave);
  ::close(master);
  EXPECT_NE(shown.find("keys"), std::string::npos) << shown;
  EXPECT_NE(shown.find("MB/s"), std::string::npos) << shown;
  EXPECT_NE(shown.find("%"), std::string::npos) << shown;  // the size is known: a bar
  // The line is erased at the end.
  EXPECT_GE(shown.size(), 4u);
  EXPECT_EQ(shown.substr(shown.size() - 4), "\r\033[K") << shown;
}

}  // namespace
