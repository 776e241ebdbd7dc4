// How bloomkit replaces files (include/bloomkit/file_writer.hpp): save() and write_file() write
// through symlinks, refuse targets that are not regular files, honour the umask for new files
// and keep a replaced file's mode and owner, work for the longest file names, leave nothing
// behind; lock_for_update() serializes writers of one file across threads and processes.

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/file.hpp"
#include "support/errors.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit {
namespace {

namespace fs = std::filesystem;
using test::temp_dir;

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

class umask_scope {
 public:
  explicit umask_scope(mode_t mask) : old_(::umask(mask)) {}
  ~umask_scope() { ::umask(old_); }

 private:
  mode_t old_;
};

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

}  // namespace
}  // namespace bloomkit
