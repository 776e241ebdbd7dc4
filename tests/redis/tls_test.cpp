// bloomkit::redis::client over TLS against real TLS-only redis-servers (certificates made with
// openssl at test time): the certificates a client must refuse, client certificates, plaintext
// and TLS mixed up, a restart, and the URL forms. The filter suites run over TLS too
// (CMakeLists.txt, TLS_SUITES).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "bloomkit/error.hpp"
#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/redis/url.hpp"
#include "redis/client/client_stats.hpp"
#include "support/errors.hpp"
#include "support/redis_server.hpp"
#include "support/scoped_env.hpp"
#include "support/temp_dir.hpp"
#include "support/tls_certificates.hpp"

namespace {

using namespace std::chrono_literals;
using bloomkit::errc;
using bloomkit::redis::client;
using bloomkit::redis::client_options;
using bloomkit::redis::command;
using bloomkit::redis::parse_url;
using bloomkit::test::error_of;
using bloomkit::test::redis_server;
using bloomkit::test::redis_server_options;
using bloomkit::test::tls_certificates;

const tls_certificates& certs() {
  return tls_certificates::shared();
}

redis_server_options tls_server(const bloomkit::test::certificate* own = nullptr,
                                bool require_client_certificate = false) {
  redis_server_options o;
  o.tls.enabled = true;
  o.tls.server_certificate = own;
  o.tls.require_client_certificate = require_client_certificate;
  return o;
}

client_options trusting_test_ca() {
  client_options o;
  o.tls.ca_file = certs().ca().string();
  o.max_retries = 1;
  o.retry_delay = 10ms;
  return o;
}

std::string rediss(const redis_server& s) {
  return "rediss://" + s.address();
}

TEST(RedisTlsUrl, ParsesTlsAndSentinelUrls) {
  auto u = parse_url("rediss://alice:pw@cache.internal:6380/2");
  EXPECT_TRUE(u.tls);
  EXPECT_FALSE(u.cluster);
  EXPECT_EQ(u.user, "alice");
  EXPECT_EQ(u.db, 2);
  EXPECT_EQ(u.to_string(), "rediss://alice@cache.internal:6380/2");
  u = parse_url("rediss-cluster://h1:7000,h2:7001");
  EXPECT_TRUE(u.tls && u.cluster);
  EXPECT_EQ(u.to_string(), "rediss-cluster://h1:7000,h2:7001");
  u = parse_url("redis-sentinel://:pw@s1,s2:26380/mymaster/3");
  EXPECT_TRUE(u.sentinel && !u.tls && !u.cluster);
  ASSERT_EQ(u.nodes.size(), 2u);
  EXPECT_EQ(u.nodes[0], (bloomkit::redis::endpoint{"s1", 26379}));  // the sentinels' port
  EXPECT_EQ(u.master_name, "mymaster");
  EXPECT_EQ(u.db, 3);
  EXPECT_EQ(u.password, "pw");
  EXPECT_EQ(u.to_string(), "redis-sentinel://s1:26379,s2:26380/mymaster/3");
  u = parse_url("rediss-sentinel://s1:5000/m");
  EXPECT_TRUE(u.sentinel && u.tls);
  EXPECT_EQ(u.to_string(), "rediss-sentinel://s1:5000/m");
  EXPECT_EQ(error_of([] { parse_url("redis-sentinel://s1:5000"); }, errc::invalid_argument),
            R"(invalid Redis URL "redis-sentinel://s1:5000": missing the master's name: )"
            R"(redis-sentinel://host:port[,host:port...]/MASTER_NAME[/db])");
  EXPECT_EQ(error_of([] { parse_url("rediss://a:1,b:2"); }, errc::invalid_argument),
            R"(invalid Redis URL "rediss://a:1,b:2": several hosts need rediss-cluster:// )"
            R"((or rediss-sentinel://))");
  EXPECT_EQ(error_of([] { parse_url("redis-sentinel://:secret@s1/m/x"); }, errc::invalid_argument),
            R"(invalid Redis URL "redis-sentinel://***@s1/m/x": database "x" is not a )"
            R"(non-negative number)");
}

TEST(RedisTlsUrl, SentinelPasswordFromTheEnvironment) {
  ::setenv("BLOOMKIT_SENTINEL_AUTH", "watcher:Sent1", 1);
  auto u = bloomkit::redis::settings_from_environment("redis-sentinel://s1/m").url;
  EXPECT_EQ(u.sentinel_user, "watcher");
  EXPECT_EQ(u.sentinel_password, "Sent1");
  EXPECT_EQ(u.password, "");  // the master's is another
  ::setenv("BLOOMKIT_SENTINEL_AUTH", "only-pw", 1);
  u = bloomkit::redis::settings_from_environment("redis-sentinel://s1/m").url;
  EXPECT_EQ(u.sentinel_user, "");
  EXPECT_EQ(u.sentinel_password, "only-pw");
  EXPECT_EQ(u.to_string().find("only-pw"), std::string::npos);
  ::unsetenv("BLOOMKIT_SENTINEL_AUTH");
}

TEST(RedisTls, BadOptionsAreClearErrorsBeforeConnecting) {
  client_options o;
  o.tls.ca_file = "/nonexistent/ca.pem";
  auto message =
      error_of([&] { client::connect("rediss://127.0.0.1:1", o); }, errc::invalid_argument);
  EXPECT_NE(message.find("the CA file \"/nonexistent/ca.pem\""), std::string::npos) << message;
  o = {};
  o.tls.cert_file = certs().client().cert.string();
  message = error_of([&] { client::connect("rediss://127.0.0.1:1", o); }, errc::invalid_argument);
  EXPECT_NE(message.find("--tls-key"), std::string::npos) << message;
  o.tls.key_file = certs().server().key.string();  // another certificate's key
  message = error_of([&] { client::connect("rediss://127.0.0.1:1", o); }, errc::invalid_argument);
  EXPECT_NE(message.find("does not match"), std::string::npos) << message;
}

long long elapsed_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start)
      .count();
}

// A FIFO that nobody writes to: OpenSSL blocked for ever opening it as a CA file. So that a
// regression fails instead of hanging the suite, a watchdog opens and closes its writing end
// (an end of file for a blocked reader) after a second.
class idle_fifo {
 public:
  explicit idle_fifo(const std::filesystem::path& path) : path_(path) {
    if (::mkfifo(path.c_str(), 0600) != 0) throw std::runtime_error("mkfifo failed");
    watchdog_ = std::thread([this] {
      for (int i = 0; i < 100 && !done_; ++i) std::this_thread::sleep_for(10ms);
      while (!done_) {
        const int fd = ::open(path_.c_str(), O_WRONLY | O_NONBLOCK);
        if (fd >= 0) ::close(fd);
        std::this_thread::sleep_for(10ms);
      }
    });
  }
  ~idle_fifo() {
    done_ = true;
    watchdog_.join();
  }
  std::string string() const { return path_.string(); }

 private:
  std::filesystem::path path_;
  std::atomic<bool> done_{false};
  std::thread watchdog_;
};

TEST(RedisTls, TlsFilesThatAreNotRegularFilesAreRefusedAtOnce) {
  bloomkit::test::temp_dir dir;
  const idle_fifo fifo(dir / "ca.fifo");
  client_options o;
  o.tls.ca_file = fifo.string();
  auto start = std::chrono::steady_clock::now();
  auto message =
      error_of([&] { client::connect("rediss://127.0.0.1:1", o); }, errc::invalid_argument);
  EXPECT_LT(elapsed_ms(start), 500);
  EXPECT_EQ(message, "TLS: cannot use the CA file \"" + fifo.string() +
                         "\" (--tls-ca): it is a FIFO (named pipe), not a regular file");
  o = {};
  o.tls.cert_file = dir.path().string();
  o.tls.key_file = certs().client().key.string();
  message = error_of([&] { client::connect("rediss://127.0.0.1:1", o); }, errc::invalid_argument);
  EXPECT_EQ(message, "TLS: cannot use the client certificate \"" + dir.path().string() +
                         "\" (--tls-cert): it is a directory, not a regular file");
  o.tls.cert_file = certs().client().cert.string();
  o.tls.key_file = "/dev/zero";  // endless: OpenSSL would read it until memory runs out
  message = error_of([&] { client::connect("rediss://127.0.0.1:1", o); }, errc::invalid_argument);
  EXPECT_EQ(message,
            "TLS: cannot use the client key \"/dev/zero\" (--tls-key): it is a character device, "
            "not a regular file");
  // OpenSSL's default store named by SSL_CERT_FILE (no --tls-ca) is checked the same way.
  o = {};
  const bloomkit::test::scoped_env variable({{"SSL_CERT_FILE", fifo.string()}});
  start = std::chrono::steady_clock::now();
  message = error_of([&] { client::connect("rediss://127.0.0.1:1", o); }, errc::invalid_argument);
  EXPECT_LT(elapsed_ms(start), 500);
  EXPECT_EQ(message, "TLS: cannot use the CA file \"" + fifo.string() +
                         "\" (SSL_CERT_FILE): it is a FIFO (named pipe), not a regular file");
}

TEST(RedisTls, TlsOptionsWithAPlaintextUrlAreRefused) {
  client_options o;
  o.tls.ca_file = certs().ca().string();
  auto message =
      error_of([&] { client::connect("redis://127.0.0.1:1", o); }, errc::invalid_argument);
  EXPECT_EQ(message, "--tls-ca \"" + certs().ca().string() +
                         "\" is a TLS option, but the URL \"redis://127.0.0.1:1\" is not a TLS "
                         "one: use rediss:// (rediss-cluster://, rediss-sentinel://) for TLS, or "
                         "drop the option");
  o = {};
  o.tls.server_name = "cache.internal";
  message = error_of([&] { client::connect("redis-sentinel://127.0.0.1:1/m", o); },
                     errc::invalid_argument);
  EXPECT_EQ(message.rfind("--tls-server-name \"cache.internal\" is a TLS option", 0), 0u)
      << message;
  o = {};
  o.tls.cert_file = certs().client().cert.string();
  o.tls.key_file = certs().client().key.string();
  message =
      error_of([&] { client::connect("redis-cluster://127.0.0.1:1", o); }, errc::invalid_argument);
  EXPECT_NE(message.find("use rediss://"), std::string::npos) << message;
  // A passphrase alone (an environment variable set for other commands) is no TLS request.
  o = {};
  o.tls.key_passphrase = "unused";
  error_of([&] { client::connect("redis://127.0.0.1:1", o); }, errc::unreachable);
}

// OpenSSL's default passphrase callback prompts on the terminal (and waits there).
TEST(RedisTls, AnEncryptedKeyNeverPrompts) {
  client_options o;
  o.max_retries = 0;
  o.tls.ca_file = certs().ca().string();
  o.tls.cert_file = certs().client().cert.string();
  o.tls.key_file = certs().encrypted_client_key().string();
  const auto start = std::chrono::steady_clock::now();
  auto message =
      error_of([&] { client::connect("rediss://127.0.0.1:1", o); }, errc::invalid_argument);
  EXPECT_LT(elapsed_ms(start), 500);
  EXPECT_EQ(message, "TLS: the client key \"" + o.tls.key_file +
                         "\" (--tls-key) is encrypted and no passphrase was given (set "
                         "BLOOMKIT_TLS_KEY_PASSPHRASE)");
  o.tls.key_passphrase = "not the passphrase";
  message = error_of([&] { client::connect("rediss://127.0.0.1:1", o); }, errc::invalid_argument);
  EXPECT_EQ(message.rfind("TLS: the client key \"" + o.tls.key_file +
                              "\" (--tls-key) is encrypted and the passphrase does not decrypt it",
                          0),
            0u)
      << message;
  // The right one loads the key: the client gets as far as connecting (nobody on port 1).
  o.tls.key_passphrase = bloomkit::test::tls_certificates::encrypted_key_passphrase;
  error_of([&] { client::connect("rediss://127.0.0.1:1", o); }, errc::unreachable);
}

class RedisTlsServer : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (redis_server::available()) {
      good_ = std::make_unique<redis_server>(tls_server());
      redis_server_options plain;
      plain.tls.enabled = false;
      plain_ = std::make_unique<redis_server>(plain);
    }
  }
  static void TearDownTestSuite() {
    good_.reset();
    plain_.reset();
  }
  void SetUp() override { BLOOMKIT_REQUIRE_REDIS(); }
  static inline std::unique_ptr<redis_server> good_;
  static inline std::unique_ptr<redis_server> plain_;
};

TEST_F(RedisTlsServer, VerifiedConnectionPipelinesAndWaits) {
  auto c = client::connect(rediss(*good_), trusting_test_ca());
  EXPECT_EQ(c.describe(), rediss(*good_));
  std::vector<command> batch;
  for (int i = 0; i < 5000; ++i) {
    std::string key = std::to_string(i);  // not "k" + ...: GCC 12's -Wrestrict false positive
    batch.push_back({{"SET", key, std::string(100, 'x')}});
  }
  const auto replies = c.execute_many(batch);
  ASSERT_EQ(replies.size(), batch.size());
  EXPECT_EQ(c.execute({{"DBSIZE"}, 0}).integer(), 5000);
  EXPECT_EQ(c.wait_replicas(0, 100ms), 0);
  // The same server through "localhost" (the certificate's DNS name, SNI sent).
  auto by_name =
      client::connect("rediss://localhost:" + std::to_string(good_->port()), trusting_test_ca());
  EXPECT_EQ(by_name.execute({{"GET", "1"}}).str(), std::string(100, 'x'));
}

TEST_F(RedisTlsServer, AnUntrustedCaIsRefusedNamingTheServer) {
  client_options o = trusting_test_ca();
  o.tls.ca_file.clear();  // the system's store: it does not know the test CA
  ::unsetenv("SSL_CERT_FILE");
  const auto message = error_of([&] { client::connect(rediss(*good_), o); }, errc::unreachable);
  EXPECT_EQ(message.rfind("cannot connect to Redis at " + good_->address() +
                              ": the server's certificate is not signed by a trusted CA",
                          0),
            0u)
      << message;
}

TEST_F(RedisTlsServer, TheWrongHostNameIsRefused) {
  client_options o = trusting_test_ca();
  o.tls.server_name = "cache.example";
  const auto message = error_of([&] { client::connect(rediss(*good_), o); }, errc::unreachable);
  EXPECT_NE(message.find(good_->address()), std::string::npos) << message;
  EXPECT_NE(message.find("is not valid for \"cache.example\""), std::string::npos) << message;
  o.tls.server_name = "localhost";  // a name the certificate has
  EXPECT_NO_THROW(client::connect(rediss(*good_), o));
}

TEST_F(RedisTlsServer, PlaintextAndTlsMixedUpAreClearErrors) {
  client_options o = trusting_test_ca();
  o.connect_timeout = 300ms;
  // A TLS URL on a plaintext server (which waits for the end of the "command" it reads).
  auto message = error_of([&] { client::connect(rediss(*plain_), o); }, errc::unreachable);
  EXPECT_NE(message.find(plain_->address()), std::string::npos) << message;
  EXPECT_NE(message.find("use redis://"), std::string::npos) << message;
  // A plaintext URL on a TLS server.
  o.tls.ca_file.clear();  // a TLS option on a redis:// URL is refused before connecting
  message = error_of([&] { client::connect("redis://" + good_->address(), o); }, errc::unreachable);
  EXPECT_NE(message.find(good_->address()), std::string::npos) << message;
  EXPECT_NE(message.find("use rediss://"), std::string::npos) << message;
}

TEST_F(RedisTlsServer, RecoversAfterARestartWithoutANewClient) {
  redis_server server(tls_server());
  client_options o = trusting_test_ca();
  o.max_retries = 3;
  auto c = client::connect(rediss(server), o);
  c.execute({{"SET", "a", "1"}});
  server.stop();
  const auto message = error_of([&] { c.execute({{"GET", "a"}}); }, errc::unreachable);
  EXPECT_NE(message.find("Redis at " + server.address()), std::string::npos) << message;
  server.restart();
  EXPECT_TRUE(c.execute({{"GET", "a"}}).is_nil());  // no persistence: empty, but reachable
  EXPECT_EQ(c.execute({{"SET", "b", "2"}}).str(), "OK");
}

TEST(RedisTlsCertificates, ExpiredAndUntrustedServerCertificatesAreRefused) {
  BLOOMKIT_REQUIRE_REDIS();
  redis_server expired(tls_server(&certs().expired()));
  auto message =
      error_of([&] { client::connect(rediss(expired), trusting_test_ca()); }, errc::unreachable);
  EXPECT_EQ(message, "cannot connect to Redis at " + expired.address() +
                         ": the server's certificate has expired");
  redis_server other_ca(tls_server(&certs().untrusted()));
  message =
      error_of([&] { client::connect(rediss(other_ca), trusting_test_ca()); }, errc::unreachable);
  EXPECT_NE(message.find("not signed by a trusted CA"), std::string::npos) << message;
  redis_server wrong_host(tls_server(&certs().wrong_host()));
  message =
      error_of([&] { client::connect(rediss(wrong_host), trusting_test_ca()); }, errc::unreachable);
  EXPECT_NE(message.find("is not valid for \"127.0.0.1\""), std::string::npos) << message;
}

TEST(RedisTlsCertificates, AServerThatRequiresClientCertificates) {
  BLOOMKIT_REQUIRE_REDIS();
  redis_server server(tls_server(nullptr, true));
  const auto message =
      error_of([&] { client::connect(rediss(server), trusting_test_ca()); }, errc::unreachable);
  EXPECT_NE(message.find(server.address()), std::string::npos) << message;
  EXPECT_NE(message.find("--tls-cert"), std::string::npos) << message;
  client_options o = trusting_test_ca();
  o.tls.cert_file = certs().client().cert.string();
  o.tls.key_file = certs().client().key.string();
  auto c = client::connect(rediss(server), o);
  EXPECT_EQ(c.execute({{"SET", "k", "v"}}).str(), "OK");
  // A filter works the same over it.
  auto f = bloomkit::redis::redis_filter::create(c, "tls", 1000, 0.01);
  EXPECT_TRUE(f.insert("a"));
  EXPECT_TRUE(f.contains("a"));
}

}  // namespace
