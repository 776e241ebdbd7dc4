#pragma once
// The harness of the file-writing tests: the FileWrites fixture (a Cli whose tool writes only in
// its work dir, with bloomkit processes started in the background and waited for) and their
// inputs.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "cli_support.hpp"

namespace bloomkit::cli_test {

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
inline std::string numbered(const char* prefix, long n) {
  std::string s = prefix;
  s += std::to_string(n);
  return s;
}

inline std::string all_present(std::size_t n) {
  return "present=" + std::to_string(n) + " absent=0\n";
}

inline const std::string bnb_input =
    std::string(BLOOMKIT_INTEROP_DATA) + "/bits_and_blooms/bnb_n1000_p0.01.bin";

}  // namespace bloomkit::cli_test
