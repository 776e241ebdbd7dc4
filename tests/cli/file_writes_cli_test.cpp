// End-to-end tests of how the bloomkit tool replaces files (docs/CLI.md, "Concurrent writers and
// replacing files"): concurrent writers serialize on the target and all land, and every writer
// waits for the lock another holds. Targets and modes, signals and outputs are in
// file_write_*_cli_test.cpp.

#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "bloomkit/bloomkit.hpp"

#include <gtest/gtest.h>

#include "file_writes_fixture.hpp"

namespace {

using namespace bloomkit::cli_test;
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Concurrent writers serialize on the target: every one of them lands.

TEST_F(FileWrites, ConcurrentAddsLoseNoKey) {
  const std::string f = work("f.bf");
  constexpr int writers = 3;
  constexpr int rounds = 10;
  constexpr std::size_t keys_each = 1000;
  ok({"create", f, "--capacity", "100000", "--fpp", "0.01"});
  std::string every;
  for (int round = 0; round < rounds; ++round) {
    std::vector<process> running;
    for (int w = 0; w < writers; ++w) {
      const std::string keys =
          make_keys(numbered("round", round) + numbered("-writer", w), keys_each);
      write(numbered("keys-", w), keys);
      every += keys;
    }
    for (int w = 0; w < writers; ++w) {
      running.push_back(start({"add", f}, at(numbered("keys-", w)), std::to_string(w)));
    }
    for (int w = 0; w < writers; ++w) {
      EXPECT_EQ(finish(running[w]), 0) << output_of(std::to_string(w), "err");
    }
  }
  EXPECT_EQ(absent_count(f, every), all_present(rounds * writers * keys_each))
      << "a writer's keys were lost";
  EXPECT_EQ(work_entries(), std::set<std::string>{"f.bf"});
}

TEST_F(FileWrites, ConcurrentRemovesAllLand) {
  const std::string f = work("c.bf");
  constexpr int writers = 3;
  constexpr int rounds = 5;
  ok({"create", f, "--capacity", "20000", "--fpp", "0.01", "--kind", "counting"});
  std::string every;
  for (int round = 0; round < rounds; ++round) {
    for (int w = 0; w < writers; ++w) {
      const std::string keys = make_keys(numbered("r", round) + numbered("w", w), 1000);
      write(numbered("keys-", round) + numbered("-", w), keys);
      every += keys;
    }
  }
  ok({"add", f}, every);
  for (int round = 0; round < rounds; ++round) {
    std::vector<process> running;
    for (int w = 0; w < writers; ++w) {
      running.push_back(
          start({"remove", f}, at(numbered("keys-", round) + numbered("-", w)), std::to_string(w)));
    }
    for (int w = 0; w < writers; ++w) {
      EXPECT_EQ(finish(running[w]), 0) << output_of(std::to_string(w), "err");
    }
  }
  // Every key was removed once: a lost remove leaves its 1000 keys present.
  std::vector<std::uint64_t> counts;
  ASSERT_TRUE(matches(absent_count(f, every), "present={N} absent={N}\n", &counts));
  EXPECT_LT(counts[0], 100u) << "a remove was lost";
}

TEST_F(FileWrites, ConcurrentMergesIntoOneFileAllLand) {
  const std::string out = work("all.bf");
  constexpr int writers = 3;
  std::string every;
  for (int w = 0; w < writers; ++w) {
    const std::string part = work(numbered("part", w) + ".bf");
    const std::string keys = make_keys(numbered("part", w), 3000);
    ok({"create", part, "--capacity", "20000", "--fpp", "0.01"});
    ok({"add", part}, keys);
    every += keys;
  }
  for (int round = 0; round < 3; ++round) {
    ok({"create", out, "--capacity", "20000", "--fpp", "0.01"});
    std::vector<process> running;
    for (int w = 0; w < writers; ++w) {
      running.push_back(start({"merge", out, out, work(numbered("part", w) + ".bf")}, "/dev/null",
                              std::to_string(w)));
    }
    for (int w = 0; w < writers; ++w) {
      EXPECT_EQ(finish(running[w]), 0) << output_of(std::to_string(w), "err");
    }
    ASSERT_EQ(absent_count(out, every), all_present(writers * 3000))
        << "round " << round << ": a merge was lost";
  }
}

// `build` replaces its file; an `add` started while the build reads its input waits for it and
// lands on the built filter instead of being overwritten by it.
TEST_F(FileWrites, AddDuringBuildLandsAfterIt) {
  const std::string f = work("f.bf");
  ok({"create", f, "--capacity", "1000", "--fpp", "0.01"});
  process build = start({"build", f, "--capacity", "1000", "--fpp", "0.01"}, "", "build");
  feed(build, "built-1\nbuilt-2\n");
  wait_until_held(1);
  write("added", "added-1\nadded-2\n");
  process add = start({"add", f}, at("added"), "add");
  EXPECT_FALSE(wait_for(add, 200ms)) << "add did not wait for the build";
  EXPECT_EQ(finish(build), 0) << output_of("build", "err");
  EXPECT_EQ(finish(add), 0) << output_of("add", "err");
  EXPECT_EQ(absent_count(f, "built-1\nbuilt-2\nadded-1\nadded-2\n"), all_present(4));
}

// Every command that writes a file waits while another writer holds it (here the library's
// lock_for_update, as a program doing load-change-save would), and proceeds once it is free.
TEST_F(FileWrites, EveryWriterWaitsForTheLock) {
  const std::string f = work("f.bf");
  const std::string counting = work("c.bf");
  const std::string peer = work("f.bnb");
  ok({"create", counting, "--capacity", "100", "--fpp", "0.01", "--kind", "counting"});
  ok({"add", counting, "k"});
  ok({"import", bnb_input, work("bnb.bf"), "--from", "bits-and-blooms"});
  const std::vector<std::pair<std::string, std::vector<std::string>>> writers = {
      {f, {"create", f, "--capacity", "100", "--fpp", "0.01"}},
      {f, {"add", f, "k"}},
      {counting, {"remove", counting, "k"}},
      {f, {"merge", f, f, f}},
      {f, {"build", f, "--capacity", "100", "--fpp", "0.01"}},
      {f, {"import", bnb_input, f, "--from", "bits-and-blooms"}},
      {peer, {"export", work("bnb.bf"), peer, "--to", "bits-and-blooms"}},
  };
  for (const auto& [target, args] : writers) {
    const std::string before = fs::exists(target) ? read_file(target) : "";
    bloomkit::file_lock lock = bloomkit::lock_for_update(target);
    process p = start(args, "/dev/null", args[0]);
    EXPECT_FALSE(wait_for(p, 150ms)) << args[0] << " did not wait for the lock";
    EXPECT_EQ(fs::exists(target) ? read_file(target) : "", before) << args[0];
    lock.unlock();
    EXPECT_EQ(finish(p), 0) << args[0] << ": " << output_of(args[0], "err");
  }
  EXPECT_EQ(work_entries(), (std::set<std::string>{"f.bf", "c.bf", "bnb.bf", "f.bnb"}));
}

}  // namespace
