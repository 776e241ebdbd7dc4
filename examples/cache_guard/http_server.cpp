#include "http_server.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>

namespace cache_guard {

namespace {

using clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// The connection a worker thread is about to serve, as its task queue saw it: httplib's accept
// loop hands the queue a closure that calls process_and_close_socket(sock), so this is how the
// accept time (and a refusal) reaches it.
struct connection_context {
  clock::time_point accepted;
  bool refuse = false;
};
thread_local connection_context current_connection;

// poll() for `events` until `deadline`; true if ready.
bool wait_for(int sock, short events, clock::time_point deadline) {
  while (true) {
    const auto left = std::chrono::ceil<milliseconds>(deadline - clock::now()).count();
    pollfd p{sock, events, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::max<long long>(left, 0)));
    if (r > 0) return true;
    if (r == 0 || errno != EINTR) return false;
  }
}

void address_of(int sock, bool peer, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t length = sizeof addr;
  auto* a = reinterpret_cast<sockaddr*>(&addr);
  if ((peer ? ::getpeername(sock, a, &length) : ::getsockname(sock, a, &length)) != 0) return;
  char host[NI_MAXHOST];
  char service[NI_MAXSERV];
  if (::getnameinfo(a, length, host, sizeof host, service, sizeof service,
                    NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
    ip = host;
    port = std::atoi(service);
  }
}

}  // namespace

// httplib's ThreadPool behind a count of open connections: records each connection's accept
// time for its worker, and refuses connections beyond the limit on the accept thread (a
// refusal is one non-blocking send).
class http_server::connection_queue : public httplib::TaskQueue {
 public:
  explicit connection_queue(http_server& server)
      : server_(server), pool_(std::max(1u, server.limits_.threads)) {}

  void enqueue(std::function<void()> fn) override {
    const auto accepted = clock::now();
    if (server_.open_connections_.fetch_add(1) >= server_.limits_.max_connections) {
      server_.open_connections_.fetch_sub(1);
      current_connection = {accepted, true};
      fn();
      current_connection.refuse = false;
      return;
    }
    pool_.enqueue([this, fn = std::move(fn), accepted] {
      current_connection = {accepted, false};
      fn();
      server_.open_connections_.fetch_sub(1);
    });
  }
  void shutdown() override { pool_.shutdown(); }

 private:
  http_server& server_;
  httplib::ThreadPool pool_;
};

// A socket stream whose reads never wait past the current request's deadline (httplib's own
// waits up to the read timeout per read, however long the request takes). Buffered: httplib
// reads request lines one byte at a time.
class http_server::deadline_stream : public httplib::Stream {
 public:
  deadline_stream(socket_t sock, milliseconds write_timeout)
      : sock_(sock), write_timeout_(write_timeout) {}

  void set_deadline(clock::time_point deadline) { deadline_ = deadline; }
  // Whether a read gave up at the deadline (the connection must then close: what the client
  // sends next is the rest of the late request, not a new one).
  bool timed_out() const { return timed_out_; }
  bool has_buffered() const { return begin_ < end_; }

  bool is_readable() const override { return has_buffered() || wait_for(sock_, POLLIN, deadline_); }
  bool is_writable() const override {
    return wait_for(sock_, POLLOUT, clock::now() + write_timeout_);
  }
  ssize_t read(char* ptr, size_t size) override {
    if (!has_buffered()) {
      if (!wait_for(sock_, POLLIN, deadline_)) {
        timed_out_ = true;
        return -1;
      }
      ssize_t n;
      do {
        n = ::recv(sock_, buffer_, sizeof buffer_, 0);
      } while (n < 0 && errno == EINTR);
      if (n <= 0) return n;
      begin_ = 0;
      end_ = static_cast<std::size_t>(n);
    }
    const std::size_t n = std::min(size, end_ - begin_);
    std::memcpy(ptr, buffer_ + begin_, n);
    begin_ += n;
    return static_cast<ssize_t>(n);
  }
  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    ssize_t n;
    do {
      n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    address_of(sock_, true, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    address_of(sock_, false, ip, port);
  }
  socket_t socket() const override { return sock_; }

 private:
  socket_t sock_;
  milliseconds write_timeout_;
  clock::time_point deadline_;
  bool timed_out_ = false;
  char buffer_[4096];
  std::size_t begin_ = 0, end_ = 0;
};

http_server::http_server(http_limits limits) : limits_(limits) {
  new_task_queue = [this] { return new connection_queue(*this); };
}

bool http_server::process_and_close_socket(socket_t sock) {
  if (current_connection.refuse) {
    refuse(sock);
    return false;
  }
  const int on = 1;
  ::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);  // small replies: no Nagle
  deadline_stream stream(sock, limits_.request_timeout);
  bool keep = true;
  for (std::size_t served = 0; keep && served < limits_.max_keep_alive_requests; ++served) {
    if (served == 0) {
      stream.set_deadline(current_connection.accepted + limits_.request_timeout);
    } else {
      // Idle between requests: wait for the next one's first byte (in slices, to notice stop()).
      const auto idle_until = clock::now() + limits_.keep_alive_timeout;
      bool next = stream.has_buffered();
      while (!next && svr_sock_ != INVALID_SOCKET && clock::now() < idle_until) {
        next = wait_for(sock, POLLIN, std::min(idle_until, clock::now() + milliseconds(100)));
      }
      if (!next) break;
      stream.set_deadline(clock::now() + limits_.request_timeout);
    }
    if (svr_sock_ == INVALID_SOCKET) break;  // stopping
    bool closed = false;
    const bool last = served + 1 == limits_.max_keep_alive_requests;
    keep = process_request(stream, last, closed, nullptr) && !closed && !stream.timed_out();
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return true;
}

void http_server::refuse(socket_t sock) {
  refused_.fetch_add(1);
  static constexpr char reply[] =
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\nContent-Length: 21\r\n"
      "Connection: close\r\n\r\ntoo many connections\n";
  (void)::send(sock, reply, sizeof reply - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
  // Read what already arrived: closing with unread bytes would reset the connection and could
  // discard the reply before the client reads it.
  char discard[4096];
  while (::recv(sock, discard, sizeof discard, MSG_DONTWAIT) > 0) {
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
}

}  // namespace cache_guard
