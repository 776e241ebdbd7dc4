#pragma once
// cache_guard::http_server: cpp-httplib's Server with limits against slow and surplus clients.
//
// httplib (0.11, Debian 12) gives each connection a worker thread for as long as it stays open,
// and its read timeout bounds each read, not the request: a client that sends one header byte
// every second holds a worker forever, and eight of them stop the service (slowloris). Here:
// - a whole request (request line, headers, body) must arrive within request_timeout, counted
//   from the connection's accept for its first request (time spent waiting for a worker counts,
//   so a queue of slow connections drains at once) and from its first byte for later ones;
//   a reply must be written within the same time;
// - a keep-alive connection waits at most keep_alive_timeout for its next request;
// - at most max_connections are open at once (served or waiting for a worker); more are
//   answered 503 and closed at once.
// A reverse proxy in front (README.md) is still what production needs: these limits bound the
// damage, they do not make one thread per connection cheap.

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace cache_guard {

struct http_limits {
  unsigned threads = 8;  // workers: connections served at once
  std::chrono::milliseconds request_timeout{5000};
  std::chrono::milliseconds keep_alive_timeout{5000};
  std::size_t max_keep_alive_requests = 1'000'000;  // a load generator keeps its connections
  std::size_t max_connections = 512;
};

class http_server : public httplib::Server {
 public:
  explicit http_server(http_limits limits);

  std::uint64_t refused_connections() const { return refused_.load(); }

 private:
  class connection_queue;
  class deadline_stream;

  // Called by httplib's accept loop (through the task queue) for every accepted socket.
  bool process_and_close_socket(socket_t sock) override;
  void refuse(socket_t sock);

  http_limits limits_;
  std::atomic<std::size_t> open_connections_{0};
  std::atomic<std::uint64_t> refused_{0};
};

}  // namespace cache_guard
