// The tool on mapped files that change while it runs (issue 11, item 2). A filter file replaced
// with `cp` over it while `bloomkit query` streams, or a `build` input truncated mid-run (log
// rotation), killed the tool with SIGBUS (exit 135, no message); now each is an error naming
// the file (exit 1) and nothing wrong is answered or written. Replacing the filter with `mv`
// (a rename) is safe: the running query keeps answering from the file it mapped.

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cli_support.hpp"

namespace bloomkit::cli_test {
namespace {

constexpr auto io_timeout = std::chrono::seconds(20);

// Runs a program to completion (cp, mv); returns its exit status.
int run_program(const std::vector<std::string>& args) {
  std::vector<std::string> storage = args;
  std::vector<char*> argv;
  for (std::string& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (::posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// A bloomkit process whose stdin and stdout are pipes the test drives (stderr goes to a file):
// for a query that streams keys, answering each batch as it comes.
class interactive {
 public:
  interactive(const std::vector<std::string>& args, std::string err_path)
      : err_path_(std::move(err_path)) {
    int in[2];
    int out[2];
    EXPECT_EQ(::pipe2(in, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(out, O_CLOEXEC), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    EXPECT_EQ(bloomkit::test::spawn_with_default_signals(&pid_, BLOOMKIT_EXE, args, &actions), 0);
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    to_child_ = in[1];
    from_child_ = out[0];
  }
  interactive(const interactive&) = delete;
  interactive& operator=(const interactive&) = delete;
  ~interactive() {
    if (pid_ > 0) finish();
  }

  // Writes `text` to the tool's stdin (false once it stopped reading).
  bool send(const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(to_child_, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }

  // Reads stdout until it holds `lines` more lines (or it ends, or the timeout); returns them.
  std::string read_lines(std::size_t lines) {
    const auto deadline = std::chrono::steady_clock::now() + io_timeout;
    std::string got;
    while (count_char(got, '\n') < lines && std::chrono::steady_clock::now() < deadline) {
      pollfd p{from_child_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      char buffer[65536];
      const ssize_t n = ::read(from_child_, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got.append(buffer, static_cast<std::size_t>(n));
    }
    return got;
  }

  // Writes `text` to stdin (from another thread, while stdout is read), closes stdin, reads the
  // rest of stdout and waits for the exit.
  result finish(const std::string& text = "") {
    result r;
    std::thread writer([&] {
      send(text);
      ::close(to_child_);
    });
    r.out = read_lines(static_cast<std::size_t>(-1));
    writer.join();
    ::close(from_child_);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.err = read_file(err_path_);
    return r;
  }

 private:
  std::string err_path_;
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
};

// "1\t<key>\n" for every key of `keys` (lines).
std::string all_present(const std::string& keys) {
  std::string out;
  std::size_t begin = 0;
  while (begin < keys.size()) {
    const std::size_t end = keys.find('\n', begin);
    out += "1\t" + keys.substr(begin, end - begin) + "\n";
    begin = end + 1;
  }
  return out;
}

class MappedCli : public Cli {
 protected:
  // Builds `name` of `kind` from `keys` with capacity `capacity`.
  void build(const std::string& name, const std::string& kind, const std::string& keys,
             std::size_t capacity) {
    write(name + ".keys", keys);
    ok({"build", at(name), "--fpp", "0.01", "--kind", kind, "--capacity", std::to_string(capacity),
        at(name + ".keys")});
  }
};

const std::vector<std::string> kinds = {"classic", "blocked", "counting", "scalable"};

// cp over the filter of a running query: the next batch fails with an error naming the file,
// exit 1 (not SIGBUS, exit 135), and no answer from the changed file is printed.
TEST_F(MappedCli, QueryFailsWhenTheFilterIsCopiedOverIt) {
  const std::string keys = make_keys("held", 20000);
  const std::string first = make_keys("held", 200);
  for (const std::string& kind : kinds) {
    for (const bool smaller : {true, false}) {
      SCOPED_TRACE(kind + (smaller ? ": a smaller filter" : ": a filter of the same size"));
      build("f.bf", kind, keys, 20000);
      build("other.bf", kind, make_keys("other", smaller ? 500 : 20000), smaller ? 500 : 20000);
      ASSERT_EQ(fs::file_size(at("other.bf")) == fs::file_size(at("f.bf")), !smaller);

      interactive query({"query", at("f.bf")}, at("query.err"));
      ASSERT_TRUE(query.send(first));
      EXPECT_EQ(query.read_lines(200), all_present(first));
      ASSERT_EQ(run_program({"cp", at("other.bf"), at("f.bf")}), 0);
      const result r = query.finish(keys);
      EXPECT_EQ(r.status, 1) << r;
      EXPECT_EQ(r.out, "") << r;
      EXPECT_EQ(r.err.rfind("bloomkit: error: " + at("f.bf") + ": ", 0), 0u) << r;
      EXPECT_NE(r.err.find("truncated or overwritten"), std::string::npos) << r;
      EXPECT_NE(r.err.find("mv"), std::string::npos) << r;
      EXPECT_EQ(count_char(r.err, '\n'), 1u) << r;
    }
  }
}

// mv (a rename) over the filter of a running query: it keeps answering from the file it mapped,
// and exits 0; the next query reads the new filter.
TEST_F(MappedCli, QueryKeepsAnsweringWhenTheFilterIsReplacedWithMv) {
  const std::string keys = make_keys("held", 20000);
  const std::string first = make_keys("held", 200);
  const std::string others = make_keys("other", 2000);
  for (const std::string& kind : kinds) {
    SCOPED_TRACE(kind);
    build("f.bf", kind, keys, 20000);
    build("new.bf", kind, others, 2000);
    interactive query({"query", at("f.bf")}, at("query.err"));
    ASSERT_TRUE(query.send(first));
    EXPECT_EQ(query.read_lines(200), all_present(first));
    ASSERT_EQ(run_program({"mv", at("new.bf"), at("f.bf")}), 0);
    const result r = query.finish(keys);
    EXPECT_EQ(r.status, 0) << r;
    EXPECT_EQ(r.err, "") << r;
    EXPECT_EQ(r.out, all_present(keys));
    EXPECT_EQ(ok({"query", at("f.bf"), "--count"}, others), "present=2000 absent=0\n");
  }
}

// A build input truncated while the build runs (log rotation by copytruncate): an error naming
// the input, exit 1, and no filter written. The build reads a FIFO first (a pipe the test
// writes), so the test knows the build is running, with every input opened, before it
// truncates the second input, which the build maps and reads afterwards.
TEST_F(MappedCli, BuildFailsWhenAnInputIsTruncatedWhileItRuns) {
  const std::string log = make_keys("log", 60000);  // about 3 MiB
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::vector<std::size_t> truncations = {
      0,                             // copytruncate: every page gone
      log.size() / 2 / page * page,  // the second half gone
      log.size() - 10,               // cut inside the last page: no page gone, its tail reads 0
  };
  for (const std::size_t size : truncations) {
    SCOPED_TRACE("truncated to " + std::to_string(size) + " bytes");
    write("app.log", log);
    fs::remove(at("fifo"));
    ASSERT_EQ(::mkfifo(at("fifo").c_str(), 0600), 0);
    interactive build({"build", at("out.bf"), "--capacity", "100000", "--fpp", "0.01", "--threads",
                       "2", at("fifo"), at("app.log")},
                      at("build.err"));
    // Opening the FIFO waits for the build to open it (its first input).
    const int fifo = ::open(at("fifo").c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(fifo, 0);
    ASSERT_EQ(::write(fifo, "first\n", 6), 6);
    // The build reads the FIFO only once every input is open: wait until it took the line.
    const auto deadline = std::chrono::steady_clock::now() + io_timeout;
    int unread = 1;
    while (::ioctl(fifo, FIONREAD, &unread) == 0 && unread > 0 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_EQ(unread, 0);
    ASSERT_EQ(::truncate(at("app.log").c_str(), static_cast<off_t>(size)), 0);
    ::close(fifo);
    const result r = build.finish();
    EXPECT_EQ(r.status, 1) << r;
    EXPECT_EQ(r.out, "") << r;
    EXPECT_EQ(r.err, "bloomkit: error: input '" + at("app.log") +
                         "' was truncated or overwritten while it was being read (rotate logs by "
                         "renaming them, or read a copy)\n")
        << r;
    EXPECT_FALSE(exists("out.bf"));
  }
}

}  // namespace
}  // namespace bloomkit::cli_test
