#pragma once
// Starting a program under test with posix_spawn: argv is the program's path then `args`, the
// caller's file actions set up its descriptors, and the signals a test runner may ignore
// (SIGPIPE, SIGINT, SIGTERM, SIGHUP) get their default action back in the child, so that the
// program dies of them as it would in a shell.

#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace bloomkit::test {

// Returns posix_spawn's error (0 on success, with *pid set).
inline int spawn_with_default_signals(pid_t* pid, const std::string& program,
                                      const std::vector<std::string>& args,
                                      const posix_spawn_file_actions_t* actions) {
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> storage{program};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  const int error = ::posix_spawn(pid, program.c_str(), actions, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  return error;
}

}  // namespace bloomkit::test
