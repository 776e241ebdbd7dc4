// A bloomkit writer interrupted by SIGINT, SIGTERM or SIGHUP leaves no temp or lock file, and the
// old file whole (docs/CLI.md, "Concurrent writers and replacing files").

#include <csignal>
#include <cstring>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "file_writes_fixture.hpp"
#include "support/spawn.hpp"

namespace {

using namespace bloomkit::cli_test;
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Signals: an interrupted writer leaves no temp file and no lock file, and the old file whole.

class FileWritesSignal : public FileWrites, public ::testing::WithParamInterface<int> {};

// A create of a 16 MB filter, signalled as soon as anything besides the target appears in the
// directory (the old writer's temp file, or the lock file).
TEST_P(FileWritesSignal, InterruptedCreateLeavesNothingBehind) {
  const std::string f = work("f.bf");
  ok({"create", f, "--capacity", "100", "--fpp", "0.01"});
  const std::string before = read_file(f);
  process p = start({"create", f, "--capacity", "1.3e7", "--fpp", "0.01"}, "/dev/null", "big");
  bool signalled = false;
  while (!wait_for(p, 0ms)) {
    if (work_entries().size() > 1) {
      bloomkit::test::send_signal(p.pid, GetParam());
      signalled = true;
      break;
    }
  }
  const int status = finish(p);
  if (signalled) {
    EXPECT_EQ(status, 128 + GetParam());
  }
  EXPECT_EQ(work_entries(), std::set<std::string>{"f.bf"});
  if (status != 0) {
    EXPECT_EQ(read_file(f), before);
  }
}

// A build reading a slow stdin, signalled while it holds its target.
TEST_P(FileWritesSignal, InterruptedBuildLeavesNothingBehind) {
  const std::string f = work("f.bf");
  ok({"create", f, "--capacity", "100", "--fpp", "0.01"});
  const std::string before = read_file(f);
  process p = start({"build", f, "--capacity", "1e6", "--fpp", "0.01"}, "", "build");
  feed(p, make_keys("slow", 1000));
  wait_until_held(1);
  bloomkit::test::send_signal(p.pid, GetParam());
  EXPECT_EQ(finish(p), 128 + GetParam());
  EXPECT_EQ(work_entries(), std::set<std::string>{"f.bf"});
  EXPECT_EQ(read_file(f), before);
}

INSTANTIATE_TEST_SUITE_P(Signals, FileWritesSignal, ::testing::Values(SIGINT, SIGTERM, SIGHUP),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(sigabbrev_np(info.param));
                         });

}  // namespace
