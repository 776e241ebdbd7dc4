// bloomkit::redis::client when the server is not there: unreachable ports fail fast with the
// documented message, the connect timeout holds, and a client recovers after a restart.
#include "bloomkit/redis/client.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "client_fixtures.hpp"
#include "support/fake_redis.hpp"

namespace {

using namespace bloomkit::redis_client_test;

// A port nobody listens on (bound, then closed).
int closed_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

TEST(RedisFaults, UnreachablePortFailsFastNamingTheAddress) {
  const int port = closed_port();
  client_options options;
  options.max_retries = 1;
  options.retry_delay = 10ms;
  const auto start = clock_type::now();
  const auto message =
      error_of([&] { client::connect("redis://127.0.0.1:" + std::to_string(port), options); },
               errc::unreachable);
  EXPECT_LT(elapsed_ms(start), 1000);
  EXPECT_EQ(message, "cannot connect to Redis at 127.0.0.1:" + std::to_string(port) +
                         ": Connection refused (gave up after 1 retry)");
  const auto cluster_message = error_of(
      [&] {
        client::connect("redis-cluster://127.0.0.1:" + std::to_string(port) +
                            ",127.0.0.1:" + std::to_string(closed_port()),
                        options);
      },
      errc::unreachable);
  EXPECT_EQ(cluster_message.rfind("cannot load the slot map of redis-cluster://127.0.0.1:", 0), 0u)
      << cluster_message;
  EXPECT_TRUE(cluster_message.ends_with(": Connection refused (gave up after 1 retry)"))
      << cluster_message;
}

// The message docs/REDIS.md and docs/CLI.md quote, with the default options.
TEST(RedisFaults, ConnectFailureMessageIsTheDocumentedOne) {
  const int port = closed_port();
  const auto message = error_of(
      [&] { client::connect("redis://127.0.0.1:" + std::to_string(port)); }, errc::unreachable);
  EXPECT_EQ(message, "cannot connect to Redis at 127.0.0.1:" + std::to_string(port) +
                         ": Connection refused (gave up after 3 retries)");
}

TEST(RedisFaults, ConnectTimeoutIsHonored) {
  // A listener that never accepts, with its backlog filled: further connects hang in SYN_SENT.
  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(listener, 0), 0);
  socklen_t len = sizeof addr;
  ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);
  std::vector<int> fillers;
  for (int i = 0; i < 4; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    fillers.push_back(fd);
  }
  std::this_thread::sleep_for(50ms);
  client_options options;
  options.connect_timeout = 300ms;
  options.max_retries = 0;
  const auto start = clock_type::now();
  const auto message = error_of(
      [&] {
        client::connect("redis://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)), options);
      },
      errc::unreachable);
  const auto took = elapsed_ms(start);
  EXPECT_GE(took, 250);
  EXPECT_LT(took, 1500);
  EXPECT_NE(message.find("(connect timeout 300 ms)"), std::string::npos) << message;
  for (const int fd : fillers) ::close(fd);
  ::close(listener);
}

TEST(RedisFaults, RecoversAfterARestartWithoutANewClient) {
  BLOOMKIT_REQUIRE_REDIS();
  redis_server_options o;
  o.appendonly = true;
  redis_server server(o);
  client_options options;
  options.retry_delay = 20ms;
  auto c = client::connect(server.url(), options);
  c.execute(cmd({"SET", "survivor", "yes"}));

  server.stop();
  const auto start = clock_type::now();
  const auto message = error_of([&] { c.execute(cmd({"GET", "survivor"})); }, errc::unreachable);
  EXPECT_LT(elapsed_ms(start), 2000);
  EXPECT_EQ(
      message.rfind("cannot connect to Redis at " + server.address() + ": Connection refused", 0),
      0u)
      << message;
  EXPECT_NE(message.find("(gave up after 3 retries)"), std::string::npos) << message;
  // Still down: still a clear error, not a hang or a crash.
  error_of(
      [&] {
        c.execute_many(std::vector<command>(10, cmd({"GET", "survivor"})));
      },
      errc::unreachable);

  server.restart();
  EXPECT_EQ(c.execute(cmd({"GET", "survivor"})).str(), "yes");
  EXPECT_EQ(c.execute(cmd({"SET", "after", "restart"})).str(), "OK");
}

// --- Replies no server would send (a fake server on a free port) ---

using bloomkit::test::fake_redis;

// Answers every command of every connection with `reply`, then keeps the connection open.
fake_redis::handler answering(std::string reply) {
  return [reply](int fd, const std::atomic<bool>& stopping) {
    while (fake_redis::await_command(fd, stopping)) fake_redis::send_all(fd, reply);
  };
}

client_options quick_options() {
  client_options options;
  options.command_timeout = 2000ms;
  options.max_retries = 1;
  options.retry_delay = 10ms;
  return options;
}

// Connecting to `url` fails within 1.5 s (not after the read timeout) with a message holding
// `says`.
void expect_refused_at_once(const std::string& url, const std::string& says) {
  const auto start = clock_type::now();
  const auto message = error_of([&] { client::connect(url, quick_options()); }, errc::unreachable);
  EXPECT_LT(elapsed_ms(start), 1500) << url;
  EXPECT_NE(message.find(says), std::string::npos) << message;
}

// hiredis preallocates the elements an array announces (16 GiB of pointers for *2147483647) and
// frees them one by one: the client stalled 44 s on such a sentinel before it failed.
TEST(RedisFaults, ASentinelAnnouncingAHugeArrayIsRefusedAtOnce) {
  fake_redis sentinel(answering("*2147483647\r\n"));
  expect_refused_at_once(
      "redis-sentinel://" + sentinel.address() + "/mymaster",
      "Sentinel at " + sentinel.address() + " sent a reply announcing 2147483647 elements");
}

TEST(RedisFaults, AServerAnnouncingAHugeArrayIsRefusedAtOnce) {
  fake_redis server(answering("*2147483647\r\n"));
  expect_refused_at_once(
      "redis://" + server.address(),
      "Redis at " + server.address() + " sent a reply announcing 2147483647 elements");
  // Nested arrays count together: each one below the limit, all of them above it.
  std::string nested;
  for (int i = 0; i < 6; ++i) nested += "*16000000\r\n";
  fake_redis deep(answering(nested));
  expect_refused_at_once("redis://" + deep.address(),
                         "Redis at " + deep.address() + " sent a reply announcing");
}

TEST(RedisFaults, ASentinelReplyLargerThanASentinelSendsIsRefused) {
  // A bulk string of 1 GiB announced, its bytes streaming in: refused past the sentinel limit.
  fake_redis sentinel([](int fd, const std::atomic<bool>& stopping) {
    if (!fake_redis::await_command(fd, stopping)) return;
    fake_redis::send_all(fd, "*2\r\n$1073741824\r\n");
    const std::string chunk(64 * 1024, 'x');
    for (int i = 0; i < 64 && !stopping; ++i) fake_redis::send_all(fd, chunk);
    fake_redis::hold(fd, stopping);
  });
  expect_refused_at_once("redis-sentinel://" + sentinel.address() + "/mymaster",
                         "Sentinel at " + sentinel.address() + " sent a reply of more than");
}

// A reply that trickles in (a byte now and then) must still end within command_timeout.
TEST(RedisFaults, AReplyThatTricklesInTimesOut) {
  fake_redis server([](int fd, const std::atomic<bool>& stopping) {
    if (!fake_redis::await_command(fd, stopping)) return;
    fake_redis::send_all(fd, "$1000\r\n");
    for (int i = 0; i < 1000 && !stopping; ++i) {
      fake_redis::send_all(fd, "x");
      std::this_thread::sleep_for(50ms);
    }
  });
  client_options options = quick_options();
  options.command_timeout = 300ms;
  options.max_retries = 0;
  const auto start = clock_type::now();
  const auto message =
      error_of([&] { client::connect("redis://" + server.address(), options); }, errc::timeout);
  EXPECT_LT(elapsed_ms(start), 1500);
  EXPECT_EQ(message, "Redis at " + server.address() + " did not answer within 300 ms");
}

}  // namespace
