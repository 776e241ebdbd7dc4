#pragma once
// The harness of the `bloomkit redis ...` tests: run() starts the real binary (BLOOMKIT_EXE) with
// stdin, stdout and stderr in files and waits; the RedisCli fixture adds `--url <its server>`.

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/child_process.hpp"
#include "support/redis_fixtures.hpp"
#include "support/redis_server.hpp"
#include "support/spawn.hpp"
#include "support/temp_dir.hpp"

#ifndef BLOOMKIT_EXE
#error "BLOOMKIT_EXE must be the path of the bloomkit binary"
#endif

namespace bloomkit::redis_cli_test {

namespace fs = std::filesystem;
using bloomkit::test::redis_cluster;
using bloomkit::test::redis_server;

using result = bloomkit::test::process_result;

inline std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Starts bloomkit with `args`, its stdin read from paths[0], stdout and stderr written to
// paths[1] and paths[2]; does not wait for it.
inline pid_t start(const std::vector<std::string>& args, const std::array<fs::path, 3>& paths) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, paths[0].c_str(), O_RDONLY, 0);
  for (int fd : {1, 2}) {
    posix_spawn_file_actions_addopen(&actions, fd, paths[fd].c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
  }
  pid_t pid = -1;
  EXPECT_EQ(bloomkit::test::spawn_with_default_signals(&pid, BLOOMKIT_EXE, args, &actions), 0);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

// Runs bloomkit with `args`, `input` on stdin; stdout and stderr go through files in `dir`.
inline result run(const fs::path& dir, const std::vector<std::string>& args,
                  const std::string& input = "") {
  const fs::path in = dir / "stdin", out = dir / "stdout", err = dir / "stderr";
  std::ofstream(in, std::ios::binary | std::ios::trunc) << input;
  const pid_t pid = start(args, {in, out, err});
  int status = 0;
  ::waitpid(pid, &status, 0);
  result r;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

inline std::string lines(int from, int to) {
  std::string s;
  for (int i = from; i < to; ++i) s += "key-" + std::to_string(i) + "\n";
  return s;
}

class RedisCli : public bloomkit::test::single_server_test {
 protected:
  // bloomkit redis --url <server> args...
  result redis(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), {"redis", "--url", server_->url()});
    return run(dir_.path(), args, input);
  }
  bloomkit::test::temp_dir dir_;
};

}  // namespace bloomkit::redis_cli_test
