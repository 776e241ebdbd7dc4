// How bloomkit replaces files (include/bloomkit/file_writer.hpp): save() and write_file() write
// through symlinks, refuse targets that are not regular files, honour the umask for new files
// and keep a replaced file's mode and owner, work for the longest file names, leave nothing
// behind; lock_for_update() serializes writers of one file across threads and processes.

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/file_writer.hpp"
#include "file/temp_file.hpp"
#include "support/errors.hpp"
#include "support/spawn.hpp"
#include "support/temp_dir.hpp"
#include "support/umask_scope.hpp"

extern char** environ;

namespace bloomkit {
namespace {

namespace fs = std::filesystem;
using test::temp_dir;
using test::umask_scope;

bloom_filter filter_with(std::initializer_list<std::string_view> keys) {
  auto f = bloom_filter::for_capacity(1000, 0.01);
  for (auto key : keys) f.insert(key);
  return f;
}

std::set<std::string> entries(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

mode_t mode_of(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(FileWriter, SaveWritesThroughSymlinksAndKeepsThem) {
  temp_dir dir;
  fs::create_directory(dir / "real");
  save(filter_with({}), dir / "real" / "f.bloom");
  fs::create_symlink("f.bloom", dir / "real" / "hop.bloom");       // relative to real/
  fs::create_symlink("real/hop.bloom", dir / "link.bloom");        // relative to dir
  fs::create_symlink(dir / "link.bloom", dir / "absolute.bloom");  // absolute
  save(filter_with({"a"}), dir / "absolute.bloom");
  EXPECT_TRUE(fs::is_symlink(dir / "absolute.bloom"));
  EXPECT_TRUE(fs::is_symlink(dir / "link.bloom"));
  EXPECT_TRUE(fs::is_symlink(dir / "real" / "hop.bloom"));
  EXPECT_TRUE(load(dir / "real" / "f.bloom").contains("a"));
  // A dangling link names the file to create.
  fs::create_symlink("real/new.bloom", dir / "dangling.bloom");
  save(filter_with({"b"}), dir / "dangling.bloom");
  EXPECT_TRUE(fs::is_symlink(dir / "dangling.bloom"));
  EXPECT_TRUE(load(dir / "real" / "new.bloom").contains("b"));
  EXPECT_EQ(entries(dir.path()),
            (std::set<std::string>{"real", "link.bloom", "absolute.bloom", "dangling.bloom"}));
  EXPECT_EQ(entries(dir / "real"), (std::set<std::string>{"f.bloom", "hop.bloom", "new.bloom"}));
}

TEST(FileWriter, SymlinkLoopIsAnError) {
  temp_dir dir;
  fs::create_symlink("b", dir / "a");
  fs::create_symlink("a", dir / "b");
  const std::string message =
      test::error_of([&] { save(filter_with({}), dir / "a"); }, errc::io_error);
  EXPECT_NE(message.find((dir / "a").string()), std::string::npos) << message;
  EXPECT_NE(message.find("symbolic links"), std::string::npos) << message;
  EXPECT_TRUE(fs::is_symlink(dir / "a"));
  EXPECT_EQ(entries(dir.path()), (std::set<std::string>{"a", "b"}));
}

TEST(FileWriter, NonRegularTargetsAreRefusedUntouched) {
  temp_dir dir;
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0644), 0);
  fs::create_directory(dir / "dir");
  fs::create_symlink("fifo", dir / "fifo-link");
  std::vector<fs::path> targets = {dir / "fifo", dir / "dir", dir / "fifo-link"};
  if (::geteuid() == 0) {
    ASSERT_EQ(::mknod((dir / "null").c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
    targets.push_back(dir / "null");
  }
  for (const fs::path& target : targets) {
    const std::string message =
        test::error_of([&] { save(filter_with({"x"}), target); }, errc::io_error);
    EXPECT_NE(message.find(target.string()), std::string::npos) << message;
    EXPECT_NE(message.find("not a regular file"), std::string::npos) << message;
  }
  EXPECT_EQ(fs::status(dir / "fifo").type(), fs::file_type::fifo);
  EXPECT_TRUE(fs::is_symlink(dir / "fifo-link"));
  EXPECT_TRUE(fs::is_empty(dir / "dir"));
  std::set<std::string> expected = {"fifo", "dir", "fifo-link"};
  if (::geteuid() == 0) {
    EXPECT_EQ(fs::status(dir / "null").type(), fs::file_type::character);
    expected.insert("null");
  }
  EXPECT_EQ(entries(dir.path()), expected);
}

TEST(FileWriter, NewFilesHonourTheUmask) {
  temp_dir dir;
  {
    const umask_scope mask(027);
    save(filter_with({}), dir / "f.bloom");
  }
  EXPECT_EQ(mode_of(dir / "f.bloom"), 0640u);
  {
    const umask_scope mask(0);
    save(filter_with({}), dir / "g.bloom");
  }
  EXPECT_EQ(mode_of(dir / "g.bloom"), 0666u);
}

TEST(FileWriter, ReplacedFilesKeepTheirModeAndOwner) {
  temp_dir dir;
  const fs::path f = dir / "f.bloom";
  save(filter_with({}), f);
  for (const mode_t mode : {0600, 0604, 0444, 0660}) {
    ASSERT_EQ(::chmod(f.c_str(), mode), 0);
    save(filter_with({"a"}), f);
    EXPECT_EQ(mode_of(f), mode);
  }
  if (::geteuid() != 0) GTEST_SKIP() << "changing a file's owner needs root";
  ASSERT_EQ(::chown(f.c_str(), 4321, 4322), 0);
  save(filter_with({"b"}), f);
  struct stat st {};
  ASSERT_EQ(::stat(f.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 4321u);
  EXPECT_EQ(st.st_gid, 4322u);
  EXPECT_TRUE(load(f).contains("b"));
}

TEST(FileWriter, LongestFileNamesWork) {
  temp_dir dir;
  for (const std::size_t length : {253u, 255u}) {
    const fs::path f = dir / std::string(length, 'n');
    save(filter_with({"a"}), f);
    save(filter_with({"b"}), f);
    EXPECT_TRUE(load(f).contains("b"));
    EXPECT_EQ(entries(dir.path()), std::set<std::string>{f.filename().string()});
    fs::remove(f);
  }
}

TEST(FileWriter, WriteFileReplacesBytesLikeSave) {
  temp_dir dir;
  const std::string text = "peer bytes";
  const std::span<const unsigned char> bytes(reinterpret_cast<const unsigned char*>(text.data()),
                                             text.size());
  write_file(dir / "peer.bin", bytes);
  ASSERT_EQ(::chmod((dir / "peer.bin").c_str(), 0600), 0);
  fs::create_symlink("peer.bin", dir / "link.bin");
  write_file(dir / "link.bin", bytes.first(4));
  EXPECT_TRUE(fs::is_symlink(dir / "link.bin"));
  EXPECT_EQ(fs::file_size(dir / "peer.bin"), 4u);
  EXPECT_EQ(mode_of(dir / "peer.bin"), 0600u);
  EXPECT_EQ(entries(dir.path()), (std::set<std::string>{"peer.bin", "link.bin"}));
}

TEST(FileWriter, AMissingDirectoryIsAnErrorNamingTheFile) {
  temp_dir dir;
  const fs::path target = dir / "missing" / "f.bloom";
  const std::string message =
      test::error_of([&] { save(filter_with({}), target); }, errc::io_error);
  EXPECT_NE(message.find(target.string()), std::string::npos) << message;
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

// Threads doing load-change-save cycles on one file under lock_for_update: none is lost.
TEST(FileWriter, ThreadsUpdatingOneFileSerialize) {
  temp_dir dir;
  const fs::path f = dir / "f.bloom";
  save(bloom_filter::for_capacity(10000, 0.01), f);
  constexpr int threads = 4;
  constexpr int updates = 10;
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      for (int i = 0; i < updates; ++i) {
        const file_lock lock = lock_for_update(f);
        auto filter = load(f);
        filter.insert(std::to_string(t) + "/" + std::to_string(i));
        save(filter, f);  // re-enters this thread's lock
      }
    });
  }
  for (std::thread& w : workers) w.join();
  const auto filter = load(f);
  for (int t = 0; t < threads; ++t) {
    for (int i = 0; i < updates; ++i) {
      EXPECT_TRUE(filter.contains(std::to_string(t) + "/" + std::to_string(i))) << t << "/" << i;
    }
  }
  EXPECT_EQ(entries(dir.path()), std::set<std::string>{"f.bloom"});
}

TEST(FileWriter, OtherThreadsWaitForAHeldLock) {
  temp_dir dir;
  const fs::path f = dir / "f.bloom";
  save(filter_with({}), f);
  file_lock lock = lock_for_update(f);
  EXPECT_TRUE(lock.owns_lock());
  EXPECT_EQ(lock.target(), f);
  // Held: a lock file beside the target.
  EXPECT_EQ(entries(dir.path()).size(), 2u);
  std::atomic<bool> saved{false};
  std::thread other([&] {
    save(filter_with({"other"}), f);
    saved = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(saved) << "a save did not wait for the lock another thread holds";
  EXPECT_FALSE(load(f).contains("other"));
  lock.unlock();
  EXPECT_FALSE(lock.owns_lock());
  other.join();
  EXPECT_TRUE(load(f).contains("other"));
  EXPECT_EQ(entries(dir.path()), std::set<std::string>{"f.bloom"});
}

TEST(FileWriter, TheLockIsReentrantAndFollowsSymlinks) {
  temp_dir dir;
  save(filter_with({}), dir / "f.bloom");
  fs::create_symlink("f.bloom", dir / "link.bloom");
  const file_lock outer = lock_for_update(dir / "link.bloom");
  EXPECT_EQ(outer.target(), dir / "f.bloom");
  {
    const file_lock inner = lock_for_update(dir / "f.bloom");  // the same target
    save(filter_with({"a"}), dir / "link.bloom");
  }
  save(filter_with({"a", "b"}), dir / "f.bloom");
  EXPECT_TRUE(load(dir / "f.bloom").contains("b"));
  EXPECT_TRUE(fs::is_symlink(dir / "link.bloom"));
}

TEST(FileWriter, DeferredSavesChangeNothingUntilCommit) {
  temp_dir dir;
  const fs::path f = dir / "f.bloom";
  save(filter_with({}), f);
  const auto before = test::read_bytes(f);
  {
    file_lock lock = lock_for_update(f);
    lock.defer_saves();
    save(filter_with({"staged"}), f);
    EXPECT_EQ(test::read_bytes(f), before);
    save(filter_with({"staged", "again"}), f);  // replaces the staged version
    EXPECT_EQ(test::read_bytes(f), before);
    lock.commit();
    EXPECT_TRUE(load(f).contains("again"));
    lock.commit();  // nothing staged: nothing to do
  }
  const auto committed = test::read_bytes(f);
  {
    file_lock lock = lock_for_update(f);
    lock.defer_saves();
    save(filter_with({"dropped"}), f);
  }  // released without commit: discarded
  EXPECT_EQ(test::read_bytes(f), committed);
  {
    file_lock lock = lock_for_update(dir / "new.bloom");
    lock.defer_saves();
    save(filter_with({}), dir / "new.bloom");
  }
  EXPECT_FALSE(fs::exists(dir / "new.bloom"));
  EXPECT_EQ(entries(dir.path()), std::set<std::string>{"f.bloom"});
}

// Where the file system has no O_TMPFILE, temp files have short hidden names, removed on every
// path.
TEST(FileWriter, NamedTempFilesLeaveNothingBehind) {
  temp_dir dir;
  detail::use_named_temp_files(true);
  const fs::path f = dir / std::string(255, 'n');
  save(filter_with({"a"}), f);
  save(filter_with({"a", "b"}), f);
  EXPECT_TRUE(load(f).contains("b"));
  {
    file_lock lock = lock_for_update(f);
    lock.defer_saves();
    save(filter_with({"dropped"}), f);
    EXPECT_EQ(entries(dir.path()).size(), 3u);  // the file, the lock file and the staged one
  }
  EXPECT_FALSE(load(f).contains("dropped"));
  detail::use_named_temp_files(false);
  EXPECT_EQ(entries(dir.path()), std::set<std::string>{f.filename().string()});
}

// A writer killed halfway by SIGINT, SIGTERM or SIGHUP leaves the old file whole and neither its
// temp file nor its lock file.
class FileWriterSignal : public ::testing::TestWithParam<std::tuple<int, bool>> {
 protected:
  static void SetUpTestSuite() { std::signal(SIGPIPE, SIG_IGN); }
};

// Starts file_writer_probe on `target` and waits until it is writing; its stdout is `*out`.
pid_t start_probe(const std::vector<std::string>& args, int* out) {
  int fds[2];
  EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  pid_t pid = -1;
  EXPECT_EQ(
      bloomkit::test::spawn_with_default_signals(&pid, BLOOMKIT_FILE_WRITER_PROBE, args, &actions),
      0);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  *out = fds[0];
  std::string said;
  char c = 0;
  while (said != "writing\n" && ::read(fds[0], &c, 1) == 1) said += c;
  EXPECT_EQ(said, "writing\n");
  return pid;
}

TEST_P(FileWriterSignal, KilledWriterLeavesNothingBehind) {
  const auto [sig, named] = GetParam();
  temp_dir dir;
  const fs::path f = dir / "f.bloom";
  save(filter_with({"old"}), f);
  const auto before = test::read_bytes(f);
  int out = -1;
  const pid_t pid = start_probe({named ? "named" : "unnamed", f.string()}, &out);
  // Mid-write: the lock file, and a named temp file where there is one.
  EXPECT_EQ(entries(dir.path()).size(), named ? 3u : 2u);
  ASSERT_EQ(test::send_signal(pid, sig), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ::close(out);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
  EXPECT_EQ(entries(dir.path()), std::set<std::string>{"f.bloom"});
  EXPECT_EQ(test::read_bytes(f), before);
}

INSTANTIATE_TEST_SUITE_P(Signals, FileWriterSignal,
                         ::testing::Combine(::testing::Values(SIGINT, SIGTERM, SIGHUP),
                                            ::testing::Bool()),
                         [](const ::testing::TestParamInfo<std::tuple<int, bool>>& info) {
                           return std::string(sigabbrev_np(std::get<0>(info.param))) +
                                  (std::get<1>(info.param) ? "_named" : "_unnamed");
                         });

// A program with its own handler decides: the writer's handler calls it and removes nothing, so
// a program that carries on finishes its write.
TEST(FileWriter, AProgramsOwnSignalHandlerIsCalledInstead) {
  temp_dir dir;
  const fs::path f = dir / "f.bloom";
  save(filter_with({"old"}), f);
  int out = -1;
  const pid_t pid = start_probe({"named", "own-handler", f.string()}, &out);
  ASSERT_EQ(test::send_signal(pid, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ::close(out);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  const auto after = test::read_bytes(f);
  EXPECT_EQ(std::string(after.begin(), after.end()), "new contents");
  EXPECT_EQ(entries(dir.path()), std::set<std::string>{"f.bloom"});
}

}  // namespace
}  // namespace bloomkit
