// End-to-end tests of how the bloomkit tool replaces files (docs/CLI.md, "Concurrent writers and
// replacing files"): concurrent writers serialize on the target and all land; a symlink is
// written through and stays a link; a target that is not a regular file is refused untouched;
// modes follow the umask for new files and are kept for replaced ones; a signal leaves no temp
// or lock file; long names work; a command that cannot report its result changes nothing.

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <chrono>
#include <csignal>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "bloomkit/bloomkit.hpp"
#include "cli_support.hpp"
#include "support/umask_scope.hpp"

namespace {

using namespace bloomkit::cli_test;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A bloomkit process running in the background; stdin from a file or from a pipe the test holds.
struct process {
  pid_t pid = -1;
  int stdin_pipe = -1;  // the write end when stdin is a pipe
  std::optional<int> status;
};

class FileWrites : public Cli {
 protected:
  void SetUp() override {
    Cli::SetUp();
    fs::create_directory(dir_ / "w");
  }

  // A path in the work dir, where every file the tool writes lives (the harness's own files
  // stay out of it, so its listing is exactly what the tests made).
  std::string work(const std::string& name) const { return (dir_ / "w" / name).string(); }
  std::set<std::string> work_entries() const {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_ / "w")) {
      names.insert(e.path().filename().string());
    }
    return names;
  }

  // Starts bloomkit with `args`; stdin is the file `stdin_path`, or a pipe when it is empty.
  // stdout and stderr go to files named after `tag` in the temp dir.
  process start(const std::vector<std::string>& args, const std::string& stdin_path,
                const std::string& tag) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    process p;
    int pipe_fds[2] = {-1, -1};
    if (stdin_path.empty()) {
      EXPECT_EQ(::pipe2(pipe_fds, O_CLOEXEC), 0);
      posix_spawn_file_actions_adddup2(&actions, pipe_fds[0], 0);
    } else {
      posix_spawn_file_actions_addopen(&actions, 0, stdin_path.c_str(), O_RDONLY, 0);
    }
    const std::string out = at(".out-" + tag);
    const std::string err = at(".err-" + tag);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    // Whatever the test runner ignores, the tool gets the default dispositions.
    EXPECT_EQ(bloomkit::test::spawn_with_default_signals(&p.pid, BLOOMKIT_EXE, args, &actions), 0);
    posix_spawn_file_actions_destroy(&actions);
    if (stdin_path.empty()) {
      ::close(pipe_fds[0]);
      p.stdin_pipe = pipe_fds[1];
    }
    return p;
  }

  static void feed(process& p, const std::string& bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(p.stdin_pipe, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      ASSERT_GT(n, 0) << std::strerror(errno);
      done += static_cast<std::size_t>(n);
    }
  }

  // The exit status (128 + signal when killed) once `p` ended within `limit`, else nothing.
  static std::optional<int> wait_for(process& p, std::chrono::milliseconds limit) {
    if (p.status) return p.status;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (true) {
      int status = 0;
      const pid_t r = ::waitpid(p.pid, &status, WNOHANG);
      if (r == p.pid) {
        p.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return p.status;
      }
      if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
      std::this_thread::sleep_for(1ms);
    }
  }

  // Closes stdin and waits (a hung process is killed and fails the test).
  static int finish(process& p) {
    if (p.stdin_pipe >= 0) {
      ::close(p.stdin_pipe);
      p.stdin_pipe = -1;
    }
    if (const auto status = wait_for(p, 20s)) return *status;
    ADD_FAILURE() << "bloomkit did not end; killing it";
    ::kill(p.pid, SIGKILL);
    return wait_for(p, 20s).value_or(-1);
  }

  std::string output_of(const std::string& tag, const char* stream = "out") const {
    return read(std::string(".") + stream + "-" + tag);
  }

  // `query --count` of `keys` (one per line).
  std::string absent_count(const std::string& file, const std::string& keys) {
    return ok({"query", file, "--count"}, keys);
  }

  // Waits (up to 5 s) until something besides `file_count` files is in the work dir: a writer
  // running in the background holds its target (its lock file is there).
  void wait_until_held(std::size_t file_count) const {
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (work_entries().size() <= file_count && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(1ms);
    }
  }
};

// "<prefix><n>" (a helper: `"literal" + std::to_string(n)` trips GCC 12's -Wrestrict).
std::string numbered(const char* prefix, long n) {
  std::string s = prefix;
  s += std::to_string(n);
  return s;
}

std::string all_present(std::size_t n) {
  return "present=" + std::to_string(n) + " absent=0\n";
}

const std::string bnb_input =
    std::string(BLOOMKIT_INTEROP_DATA) + "/bits_and_blooms/bnb_n1000_p0.01.bin";

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

// ---------------------------------------------------------------------------------------------
// Symlinks are written through; what is not a regular file is refused, untouched.

TEST_F(FileWrites, WritesGoThroughSymlinksAndTheLinkStays) {
  fs::create_directory(work("real"));
  const std::string real = work("real/f.bf");
  ok({"create", real, "--capacity", "100", "--fpp", "0.01"});
  // A chain: w/link.bf -> w/real/hop.bf (relative to the link's dir) -> f.bf (relative to real/).
  fs::create_symlink("f.bf", work("real/hop.bf"));
  fs::create_symlink("real/hop.bf", work("link.bf"));
  const std::string link = work("link.bf");
  EXPECT_EQ(ok({"add", link, "k1", "k2"}), "added 2 new of 2 keys\n");
  ok({"merge", link, link});
  ok({"create", work("other.bf"), "--capacity", "100", "--fpp", "0.01"});
  ok({"merge", link, link, work("other.bf")});
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(fs::is_symlink(work("real/hop.bf")));
  EXPECT_EQ(fs::read_symlink(link), "real/hop.bf");
  EXPECT_EQ(absent_count(real, "k1\nk2\n"), all_present(2));
  // A dangling link names the file to create.
  fs::create_symlink("real/new.bf", work("dangling.bf"));
  ok({"create", work("dangling.bf"), "--capacity", "100", "--fpp", "0.01"});
  EXPECT_TRUE(fs::is_symlink(work("dangling.bf")));
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(work("real/new.bf"))));
  // An absolute link, and export through one.
  ok({"import", bnb_input, work("bnb.bf"), "--from", "bits-and-blooms"});
  write_file(work("real/peer.bnb"), "old");
  fs::create_symlink(work("real/peer.bnb"), work("peer.bnb"));
  ok({"export", work("bnb.bf"), work("peer.bnb"), "--to", "bits-and-blooms"});
  EXPECT_TRUE(fs::is_symlink(work("peer.bnb")));
  EXPECT_EQ(read_file(work("real/peer.bnb")), read_file(bnb_input));
}

TEST_F(FileWrites, SymlinkLoopIsAnError) {
  fs::create_symlink("b.bf", work("a.bf"));
  fs::create_symlink("a.bf", work("b.bf"));
  expect_error_naming(run({"create", work("a.bf"), "--capacity", "100", "--fpp", "0.01"}),
                      work("a.bf"));
  EXPECT_TRUE(fs::is_symlink(work("a.bf")));
  EXPECT_TRUE(fs::is_symlink(work("b.bf")));
  EXPECT_EQ(work_entries(), (std::set<std::string>{"a.bf", "b.bf"}));
}

// Every writing command, with `target` as the file it writes.
std::vector<std::vector<std::string>> writers_of(const std::string& target,
                                                 const std::string& filter,
                                                 const std::string& bnb) {
  return {{"create", target, "--capacity", "100", "--fpp", "0.01"},
          {"add", target, "k"},
          {"remove", target, "k"},
          {"merge", target, filter},
          {"build", target, "--capacity", "100", "--fpp", "0.01", "/dev/null"},
          {"import", bnb_input, target, "--from", "bits-and-blooms"},
          {"export", bnb, target, "--to", "bits-and-blooms"}};
}

TEST_F(FileWrites, NonRegularTargetsAreRefusedUntouched) {
  const std::string filter = work("f.bf");
  const std::string bnb = work("bnb.bf");
  ok({"create", filter, "--capacity", "100", "--fpp", "0.01"});
  ok({"import", bnb_input, bnb, "--from", "bits-and-blooms"});
  const std::string fifo = work("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  fs::create_directory(work("dir"));
  fs::create_symlink("fifo", work("fifo-link"));
  std::vector<std::string> targets = {fifo, work("dir"), work("fifo-link")};
  const bool root = ::geteuid() == 0;
  if (root) {  // a device node like /dev/null, which a root `bloomkit create` used to destroy
    ASSERT_EQ(::mknod(work("null").c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
    targets.push_back(work("null"));
  }
  for (const std::string& target : targets) {
    for (const auto& args : writers_of(target, filter, bnb)) {
      process p = start(args, "/dev/null", "refused");
      const auto status = wait_for(p, 10s);
      if (!status) {
        ::kill(p.pid, SIGKILL);
        finish(p);
      }
      ASSERT_TRUE(status) << args[0] << " " << target << " hung";
      EXPECT_EQ(*status, 1) << args[0] << " " << target;
      const std::string err = output_of("refused", "err");
      EXPECT_NE(err.find(target), std::string::npos) << err;
      EXPECT_NE(err.find("not a regular file"), std::string::npos) << err;
    }
  }
  EXPECT_EQ(fs::status(fifo).type(), fs::file_type::fifo);
  EXPECT_TRUE(fs::is_directory(work("dir")));
  EXPECT_TRUE(fs::is_empty(work("dir")));
  EXPECT_TRUE(fs::is_symlink(work("fifo-link")));
  std::set<std::string> expected = {"f.bf", "bnb.bf", "fifo", "dir", "fifo-link"};
  if (root) {
    EXPECT_EQ(fs::status(work("null")).type(), fs::file_type::character);
    expected.insert("null");
  }
  EXPECT_EQ(work_entries(), expected);
}

// ---------------------------------------------------------------------------------------------
// Modes: new files get 0666 & ~umask; a replaced file keeps its mode and owner.

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST_F(FileWrites, NewFilesHonourTheUmask) {
  const bloomkit::test::umask_scope mask(027);  // the tool inherits it
  ok({"create", work("created.bf"), "--capacity", "100", "--fpp", "0.01"});
  ok({"build", work("built.bf"), "--capacity", "100", "--fpp", "0.01"}, "a\n");
  ok({"merge", work("merged.bf"), work("created.bf")});
  ok({"import", bnb_input, work("imported.bf"), "--from", "bits-and-blooms"});
  ok({"export", work("imported.bf"), work("exported.bnb"), "--to", "bits-and-blooms"});
  for (const char* name : {"created.bf", "built.bf", "merged.bf", "imported.bf", "exported.bnb"}) {
    EXPECT_EQ(mode_of(work(name)), 0640u) << name;
  }
  const bloomkit::test::umask_scope open(0);
  ok({"create", work("open.bf"), "--capacity", "100", "--fpp", "0.01"});
  EXPECT_EQ(mode_of(work("open.bf")), 0666u);
}

TEST_F(FileWrites, ReplacedFilesKeepTheirModeAndOwner) {
  const std::string f = work("f.bf");
  ok({"create", f, "--capacity", "100", "--fpp", "0.01"});
  for (const mode_t mode : {0600, 0640, 0444, 0604}) {
    ASSERT_EQ(::chmod(f.c_str(), mode), 0);
    ok({"add", f, numbered("k", mode)});
    EXPECT_EQ(mode_of(f), mode) << "after add";
    ok({"merge", f, f});
    EXPECT_EQ(mode_of(f), mode) << "after merge";
    ok({"create", f, "--capacity", "100", "--fpp", "0.01"});
    EXPECT_EQ(mode_of(f), mode) << "after create";
  }
  if (::geteuid() != 0) GTEST_SKIP() << "changing a file's owner needs root";
  ASSERT_EQ(::chown(f.c_str(), 4321, 4322), 0);
  ok({"add", f, "owned"});
  struct stat st {};
  ASSERT_EQ(::stat(f.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 4321u);
  EXPECT_EQ(st.st_gid, 4322u);
}

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
      ::kill(p.pid, GetParam());
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
  ::kill(p.pid, GetParam());
  EXPECT_EQ(finish(p), 128 + GetParam());
  EXPECT_EQ(work_entries(), std::set<std::string>{"f.bf"});
  EXPECT_EQ(read_file(f), before);
}

INSTANTIATE_TEST_SUITE_P(Signals, FileWritesSignal, ::testing::Values(SIGINT, SIGTERM, SIGHUP),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return std::string(sigabbrev_np(info.param));
                         });

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
