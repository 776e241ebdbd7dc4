#pragma once
// The OpenSSL side of rediss:// (internal): one SSL_CTX per client, built from tls_options and
// shared by every connection of that client, and the names of OpenSSL's failures as messages.

#include <memory>
#include <string>

#include "bloomkit/redis/client.hpp"

struct ssl_ctx_st;
struct ssl_st;

namespace bloomkit::redis::detail {

class tls_context {
 public:
  // Trusts ca_file, or the system's store when it is empty; loads the client certificate and
  // key when given. Throws bloomkit::error(errc::invalid_argument) naming the file and OpenSSL's
  // reason on a missing or unreadable file, or a key that does not match the certificate.
  explicit tls_context(const tls_options& options);
  ~tls_context();
  tls_context(const tls_context&) = delete;
  tls_context& operator=(const tls_context&) = delete;

  ssl_ctx_st* native() const { return ctx_; }
  // The name the server's certificate must carry (and the SNI): server_name, else the host.
  std::string name_to_verify(const std::string& host) const;
  bool has_client_certificate() const { return !options_.cert_file.empty(); }

 private:
  tls_options options_;
  ssl_ctx_st* ctx_ = nullptr;
};

// Why a handshake or a read on `ssl` failed.
struct tls_failure {
  enum class kind {
    other,                 // e.g. the connection broke: a retry may work
    untrusted,             // the client refused the server's certificate (expired, wrong name, CA)
    plaintext_peer,        // the peer does not speak TLS (a plaintext port)
    certificate_required,  // the server refused the client's certificate, or wants one
  };
  kind what = kind::other;
  std::string reason;  // in words, for messages
};

// Reads the certificate check's verdict and OpenSSL's error queue (clearing it). `name` is what
// the server's certificate was checked against.
tls_failure describe_tls_failure(ssl_st* ssl, const std::string& name);

}  // namespace bloomkit::redis::detail
