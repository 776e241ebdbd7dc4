// Names, own input and stdout of the bloomkit tool's writers (docs/CLI.md, "Concurrent writers and
// replacing files"): the longest file names work, converting a file onto itself is refused,
// export to "-" writes stdout, and a command that cannot report its result changes nothing.

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "file_writes_fixture.hpp"

namespace {

using namespace bloomkit::cli_test;
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Names, own input, stdout.

TEST_F(FileWrites, LongestFileNamesWork) {
  for (const std::size_t length : {253u, 254u, 255u}) {
    const std::string f = work(std::string(length - 3, 'n') + ".bf");
    ok({"create", f, "--capacity", "100", "--fpp", "0.01"});
    EXPECT_EQ(ok({"add", f, "k"}), "added 1 new of 1 keys\n");
    ok({"merge", f, f});
    ok({"build", f, "--capacity", "100", "--fpp", "0.01"}, "k\nj\n");
    EXPECT_EQ(absent_count(f, "k\nj\n"), all_present(2));
    const std::string peer = work(std::string(length - 4, 'p') + ".bnb");
    ok({"import", bnb_input, f, "--from", "bits-and-blooms"});
    ok({"export", f, peer, "--to", "bits-and-blooms"});
    EXPECT_EQ(read_file(peer), read_file(bnb_input));
    EXPECT_EQ(work_entries(), (std::set<std::string>{fs::path(f).filename().string(),
                                                     fs::path(peer).filename().string()}));
    fs::remove(f);
    fs::remove(peer);
  }
}

TEST_F(FileWrites, ConvertingAFileOntoItselfIsRefused) {
  const std::string f = work("bnb.bf");
  ok({"import", bnb_input, f, "--from", "bits-and-blooms"});
  const std::string before = read_file(f);
  fs::create_symlink("bnb.bf", work("link.bf"));
  fs::create_hard_link(f, work("hard.bf"));
  for (const std::string& out : {f, work("link.bf"), work("hard.bf")}) {
    const result r = run({"export", f, out, "--to", "bits-and-blooms"});
    expect_error_naming(r, f);
    EXPECT_NE(r.err.find("same file"), std::string::npos) << r;
    EXPECT_EQ(read_file(f), before);
  }
  const std::string peer = work("peer.bnb");
  write_file(peer, read_file(bnb_input));
  const result r = run({"import", peer, peer, "--from", "bits-and-blooms"});
  expect_error_naming(r, peer);
  EXPECT_NE(r.err.find("same file"), std::string::npos) << r;
  EXPECT_EQ(read_file(peer), read_file(bnb_input));
  EXPECT_TRUE(fs::is_symlink(work("link.bf")));
  EXPECT_EQ(work_entries(), (std::set<std::string>{"bnb.bf", "link.bf", "hard.bf", "peer.bnb"}));
}

TEST_F(FileWrites, ExportToDashWritesStdout) {
  const std::string f = work("bnb.bf");
  ok({"import", bnb_input, f, "--from", "bits-and-blooms"});
  const bool dash_existed = fs::exists("-");
  const result r = run({"export", f, "-", "--to", "bits-and-blooms"});
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.out, read_file(bnb_input));
  // The result line goes to stderr: stdout holds the peer's bytes only.
  EXPECT_EQ(r.err, "exported " + f + ": 9586 bits, 7 hashes, bits-and-blooms\n");
  if (!dash_existed) {
    EXPECT_FALSE(fs::exists("-")) << "export wrote a file named '-'";
    fs::remove("-");
  }
  EXPECT_EQ(work_entries(), std::set<std::string>{"bnb.bf"});
  if (!fs::exists("/dev/full")) return;
  const result full =
      run({"export", f, "-", "--to", "bits-and-blooms"}, "", stdin_kind::file, "/dev/full");
  EXPECT_EQ(full.status, 1) << full;
  EXPECT_EQ(full.err, "bloomkit: error: writing to stdout: No space left on device\n") << full;
  if (!dash_existed) fs::remove("-");
}

// A command whose result line cannot be written fails and leaves its file as it was.
TEST_F(FileWrites, FailingStdoutChangesNothing) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const std::string f = work("f.bf");
  const std::string counting = work("c.bf");
  const std::string bnb = work("bnb.bf");
  ok({"create", f, "--capacity", "100", "--fpp", "0.01"});
  ok({"create", counting, "--capacity", "100", "--fpp", "0.01", "--kind", "counting"});
  ok({"add", counting, "k"});
  ok({"import", bnb_input, bnb, "--from", "bits-and-blooms"});
  const std::string peer = work("f.bnb");
  write_file(peer, "old");
  const std::vector<std::pair<std::string, std::vector<std::string>>> commands = {
      {f, {"add", f, "new-key"}},
      {counting, {"remove", counting, "k"}},
      {f, {"merge", f, f, bnb}},  // fails anyway (incompatible): still nothing changes
      {f, {"create", f, "--capacity", "1000", "--fpp", "0.01"}},
      {f, {"build", f, "--capacity", "100", "--fpp", "0.01", "/dev/null"}},
      {f, {"import", bnb_input, f, "--from", "bits-and-blooms"}},
      {peer, {"export", bnb, peer, "--to", "bits-and-blooms"}},
      {work("new.bf"), {"create", work("new.bf"), "--capacity", "100", "--fpp", "0.01"}},
  };
  const std::set<std::string> entries = work_entries();
  for (const auto& [target, args] : commands) {
    const std::string before = fs::exists(target) ? read_file(target) : "<none>";
    const result r = run(args, "", stdin_kind::file, "/dev/full");
    EXPECT_EQ(r.status, 1) << r;
    EXPECT_EQ(fs::exists(target) ? read_file(target) : "<none>", before) << args[0];
    EXPECT_EQ(work_entries(), entries) << args[0];
  }
  // stdout a pipe whose reader is gone: killed by SIGPIPE (or an error), the file unchanged.
  const std::string before = read_file(f);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> storage{BLOOMKIT_EXE, "add", f, "piped-key"};
  std::vector<char*> argv;
  for (std::string& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  ASSERT_EQ(::posix_spawn(&pid, BLOOMKIT_EXE, &actions, &attr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ::close(fds[1]);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE) << status;
  EXPECT_EQ(read_file(f), before);
  EXPECT_EQ(work_entries(), entries);
}

}  // namespace
