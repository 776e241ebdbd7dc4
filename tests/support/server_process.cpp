#include "support/server_process.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "redis/client/hiredis_reply.hpp"

namespace bloomkit::test {
namespace {

using namespace std::chrono_literals;
using redis::reply;

bool port_free(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (::access((std::filesystem::path(dir) / program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

// A port whose cluster bus port (+10000) is free too; both below the ephemeral range (32768+)
// so outgoing connections never take them.
int pick_port() {
  static std::mt19937 rng(std::random_device{}() ^ static_cast<unsigned>(::getpid()));
  std::uniform_int_distribution<int> dist(12000, 22700);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const int port = dist(rng);
    if (port_free(port) && port_free(port + 10000)) return port;
  }
  throw std::runtime_error("redis_server: no free port pair found");
}

// fork + exec; stdout/stderr go to `log`. The child dies with the thread that started it.
pid_t spawn(const std::vector<std::string>& args, const std::filesystem::path& log) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const std::string log_path = log.string();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    const int fd = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::close(fd);
    }
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

// Waits for the child; SIGKILL after `limit`. Returns its exit status (-1 if killed).
int wait_for(pid_t pid, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (true) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (r < 0) return -1;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(5ms);
  }
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string tail(const std::string& text, std::size_t n) {
  return text.size() <= n ? text : text.substr(text.size() - n);
}

std::optional<reply> try_command(const raw_target& target, const std::string& password,
                                 const std::vector<std::string>& args) {
  const timeval timeout{5, 0};
  redisContext* ctx =
      target.unix_socket.empty()
          ? redisConnectWithTimeout("127.0.0.1", target.port, timeout)
          : redisConnectUnixWithTimeout(target.unix_socket.string().c_str(), timeout);
  if (ctx == nullptr) return std::nullopt;
  if (ctx->err != 0) {
    redisFree(ctx);
    return std::nullopt;
  }
  redisSetTimeout(ctx, timeout);
  auto run = [&](const std::vector<std::string>& a) -> std::optional<reply> {
    std::vector<const char*> argv;
    std::vector<std::size_t> lengths;
    for (const auto& s : a) {
      argv.push_back(s.data());
      lengths.push_back(s.size());
    }
    void* raw = redisCommandArgv(ctx, static_cast<int>(a.size()), argv.data(), lengths.data());
    if (raw == nullptr) return std::nullopt;
    reply out = redis::detail::to_reply(static_cast<redisReply*>(raw));
    freeReplyObject(raw);
    return out;
  };
  std::optional<reply> result;
  if (password.empty() || run({"AUTH", password}).has_value()) result = run(args);
  redisFree(ctx);
  return result;
}

std::string field(const std::string& info, const std::string& name) {
  const auto at = info.find(name + ":");
  if (at == std::string::npos) return {};
  const auto start = at + name.size() + 1;
  return info.substr(start, info.find_first_of("\r\n", start) - start);
}

void wait_until(const std::function<bool()>& done, std::chrono::milliseconds limit,
                const std::function<std::string()>& what) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("timed out waiting for " + what());
    }
    std::this_thread::sleep_for(20ms);
  }
}

}  // namespace bloomkit::test
