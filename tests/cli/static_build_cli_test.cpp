// `bloomkit build FILE --kind static --fpp P [KEYFILE...|-]` (docs/CLI.md): from files or a pipe,
// repeats allowed, every key present; spilled to the temp dir or not, the same bytes; a full disk
// or a signal leaves nothing behind; a seed that fails is retried; the other kinds' options are
// refused. The builder's test seams come through BLOOMKIT_STATIC_BUILD_TEST.

#include <sys/stat.h>

#include <csignal>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "file_writes_fixture.hpp"
#include "support/golden_vectors.hpp"
#include "support/scoped_env.hpp"
#include "support/spawn.hpp"

namespace {

using namespace bloomkit::cli_test;
using bloomkit::test::scoped_env;

constexpr const char* test_settings = "BLOOMKIT_STATIC_BUILD_TEST";

class StaticBuildCli : public FileWrites {
 protected:
  void SetUp() override {
    FileWrites::SetUp();
    keys_ = make_keys("static", 30000);
    // Every third key again, further down: 40000 lines, 30000 distinct keys.
    repeated_ = keys_ + make_keys("static", 10000);
  }

  // Expects every key of keys_ present in `file`.
  void expect_every_key_present(const std::string& file) {
    EXPECT_EQ(ok({"query", file, "--count"}, keys_), "present=30000 absent=0\n");
  }

  std::string keys_;
  std::string repeated_;
};

TEST_F(StaticBuildCli, FromFilesAndFromAPipeWithRepeats) {
  const std::size_t half = keys_.find('\n', keys_.size() / 2) + 1;
  write("a.txt", keys_.substr(0, half));
  write("b.txt", keys_.substr(half) + make_keys("static", 10000));
  const std::string from_files =
      ok({"build", work("f.bf"), "--kind", "static", "--fpp", "0.01", at("a.txt"), at("b.txt")});
  std::vector<std::uint64_t> numbers;
  EXPECT_TRUE(matches(from_files, "built " + work("f.bf") + ": {N} keys read, {N} new, in {S} s\n",
                      &numbers))
      << from_files;
  EXPECT_EQ(numbers, (std::vector<std::uint64_t>{40000, 30000}));
  expect_every_key_present(work("f.bf"));

  ok({"build", work("p.bf"), "--kind", "static", "--fpp", "0.01", "--threads", "3"}, repeated_,
     stdin_kind::pipe);
  expect_every_key_present(work("p.bf"));
  EXPECT_EQ(read_file(work("p.bf")), read_file(work("f.bf")));
  EXPECT_EQ(work_entries(), (std::set<std::string>{"f.bf", "p.bf"}));

  // About 2^-7 of other keys are present: at most 0.01, and not none.
  const std::string counts = ok({"query", work("f.bf"), "--count"}, make_keys("other", 30000));
  std::vector<std::uint64_t> answers;
  ASSERT_TRUE(matches(counts, "present={N} absent={N}\n", &answers)) << counts;
  EXPECT_GT(answers[0], 100u);
  EXPECT_LT(answers[0], 350u);
}

TEST_F(StaticBuildCli, SpilledBuildsWriteTheSameBytes) {
  ok({"build", work("memory.bf"), "--kind", "static", "--fpp", "0.001"}, repeated_,
     stdin_kind::pipe);
  {
    // 16 KiB of hashes in memory: the 40000 keys spill some twenty times.
    const scoped_env env({{test_settings, "memory=16384,bucket-bits=3"}});
    ok({"build", work("spilled.bf"), "--kind", "static", "--fpp", "0.001"}, repeated_,
       stdin_kind::pipe);
    fs::create_directory(at("tmp"));
    ok({"build", work("elsewhere.bf"), "--kind", "static", "--fpp", "0.001", "--temp-dir",
        at("tmp")},
       repeated_, stdin_kind::pipe);
    EXPECT_TRUE(fs::is_empty(at("tmp")));
  }
  EXPECT_EQ(read_file(work("spilled.bf")), read_file(work("memory.bf")));
  EXPECT_EQ(read_file(work("elsewhere.bf")), read_file(work("memory.bf")));
  expect_every_key_present(work("spilled.bf"));
  EXPECT_EQ(work_entries(), (std::set<std::string>{"memory.bf", "spilled.bf", "elsewhere.bf"}));
}

TEST_F(StaticBuildCli, AFullDiskLeavesTheOldFileAndNoTempFile) {
  ok({"build", work("f.bf"), "--kind", "static", "--fpp", "0.01"}, "old\n");
  const std::string before = read_file(work("f.bf"));
  const scoped_env env({{test_settings, "memory=16384,spill-limit=100000"}});
  const result r = run({"build", work("f.bf"), "--kind", "static", "--fpp", "0.01"}, repeated_,
                       stdin_kind::pipe);
  expect_error_naming(r, (dir_ / "w").string());
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r;
  EXPECT_EQ(read_file(work("f.bf")), before);
  EXPECT_EQ(work_entries(), std::set<std::string>{"f.bf"});
}

TEST_F(StaticBuildCli, AMissingTempDirIsAnError) {
  const result r =
      run({"build", work("f.bf"), "--kind", "static", "--fpp", "0.01", "--temp-dir", at("missing")},
          keys_);
  expect_error_naming(r, at("missing"));
  EXPECT_TRUE(work_entries().empty());
}

TEST_F(StaticBuildCli, ShardsThatFailASeedAreRetried) {
  ok({"build", work("first.bf"), "--kind", "static", "--fpp", "0.01"}, keys_);
  const scoped_env env({{test_settings, "failing-seeds=1"}});
  ok({"build", work("retried.bf"), "--kind", "static", "--fpp", "0.01"}, keys_);
  expect_every_key_present(work("retried.bf"));
  // Another seed: other cells, the same size.
  EXPECT_NE(read_file(work("retried.bf")), read_file(work("first.bf")));
  EXPECT_EQ(fs::file_size(work("retried.bf")), fs::file_size(work("first.bf")));
}

// The golden vector's keys (10 of them twice; binary bytes and the empty key), one per line,
// give its file byte for byte: read from a file, and from a pipe spilled key by key.
TEST_F(StaticBuildCli, GoldenKeysGiveTheGoldenFile) {
  const bloomkit::test::golden_vector v =
      bloomkit::test::read_golden(fs::path(BLOOMKIT_GOLDEN_DATA) / "static_string.txt");
  std::string lines;
  for (const auto& op : v.operations) {
    ASSERT_EQ(op.key.find('\n'), std::string::npos);
    lines += op.key + "\n";
  }
  ASSERT_EQ(v.kind, "static");
  const std::string golden = read_file(fs::path(BLOOMKIT_GOLDEN_DATA) / v.file);
  write("keys.txt", lines);
  ok({"build", work("f.bf"), "--kind", "static", "--fpp", "0.01", at("keys.txt")});
  EXPECT_EQ(read_file(work("f.bf")), golden);
  const scoped_env env({{test_settings, "memory=8,bucket-bits=2"}});
  ok({"build", work("p.bf"), "--kind", "static", "--fpp", "0.01", "-"}, lines, stdin_kind::pipe);
  EXPECT_EQ(read_file(work("p.bf")), golden);
}

class StaticBuildSignal : public StaticBuildCli, public ::testing::WithParamInterface<int> {};

// A build from a slow pipe, signalled after it has spilled: no filter, no temp file.
TEST_P(StaticBuildSignal, LeavesNothingBehind) {
  const scoped_env env({{test_settings, "memory=16384"}});
  process p = start({"build", work("f.bf"), "--kind", "static", "--fpp", "0.01"}, "", "build");
  feed(p, repeated_);
  wait_until_held(0);
  bloomkit::test::send_signal(p.pid, GetParam());
  EXPECT_EQ(finish(p), 128 + GetParam());
  EXPECT_TRUE(work_entries().empty()) << *work_entries().begin();
}

INSTANTIATE_TEST_SUITE_P(Signals, StaticBuildSignal, ::testing::Values(SIGINT, SIGTERM),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(sigabbrev_np(info.param));
                         });

TEST_F(StaticBuildCli, OtherKindsOptionsAreRefused) {
  const std::string f = work("f.bf");
  expect_usage_error(
      run({"build", f, "--kind", "static", "--fpp", "0.01", "--capacity", "100"}, keys_),
      "--capacity does not apply to --kind static: a static filter is sized for the distinct "
      "keys it is built from",
      "build");
  expect_usage_error(run({"build", f, "--kind", "static", "--fpp", "0.01", "--growth", "4"}, keys_),
                     "--growth applies only to --kind scalable", "build");
  expect_usage_error(
      run({"build", f, "--kind", "static", "--fpp", "0.01", "--window", "1h"}, keys_),
      "--window applies only to --kind window", "build");
  expect_usage_error(run({"build", f, "--kind", "static", "--fpp", "0.01", "--now", "5"}, keys_),
                     "--now applies only to --kind window", "build");
  expect_usage_error(
      run({"build", f, "--fpp", "0.01", "--capacity", "10", "--temp-dir", work("")}, keys_),
      "--temp-dir applies only to --kind static", "build");
  const result bad_fpp = run({"build", f, "--kind", "static", "--fpp", "1e-12"}, keys_);
  EXPECT_EQ(bad_fpp.status, 2) << bad_fpp;
  EXPECT_NE(bad_fpp.err.find("2^-32"), std::string::npos) << bad_fpp;
  EXPECT_TRUE(work_entries().empty());
}

}  // namespace
