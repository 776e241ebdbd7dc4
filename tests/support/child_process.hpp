#pragma once
// A program run in the background for tests that act while it runs: stdin is a pipe the test
// writes into (and closes), stdout and stderr go to files in a directory of the test's, and
// wait() returns the exit status (128 + signal when killed). The child gets SIGPIPE's default
// action and dies with the test (PR_SET_PDEATHSIG).

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "spawn.hpp"

namespace bloomkit::test {

struct process_result {
  int status = -1;  // exit code, or 128 + signal
  std::string out;
  std::string err;
};

inline std::ostream& operator<<(std::ostream& os, const process_result& r) {
  return os << "status " << r.status << "\n--- stdout ---\n"
            << r.out << "\n--- stderr ---\n"
            << r.err;
}

class child_process {
 public:
  // Starts `argv[0]` with `argv`; `tag` names its output files inside `dir`.
  child_process(const std::vector<std::string>& argv, const std::filesystem::path& dir,
                const std::string& tag)
      : out_(dir / (tag + ".out")), err_(dir / (tag + ".err")) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      ::signal(SIGPIPE, SIG_DFL);
      const int out = ::open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int err = ::open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (out < 0 || err < 0) ::_exit(127);
      ::dup2(fds[0], 0);
      ::dup2(out, 1);
      ::dup2(err, 2);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    ::close(fds[0]);
    stdin_ = fds[1];
  }
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;
  ~child_process() {
    close_stdin();
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }

  pid_t pid() const { return pid_; }

  // Writes to the child's stdin; false once the child stopped reading (EPIPE).
  bool write(const std::string& bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::write(stdin_, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }

  // Waits until the child has `path` mapped (a line of /proc/<pid>/maps names it), at most
  // `timeout`: a test that changes a file under a reader's mapping must know the reader mapped it
  // first, however long a loaded machine takes to start the reader. False at once if the child
  // ended first.
  bool wait_until_mapped(const std::filesystem::path& path, std::chrono::milliseconds timeout) {
    // Built by append: GCC 12 at -O3 warns falsely (-Wrestrict) on "literal" + string.
    const std::string suffix = std::string(" ").append(path.string());
    const std::string maps = std::string("/proc/").append(std::to_string(pid_)).append("/maps");
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    do {
      std::ifstream in(maps);
      for (std::string line; std::getline(in, line);) {
        if (line.size() >= suffix.size() &&
            line.compare(line.size() - suffix.size(), suffix.size(), suffix) == 0) {
          return true;
        }
      }
      if (child_ended(pid_)) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    } while (std::chrono::steady_clock::now() < deadline);
    return false;
  }

  void close_stdin() {
    if (stdin_ >= 0) ::close(stdin_);
    stdin_ = -1;
  }

  // Closes stdin, waits for the exit and reads what the child wrote.
  process_result wait() {
    close_stdin();
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    process_result r;
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(out_);
    r.err = slurp(err_);
    return r;
  }

 private:
  static std::string slurp(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  std::filesystem::path out_;
  std::filesystem::path err_;
  pid_t pid_ = -1;
  int stdin_ = -1;
};

}  // namespace bloomkit::test
