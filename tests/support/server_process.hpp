#pragma once
// What the Redis fixtures share (tests/support/redis_server.hpp, redis_sentinel.hpp): free
// ports, child processes stopped by PID, their logs, waiting for a condition, and one command
// over a fresh plain hiredis connection (independent of the client under test).

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bloomkit/redis/client.hpp"

namespace bloomkit::test {

bool on_path(const std::string& program);

// A free port whose cluster bus port (+10000) is free too; both below the ephemeral range.
int pick_port();

// fork + exec; stdout/stderr go to `log`. The child dies with the thread that started it
// (PR_SET_PDEATHSIG).
pid_t spawn(const std::vector<std::string>& args, const std::filesystem::path& log);
// Waits for the child; SIGKILL after `limit`. Returns its exit status (-1 if killed).
int wait_for(pid_t pid, std::chrono::milliseconds limit);

std::string read_text(const std::filesystem::path& p);
std::string tail(const std::string& text, std::size_t n = 1500);

// Polls `done` every 20 ms; throws std::runtime_error("timed out waiting for " + what()).
void wait_until(const std::function<bool()>& done, std::chrono::milliseconds limit,
                const std::function<std::string()>& what);

// "name:value" lines of INFO: the value of `name`, empty if absent.
std::string field(const std::string& info, const std::string& name);

// Where the fixtures reach a server in plain text: its TCP port, or its unix socket (servers
// whose TCP port speaks TLS only).
struct raw_target {
  int port = 0;
  std::filesystem::path unix_socket;
};

// One command over a fresh hiredis connection (AUTH first when a password is given); nullopt if
// the server cannot be reached.
std::optional<redis::reply> try_command(const raw_target& target, const std::string& password,
                                        const std::vector<std::string>& args);

}  // namespace bloomkit::test
