#include "tls_context.hpp"

#include <algorithm>
#include <iterator>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "bloomkit/error.hpp"

namespace bloomkit::redis::detail {
namespace {

// The handshake failures of a peer that answered in plaintext (not a TLS port).
constexpr int plaintext_reasons[] = {SSL_R_WRONG_VERSION_NUMBER, SSL_R_PACKET_LENGTH_TOO_LONG,
                                     SSL_R_UNKNOWN_PROTOCOL, SSL_R_HTTP_REQUEST};
// The alerts of a server that wants a client certificate, or refused ours.
constexpr int certificate_refused_reasons[] = {
    SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED, SSL_R_SSLV3_ALERT_BAD_CERTIFICATE,
    SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN,   SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED,
    SSL_R_SSLV3_ALERT_CERTIFICATE_REVOKED,   SSL_R_TLSV1_ALERT_UNKNOWN_CA,
    SSL_R_TLSV1_ALERT_ACCESS_DENIED};

template <std::size_t N>
bool is_one_of(int reason, const int (&reasons)[N]) {
  return std::find(std::begin(reasons), std::end(reasons), reason) != std::end(reasons);
}

// OpenSSL's error queue as "reason; reason" (cleared).
std::string drain_errors() {
  std::string out;
  while (const unsigned long e = ERR_get_error()) {
    const char* reason = ERR_reason_error_string(e);
    if (!out.empty()) out += "; ";
    out += reason != nullptr ? reason : "OpenSSL error " + std::to_string(e);
  }
  return out;
}

[[noreturn]] void bad_file(const char* what, const std::string& file) {
  throw error(errc::invalid_argument,
              std::string("TLS: cannot use ") + what + " \"" + file + "\": " + drain_errors());
}

// The reason of the first SSL-library error in the queue, 0 if none (the queue is left as is).
int first_ssl_reason() {
  const unsigned long e = ERR_peek_error();
  return e != 0 && ERR_GET_LIB(e) == ERR_LIB_SSL ? ERR_GET_REASON(e) : 0;
}

}  // namespace

tls_context::tls_context(const tls_options& options) : options_(options) {
  ERR_clear_error();
  ctx_ = SSL_CTX_new(TLS_client_method());
  if (ctx_ == nullptr) throw error(errc::invalid_argument, "TLS: " + drain_errors());
  SSL_CTX_set_min_proto_version(ctx_, TLS1_2_VERSION);
  SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
  // A partial SSL_write may continue from another buffer address (our output buffer grows).
  SSL_CTX_set_mode(ctx_, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_ENABLE_PARTIAL_WRITE);
  try {
    if (options_.ca_file.empty()) {
      if (SSL_CTX_set_default_verify_paths(ctx_) != 1) {
        throw error(errc::invalid_argument,
                    "TLS: cannot load the system's trusted certificates: " + drain_errors());
      }
    } else if (SSL_CTX_load_verify_locations(ctx_, options_.ca_file.c_str(), nullptr) != 1) {
      bad_file("the CA file", options_.ca_file);
    }
    if (options_.cert_file.empty() != options_.key_file.empty()) {
      throw error(errc::invalid_argument,
                  "TLS: a client certificate needs both a certificate file and a key file "
                  "(--tls-cert and --tls-key)");
    }
    if (!options_.cert_file.empty()) {
      if (SSL_CTX_use_certificate_chain_file(ctx_, options_.cert_file.c_str()) != 1) {
        bad_file("the client certificate", options_.cert_file);
      }
      const bool key_loaded =
          SSL_CTX_use_PrivateKey_file(ctx_, options_.key_file.c_str(), SSL_FILETYPE_PEM) == 1;
      const bool mismatch = ERR_GET_REASON(ERR_peek_error()) == X509_R_KEY_VALUES_MISMATCH;
      if (!key_loaded && !mismatch) bad_file("the client key", options_.key_file);
      if (mismatch || SSL_CTX_check_private_key(ctx_) != 1) {
        ERR_clear_error();
        throw error(errc::invalid_argument, "TLS: the key \"" + options_.key_file +
                                                "\" does not match the certificate \"" +
                                                options_.cert_file + "\"");
      }
    }
  } catch (...) {
    SSL_CTX_free(ctx_);
    throw;
  }
}

tls_context::~tls_context() {
  SSL_CTX_free(ctx_);
}

std::string tls_context::name_to_verify(const std::string& host) const {
  return options_.server_name.empty() ? host : options_.server_name;
}

tls_failure describe_tls_failure(ssl_st* ssl, const std::string& name) {
  tls_failure out;
  const long verdict = ssl != nullptr ? SSL_get_verify_result(ssl) : X509_V_OK;
  const int reason = first_ssl_reason();
  const std::string queue = drain_errors();
  if (verdict != X509_V_OK && (reason == SSL_R_CERTIFICATE_VERIFY_FAILED || reason == 0)) {
    out.what = tls_failure::kind::untrusted;
    switch (verdict) {
      case X509_V_ERR_CERT_HAS_EXPIRED:
        out.reason = "the server's certificate has expired";
        break;
      case X509_V_ERR_CERT_NOT_YET_VALID:
        out.reason = "the server's certificate is not valid yet";
        break;
      case X509_V_ERR_HOSTNAME_MISMATCH:
      case X509_V_ERR_IP_ADDRESS_MISMATCH:
        out.reason = "the server's certificate is not valid for \"" + name +
                     "\" (--tls-server-name names the host it was issued to)";
        break;
      case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
      case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
      case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
      case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
      case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
        out.reason = std::string("the server's certificate is not signed by a trusted CA (") +
                     X509_verify_cert_error_string(verdict) + "; --tls-ca names the CA to trust)";
        break;
      default:
        out.reason = std::string("the server's certificate was refused: ") +
                     X509_verify_cert_error_string(verdict);
    }
    return out;
  }
  if (is_one_of(reason, plaintext_reasons)) {
    out.what = tls_failure::kind::plaintext_peer;
    out.reason = "the server does not speak TLS (" + queue +
                 "): is it a plaintext port? then use redis:// instead of rediss://";
  } else if (is_one_of(reason, certificate_refused_reasons)) {
    out.what = tls_failure::kind::certificate_required;
    out.reason = "the server refused the client certificate (" + queue +
                 "): it requires one that its CA signed (--tls-cert, --tls-key)";
  } else {
    out.reason = queue.empty() ? "TLS error" : "TLS error: " + queue;
  }
  return out;
}

}  // namespace bloomkit::redis::detail
