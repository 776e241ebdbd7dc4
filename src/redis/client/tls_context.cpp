#include "tls_context.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

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

// What a file that is not a regular file is, for messages.
std::string file_type(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// OpenSSL opens and reads its files with blocking calls: a FIFO would hang the client for ever
// (until something writes to it), a device could feed it without end. So every file it is given
// must be a readable regular file, checked before it opens it (the open here does not block:
// O_NONBLOCK; fstat sees what was opened, whatever the path named at stat time).
// `what` is "the CA file", `source` the option or variable that named it ("--tls-ca").
void check_regular_file(const std::string& what, const std::string& source,
                        const std::string& file) {
  const std::string named = "TLS: cannot use " + what + " \"" + file + "\" (" + source + "): ";
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0)
    throw error(errc::invalid_argument, named + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) {
    throw error(errc::invalid_argument,
                named + "it is " + file_type(st.st_mode) + ", not a regular file");
  }
  const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw error(errc::invalid_argument, named + std::strerror(errno));
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  ::close(fd);
  if (!regular) {
    throw error(errc::invalid_argument,
                named + "it is " + file_type(st.st_mode) + ", not a regular file");
  }
}

// OpenSSL asks for the passphrase of an encrypted key through this callback; its default one
// prompts on the terminal (a client must never wait on a prompt). This one gives
// tls_options::key_passphrase, or nothing, and records that it was asked.
struct passphrase_source {
  const std::string* passphrase = nullptr;
  bool asked = false;
};

int give_passphrase(char* buffer, int size, int /*writing*/, void* data) {
  auto* source = static_cast<passphrase_source*>(data);
  if (source == nullptr) return 0;
  source->asked = true;
  const std::string& passphrase = *source->passphrase;
  if (passphrase.empty() || passphrase.size() > static_cast<std::size_t>(size)) return 0;
  std::memcpy(buffer, passphrase.data(), passphrase.size());
  return static_cast<int>(passphrase.size());
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
  passphrase_source passphrase{&options_.key_passphrase};
  SSL_CTX_set_default_passwd_cb(ctx_, give_passphrase);
  SSL_CTX_set_default_passwd_cb_userdata(ctx_, &passphrase);
  try {
    if (!options_.ca_file.empty()) check_regular_file("the CA file", "--tls-ca", options_.ca_file);
    if (!options_.cert_file.empty()) {
      check_regular_file("the client certificate", "--tls-cert", options_.cert_file);
    }
    if (!options_.key_file.empty()) {
      check_regular_file("the client key", "--tls-key", options_.key_file);
    }
    if (options_.ca_file.empty()) {
      // OpenSSL's default store: SSL_CERT_FILE, when set, names its file (a missing one is no
      // error: the store is then empty).
      const char* variable = std::getenv("SSL_CERT_FILE");
      struct stat st {};
      if (variable != nullptr && *variable != '\0' && ::stat(variable, &st) == 0) {
        check_regular_file("the CA file", "SSL_CERT_FILE", variable);
      }
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
      passphrase.asked = false;
      const bool key_loaded =
          SSL_CTX_use_PrivateKey_file(ctx_, options_.key_file.c_str(), SSL_FILETYPE_PEM) == 1;
      const bool mismatch = ERR_GET_REASON(ERR_peek_error()) == X509_R_KEY_VALUES_MISMATCH;
      if (!key_loaded && passphrase.asked) {
        const std::string reasons = drain_errors();
        throw error(errc::invalid_argument,
                    "TLS: the client key \"" + options_.key_file + "\" (--tls-key) is encrypted " +
                        (options_.key_passphrase.empty()
                             ? std::string("and no passphrase was given (set ") +
                                   key_passphrase_variable + ")"
                             : "and the passphrase does not decrypt it (" + reasons + ")"));
      }
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
  SSL_CTX_set_default_passwd_cb_userdata(ctx_, nullptr);  // `passphrase` dies here
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
