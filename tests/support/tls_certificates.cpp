#include "support/tls_certificates.hpp"

#include <fstream>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "support/server_process.hpp"

namespace bloomkit::test {
namespace {

using namespace std::chrono_literals;

void run_openssl(std::vector<std::string> args, const std::filesystem::path& dir) {
  args.insert(args.begin(), "openssl");
  const auto log = dir / "openssl.log";
  if (wait_for(spawn(args, log), 30s) != 0) {
    std::string line;
    for (const auto& a : args) line += a + " ";
    throw std::runtime_error("tls_certificates: " + line + "failed:\n" + tail(read_text(log)));
  }
}

const std::vector<std::string> ec_key = {"-newkey", "ec", "-pkeyopt",
                                         "ec_paramgen_curve:prime256v1", "-nodes"};

certificate make_ca(const std::filesystem::path& dir, const std::string& name) {
  certificate ca{dir / (name + ".crt"), dir / (name + ".key")};
  std::vector<std::string> args = {"req", "-x509"};
  args.insert(args.end(), ec_key.begin(), ec_key.end());
  args.insert(args.end(), {"-keyout", ca.key.string(), "-out", ca.cert.string(), "-days", "2",
                           "-subj", "/CN=bloomkit " + name});
  run_openssl(args, dir);
  return ca;
}

}  // namespace

tls_certificates::tls_certificates() {
  ca_ = make_ca(dir(), "test-ca");
  other_ca_ = make_ca(dir(), "untrusted-ca");
  server_ = issue("server", "IP:127.0.0.1,DNS:localhost", ca_, 2);
  client_ = issue("client", "DNS:bloomkit-client", ca_, 2);
  expired_ = issue("expired", "IP:127.0.0.1,DNS:localhost", ca_, -1);  // ended yesterday
  wrong_host_ = issue("wrong-host", "DNS:wrong.example", ca_, 2);
  untrusted_ = issue("untrusted", "IP:127.0.0.1,DNS:localhost", other_ca_, 2);
  encrypted_client_key_ = dir() / "client-encrypted.key";
  run_openssl(
      {"pkey", "-in", client_.key.string(), "-aes256", "-passout",
       std::string("pass:") + encrypted_key_passphrase, "-out", encrypted_client_key_.string()},
      dir());
}

const tls_certificates& tls_certificates::shared() {
  static std::once_flag once;
  static std::unique_ptr<tls_certificates> certificates;
  std::call_once(once, [] { certificates = std::make_unique<tls_certificates>(); });
  return *certificates;
}

certificate tls_certificates::issue(const std::string& name, const std::string& san,
                                    const certificate& by, int days) {
  certificate out{dir() / (name + ".crt"), dir() / (name + ".key")};
  const auto request = dir() / (name + ".csr");
  const auto extensions = dir() / (name + ".ext");
  std::ofstream(extensions) << "subjectAltName=" << san << "\n";
  std::vector<std::string> args = {"req", "-new"};
  args.insert(args.end(), ec_key.begin(), ec_key.end());
  args.insert(args.end(),
              {"-keyout", out.key.string(), "-out", request.string(), "-subj", "/CN=" + name});
  run_openssl(args, dir());
  run_openssl({"x509", "-req", "-in", request.string(), "-CA", by.cert.string(), "-CAkey",
               by.key.string(), "-CAcreateserial", "-days", std::to_string(days), "-out",
               out.cert.string(), "-extfile", extensions.string()},
              dir());
  return out;
}

}  // namespace bloomkit::test
