#pragma once
// Throwaway certificates for TLS tests, made with the `openssl` command at test time in a temp
// dir (EC P-256 keys: fast): a test CA, a server certificate for 127.0.0.1 / localhost, a client
// certificate, and the bad ones a client must refuse: expired, issued to another host, signed by
// an untrusted CA.

#include <filesystem>

#include "support/temp_dir.hpp"

namespace bloomkit::test {

struct certificate {
  std::filesystem::path cert;  // PEM
  std::filesystem::path key;   // PEM
};

class tls_certificates {
 public:
  // Throws std::runtime_error (with openssl's output) if a step fails.
  tls_certificates();

  // The certificates of this process, made on first use (one set per test process).
  static const tls_certificates& shared();

  const std::filesystem::path& ca() const { return ca_.cert; }
  const certificate& server() const { return server_; }          // IP:127.0.0.1, DNS:localhost
  const certificate& client() const { return client_; }          // signed by ca()
  const certificate& expired() const { return expired_; }        // 127.0.0.1, expired yesterday
  const certificate& wrong_host() const { return wrong_host_; }  // DNS:wrong.example only
  const certificate& untrusted() const { return untrusted_; }    // 127.0.0.1, another CA
  // client()'s key encrypted (AES-256, PKCS#8) with encrypted_key_passphrase.
  const std::filesystem::path& encrypted_client_key() const { return encrypted_client_key_; }
  static constexpr const char* encrypted_key_passphrase = "bloomkit-test-passphrase";
  const std::filesystem::path& dir() const { return dir_.path(); }

 private:
  certificate issue(const std::string& name, const std::string& san, const certificate& by,
                    int days);

  temp_dir dir_;
  certificate ca_;
  certificate other_ca_;
  certificate server_;
  certificate client_;
  certificate expired_;
  certificate wrong_host_;
  certificate untrusted_;
  std::filesystem::path encrypted_client_key_;
};

}  // namespace bloomkit::test
