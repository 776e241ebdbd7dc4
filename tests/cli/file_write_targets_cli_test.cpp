// What the bloomkit tool writes to (docs/CLI.md, "Concurrent writers and replacing files"): a
// symlink is written through and stays a link; a target that is not a regular file is refused
// untouched; modes follow the umask for new files and are kept for replaced ones.

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "file_writes_fixture.hpp"
#include "support/umask_scope.hpp"

namespace {

using namespace bloomkit::cli_test;
namespace fs = std::filesystem;

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

}  // namespace
