#pragma once
// A byte stream to one Redis server (internal): plain TCP, or TLS over TCP through OpenSSL. The
// socket is non-blocking and every wait goes through poll(2) with a deadline, so connect, write
// and read all honour the client's timeouts the same way over both. Nothing raises SIGPIPE:
// every socket write is a send(MSG_NOSIGNAL), OpenSSL's included.

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "bloomkit/redis/url.hpp"

struct ssl_st;

namespace bloomkit::redis::detail {

class tls_context;

enum class io_status {
  ok,
  broken,   // could not connect, or the connection broke: retry after a reconnect
  timeout,  // nothing to read (or no room to write) within the timeout
};

// The outcome of one transport call; `reason` says why when not ok (without host:port, which
// the caller adds).
struct transfer {
  io_status status = io_status::ok;
  std::string reason;
};

class transport {
 public:
  transport() = default;
  ~transport() { close(); }
  transport(const transport&) = delete;
  transport& operator=(const transport&) = delete;

  // TCP connect to `where` (each address the name resolves to), then, with `tls`, the handshake
  // verifying the server's certificate against tls's name for `where`, all within `timeout`.
  // Broken: cannot connect (a retry may work). Throws bloomkit::error(errc::unreachable)
  // naming host:port when a retry cannot help: the client refuses the server's certificate
  // (untrusted, expired, wrong name), the peer does not speak TLS, or it refuses our
  // certificate.
  transfer open(const endpoint& where, const tls_context* tls, std::chrono::milliseconds timeout);
  bool is_open() const { return fd_ >= 0; }
  bool is_tls() const { return ssl_ != nullptr; }
  void close();

  // Writes every byte, waiting at most `timeout` each time the socket has no room.
  transfer write_all(std::string_view bytes, std::chrono::milliseconds timeout);
  // Reads at least one byte into buffer (got: how many), waiting at most `timeout`. The peer
  // closing the connection is broken ("the server closed the connection"). With TLS, a server
  // that refuses our certificate only says so here (TLS 1.3): that throws as open() does.
  transfer read_some(char* buffer, std::size_t size, std::size_t& got,
                     std::chrono::milliseconds timeout);

 private:
  using deadline = std::chrono::steady_clock::time_point;
  transfer connect_tcp(const endpoint& where, deadline until);
  transfer handshake(const tls_context& tls, deadline until);
  // Waits until the socket is ready for `events` (POLLIN / POLLOUT) or the deadline passes.
  transfer wait(short events, deadline until) const;
  [[noreturn]] void refuse(const std::string& reason) const;

  int fd_ = -1;
  ssl_st* ssl_ = nullptr;
  endpoint where_;
  std::string verified_name_;  // what the server's certificate was checked against
};

}  // namespace bloomkit::redis::detail
