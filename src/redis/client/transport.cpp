#include "transport.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "bloomkit/error.hpp"
#include "tls_context.hpp"

namespace bloomkit::redis::detail {
namespace {

using clock_type = std::chrono::steady_clock;

transfer broken(std::string reason) {
  return {io_status::broken, std::move(reason)};
}

transfer broken_errno(int saved_errno) {
  return broken(std::strerror(saved_errno));
}

constexpr std::string_view closed_by_peer = "the server closed the connection";

// As hiredis did: keepalive probes after 15 s idle, so a peer that vanished without a FIN is
// noticed on idle connections; no Nagle delay on pipelines.
void tune(int fd) {
  const int on = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
  const int idle = 15;
  const int interval = 5;
  const int count = 3;
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

// OpenSSL's socket BIO writes with write(2), which raises SIGPIPE on a connection the peer
// closed (and SSL_read writes too: alerts, key updates); a library must not let that kill the
// process nor touch its signal handling. This BIO does the socket I/O with send(MSG_NOSIGNAL)
// and recv instead.
int bio_write(BIO* bio, const char* data, int size) {
  const int fd = static_cast<int>(reinterpret_cast<std::intptr_t>(BIO_get_data(bio)));
  const long n = ::send(fd, data, static_cast<std::size_t>(size), MSG_NOSIGNAL);
  BIO_clear_retry_flags(bio);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    BIO_set_retry_write(bio);
  }
  return static_cast<int>(n);
}

int bio_read(BIO* bio, char* data, int size) {
  const int fd = static_cast<int>(reinterpret_cast<std::intptr_t>(BIO_get_data(bio)));
  const long n = ::recv(fd, data, static_cast<std::size_t>(size), 0);
  BIO_clear_retry_flags(bio);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
    BIO_set_retry_read(bio);
  }
  return static_cast<int>(n);
}

long bio_ctrl(BIO*, int command, long, void*) {
  return command == BIO_CTRL_FLUSH ? 1 : 0;
}

int bio_create(BIO* bio) {
  BIO_set_init(bio, 1);
  return 1;
}

BIO* socket_bio(int fd) {
  static BIO_METHOD* const method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "bloomkit socket");
    BIO_meth_set_write(m, bio_write);
    BIO_meth_set_read(m, bio_read);
    BIO_meth_set_ctrl(m, bio_ctrl);
    BIO_meth_set_create(m, bio_create);
    return m;
  }();
  BIO* bio = BIO_new(method);
  if (bio != nullptr) BIO_set_data(bio, reinterpret_cast<void*>(static_cast<std::intptr_t>(fd)));
  return bio;
}

bool is_ip_address(const std::string& host) {
  unsigned char buffer[sizeof(in6_addr)];
  return ::inet_pton(AF_INET, host.c_str(), buffer) == 1 ||
         ::inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

}  // namespace

void transport::close() {
  // No SSL_shutdown: its close_notify is a write to a peer that may be gone, and Redis needs
  // none.
  if (ssl_ != nullptr) {
    SSL_free(ssl_);
    ssl_ = nullptr;
  }
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

transfer transport::wait(short events, deadline until) const {
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(until - clock_type::now()).count();
    if (left <= 0) return {io_status::timeout, std::strerror(ETIMEDOUT)};
    pollfd p{fd_, events, 0};
    const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1 << 30)));
    if (r > 0) return {};
    if (r < 0 && errno != EINTR) return broken_errno(errno);
  }
}

void transport::refuse(const std::string& reason) const {
  throw error(errc::unreachable,
              "cannot connect to Redis at " + where_.to_string() + ": " + reason);
}

transfer transport::open(const endpoint& where, const tls_context* tls,
                         std::chrono::milliseconds timeout) {
  close();
  where_ = where;
  const auto until = clock_type::now() + timeout;
  if (auto r = connect_tcp(where, until); r.status != io_status::ok) {
    close();
    return r;
  }
  tune(fd_);
  if (tls != nullptr) {
    if (auto r = handshake(*tls, until); r.status != io_status::ok) {
      close();
      return r;
    }
  }
  return {};
}

transfer transport::connect_tcp(const endpoint& where, deadline until) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(where.port);
  if (const int rc = ::getaddrinfo(where.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return broken(::gai_strerror(rc));
  }
  transfer last = broken("no address");
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    fd_ = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd_ < 0) {
      last = broken_errno(errno);
      continue;
    }
    if (::connect(fd_, a->ai_addr, a->ai_addrlen) == 0) break;
    if (errno == EINPROGRESS) {
      last = wait(POLLOUT, until);
      if (last.status == io_status::ok) {
        int so_error = 0;
        socklen_t len = sizeof so_error;
        ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &so_error, &len);
        if (so_error == 0) break;
        last = broken_errno(so_error);
      } else if (last.status == io_status::timeout) {
        last.status = io_status::broken;  // a connect that timed out is a failed attempt
      }
    } else {
      last = broken_errno(errno);
    }
    ::close(fd_);
    fd_ = -1;
  }
  ::freeaddrinfo(found);
  return fd_ >= 0 ? transfer{} : last;
}

transfer transport::handshake(const tls_context& tls, deadline until) {
  ERR_clear_error();
  ssl_ = SSL_new(tls.native());
  BIO* bio = ssl_ != nullptr ? socket_bio(fd_) : nullptr;
  if (bio == nullptr) return broken("TLS: " + describe_tls_failure(nullptr, {}).reason);
  SSL_set_bio(ssl_, bio, bio);  // the SSL owns it now
  verified_name_ = tls.name_to_verify(where_.host);
  if (is_ip_address(verified_name_)) {
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), verified_name_.c_str());
  } else {
    SSL_set_tlsext_host_name(ssl_, verified_name_.c_str());  // SNI: only names, never addresses
    SSL_set1_host(ssl_, verified_name_.c_str());
  }
  while (true) {
    const int r = SSL_connect(ssl_);
    if (r == 1) return {};
    const int e = SSL_get_error(ssl_, r);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
      if (auto w = wait(e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, until);
          w.status != io_status::ok) {
        if (w.status == io_status::timeout) {
          // A plaintext Redis reads a ClientHello as the start of an inline command and waits
          // for its end: no answer at all.
          return broken("the TLS handshake timed out (a plaintext port? then use redis://)");
        }
        return w;
      }
      continue;
    }
    const int saved_errno = errno;
    const tls_failure failure = describe_tls_failure(ssl_, verified_name_);
    if (failure.what != tls_failure::kind::other) refuse(failure.reason);
    if (e == SSL_ERROR_SYSCALL) {
      // The peer hung up during the handshake: a plaintext server answers a ClientHello with
      // an error and closes, or the server is going down. Retried, with the hint.
      return broken(
          std::string(saved_errno != 0 ? std::strerror(saved_errno) : std::string(closed_by_peer)) +
          " during the TLS handshake (a plaintext port? then use redis://)");
    }
    return broken(failure.reason);
  }
}

transfer transport::write_all(std::string_view bytes, std::chrono::milliseconds timeout) {
  while (!bytes.empty()) {
    long written = 0;
    int wait_for = 0;
    if (ssl_ != nullptr) {
      ERR_clear_error();
      const int r = SSL_write(ssl_, bytes.data(),
                              static_cast<int>(std::min<std::size_t>(bytes.size(), 1u << 30)));
      if (r > 0) {
        written = r;
      } else {
        const int e = SSL_get_error(ssl_, r);
        if (e == SSL_ERROR_WANT_WRITE) {
          wait_for = POLLOUT;
        } else if (e == SSL_ERROR_WANT_READ) {
          wait_for = POLLIN;
        } else {
          const int saved_errno = errno;
          const tls_failure failure = describe_tls_failure(ssl_, verified_name_);
          if (failure.what == tls_failure::kind::certificate_required) refuse(failure.reason);
          return broken(e == SSL_ERROR_SYSCALL && saved_errno != 0 ? std::strerror(saved_errno)
                                                                   : failure.reason);
        }
      }
    } else {
      written = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (written < 0) {
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) return broken_errno(errno);
        wait_for = POLLOUT;
        written = 0;
      }
    }
    if (wait_for != 0) {
      if (auto w = wait(static_cast<short>(wait_for), clock_type::now() + timeout);
          w.status != io_status::ok) {
        return w;
      }
    }
    bytes.remove_prefix(static_cast<std::size_t>(written));
  }
  return {};
}

transfer transport::read_some(char* buffer, std::size_t size, std::size_t& got,
                              std::chrono::milliseconds timeout) {
  got = 0;
  const auto until = clock_type::now() + timeout;
  while (true) {
    int wait_for = POLLIN;
    if (ssl_ != nullptr) {
      ERR_clear_error();
      const int r = SSL_read(ssl_, buffer, static_cast<int>(std::min<std::size_t>(size, 1u << 30)));
      if (r > 0) {
        got = static_cast<std::size_t>(r);
        return {};
      }
      const int e = SSL_get_error(ssl_, r);
      if (e == SSL_ERROR_WANT_WRITE) {
        wait_for = POLLOUT;
      } else if (e == SSL_ERROR_ZERO_RETURN) {
        return broken(std::string(closed_by_peer));
      } else if (e != SSL_ERROR_WANT_READ) {
        const int saved_errno = errno;
        const tls_failure failure = describe_tls_failure(ssl_, verified_name_);
        if (failure.what == tls_failure::kind::certificate_required) refuse(failure.reason);
        if (e == SSL_ERROR_SYSCALL) {
          return broken(saved_errno != 0 ? std::strerror(saved_errno)
                                         : std::string(closed_by_peer));
        }
        return broken(failure.reason);
      }
    } else {
      const long r = ::recv(fd_, buffer, size, 0);
      if (r > 0) {
        got = static_cast<std::size_t>(r);
        return {};
      }
      if (r == 0) return broken(std::string(closed_by_peer));
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) return broken_errno(errno);
    }
    if (auto w = wait(static_cast<short>(wait_for), until); w.status != io_status::ok) return w;
  }
}

}  // namespace bloomkit::redis::detail
