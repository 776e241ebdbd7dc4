// cache_guard against slow and surplus clients (issue 11 item 15): slowloris connections do not
// hold the workers, and connections beyond --max-connections are answered 503.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "cache_guard_fixture.hpp"

namespace {

using namespace cache_guard_test;

// A TCP connection to 127.0.0.1:port (raw: the test controls every byte).
int connect_to(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ADD_FAILURE() << "cannot connect to port " << port;
  }
  return fd;
}

// Whether the peer closed `fd` within `limit` (reads and discards what it sent before).
bool closed_by_peer(int fd, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  char buffer[512];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 20) <= 0) continue;
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) return true;
  }
  return false;
}

// Slowloris: more connections than workers, each sending one header byte every 0.5 s, never
// finishing. A normal request must still be answered within the read deadline plus a margin,
// and the server closes the slow connections.
TEST_F(CacheGuard, SlowClientsDoNotHoldTheWorkers) {
  start("service.err", {"--threads", "2", "--read-timeout", "1", "--keep-alive-timeout", "1"});
  EXPECT_EQ(get(1), 200);
  std::vector<int> slow;
  for (int i = 0; i < 6; ++i) slow.push_back(connect_to(port_));
  std::atomic<bool> done{false};
  std::thread trickle([&] {
    const std::string header = "GET /item/1 HTTP/1.1\r\nX-Slow: " + std::string(200, 'a');
    for (std::size_t at = 0; at < header.size() && !done.load(); ++at) {
      for (const int fd : slow) ::send(fd, &header[at], 1, MSG_NOSIGNAL);
      for (int i = 0; i < 25 && !done.load(); ++i) std::this_thread::sleep_for(20ms);
    }
  });
  std::this_thread::sleep_for(300ms);  // every worker is now reading a slow request
  httplib::Client c("127.0.0.1", port_);
  c.set_read_timeout(6, 0);
  const auto started = std::chrono::steady_clock::now();
  const auto res = c.Get("/item/2");
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_TRUE(res && res->status == 200 && res->body == "item-2")
      << (res ? res->body : httplib::to_string(res.error()));
  EXPECT_LT(took, 2500ms) << "answered after " << std::chrono::duration<double>(took).count()
                          << " s";
  int closed = 0;
  for (const int fd : slow) closed += closed_by_peer(fd, 2000ms);
  EXPECT_EQ(closed, static_cast<int>(slow.size()));
  done = true;
  trickle.join();
  for (const int fd : slow) ::close(fd);
  stop_service();
}

// Connections beyond --max-connections (queued or served) are answered 503 at once and closed.
TEST_F(CacheGuard, ConnectionsBeyondTheLimitAreRefused) {
  start("service.err", {"--threads", "2", "--max-connections", "3", "--read-timeout", "2"});
  std::vector<int> idle;
  for (int i = 0; i < 3; ++i) idle.push_back(connect_to(port_));
  std::this_thread::sleep_for(100ms);
  const int extra = connect_to(port_);
  const auto started = std::chrono::steady_clock::now();
  std::string reply;
  char buffer[512];
  pollfd p{extra, POLLIN, 0};
  while (::poll(&p, 1, 1500) > 0) {
    const ssize_t n = ::recv(extra, buffer, sizeof buffer, 0);
    if (n <= 0) break;
    reply.append(buffer, static_cast<std::size_t>(n));
  }
  EXPECT_EQ(reply.rfind("HTTP/1.1 503 ", 0), 0u) << reply;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 1000ms);
  ::close(extra);
  for (const int fd : idle) ::close(fd);
  // Once they are gone, requests are served again.
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  int status = -1;
  while (status != 200 && std::chrono::steady_clock::now() < deadline) {
    status = get(1);
    if (status != 200) std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(status, 200);
  EXPECT_GE(read_stats()["refused_connections"], 1);
  stop_service();
}

}  // namespace
