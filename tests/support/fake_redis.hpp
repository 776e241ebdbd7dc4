#pragma once
// A fake Redis (or Sentinel) for fault tests: a listener on a free 127.0.0.1 port whose thread
// hands each accepted connection, one at a time, to a handler that answers what a real server
// never would (crafted RESP, a reply that trickles in, silence). The handler runs on the server's
// thread and must return soon after `stopping` turns true; the destructor joins it.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>

namespace bloomkit::test {

class fake_redis {
 public:
  using handler = std::function<void(int fd, const std::atomic<bool>& stopping)>;

  explicit fake_redis(handler serve) : serve_(std::move(serve)) {
    listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listener_, 8) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      throw std::runtime_error("fake_redis: cannot listen on 127.0.0.1");
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { run(); });
  }
  ~fake_redis() {
    stopping_ = true;
    thread_.join();
    ::close(listener_);
  }
  fake_redis(const fake_redis&) = delete;
  fake_redis& operator=(const fake_redis&) = delete;

  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  int connections() const { return accepted_; }

  // Handler helpers: wait for a command (any bytes; false when stopping or closed), then write.
  static bool await_command(int fd, const std::atomic<bool>& stopping) {
    char buffer[4096];
    while (!stopping) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      return ::recv(fd, buffer, sizeof buffer, 0) > 0;
    }
    return false;
  }
  static void send_all(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
      const long n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  // Keeps the connection open (and silent) until the fake stops or the client hangs up.
  static void hold(int fd, const std::atomic<bool>& stopping) {
    while (await_command(fd, stopping)) {
    }
  }

 private:
  void run() {
    while (!stopping_) {
      pollfd p{listener_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      ++accepted_;
      serve_(fd, stopping_);
      ::close(fd);
    }
  }

  handler serve_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> accepted_{0};
  std::thread thread_;
};

}  // namespace bloomkit::test
