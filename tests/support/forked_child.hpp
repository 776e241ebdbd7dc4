#pragma once
// Runs part of a test in a forked child, so that a crash (a signal) fails the test instead of
// killing the whole suite. Fork from a single-threaded test body (gtest's main thread); the child
// may start threads of its own.

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

namespace bloomkit::test {

// What a wait() status means, for failure messages: "exit 0", "killed by signal 7 (Bus error)".
inline std::string describe_status(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           ::strsignal(WTERMSIG(status)) + ")";
  }
  return "status " + std::to_string(status);
}

// Runs body() in a child process and returns its wait() status. The child exits 0 when body
// returns without a new gtest failure (failures are printed by the child), 1 otherwise or when it
// throws.
template <class Body>
int status_of_child(Body&& body) {
  // The test's results so far: the child fails on failures of its own only.
  const ::testing::TestResult& results =
      *::testing::UnitTest::GetInstance()->current_test_info()->result();
  const int parts_before = results.total_part_count();
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ADD_FAILURE() << "fork: " << std::strerror(errno);
    return -1;
  }
  if (pid == 0) {
    int code = 1;
    try {
      body();
      code = 0;
      for (int i = parts_before; i < results.total_part_count(); ++i) {
        if (results.GetTestPartResult(i).failed()) code = 1;
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child: uncaught exception: %s\n", e.what());
    } catch (...) {
      std::fprintf(stderr, "child: uncaught exception\n");
    }
    std::fflush(stdout);
    std::fflush(stderr);
    ::_exit(code);  // no atexit handlers, no second run of the parent's cleanup
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// Runs body() in a child and expects it to exit 0 (no crash, no failed expectation).
template <class Body>
void expect_child_succeeds(Body&& body) {
  const int status = status_of_child(std::forward<Body>(body));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "the child process: " << describe_status(status);
}

}  // namespace bloomkit::test
