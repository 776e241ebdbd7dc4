// `bloomkit redis` credentials and connection errors: the URL from BLOOMKIT_REDIS_URL and the
// password from REDISCLI_AUTH, bad URLs that never show their password, and the documented
// connect-failure message.

#include <filesystem>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "redis_cli_fixture.hpp"
#include "support/scoped_env.hpp"
#include "support/tls_certificates.hpp"

namespace {

using namespace bloomkit::redis_cli_test;

// Credentials off the command line (where `ps` shows them): the URL from BLOOMKIT_REDIS_URL when
// --url is absent, the password from REDISCLI_AUTH when the URL has none; no message, and no
// output, ever shows a password.
TEST_F(RedisCli, CredentialsFromTheEnvironment) {
  using bloomkit::test::scoped_env;
  bloomkit::test::redis_server_options o;
  o.requirepass = "Default7-pass";
  o.users = {{"alice", "Alice7-pass"}};
  redis_server secured(o);
  const std::string base = secured.address();
  const auto shows_no_password = [](const result& r) {
    for (const char* secret : {"Default7", "Alice7", "Wrong7", "Wrong8"}) {
      EXPECT_EQ(r.out.find(secret), std::string::npos) << secret << "\n" << r;
      EXPECT_EQ(r.err.find(secret), std::string::npos) << secret << "\n" << r;
    }
  };
  {
    scoped_env env({{"BLOOMKIT_REDIS_URL", "redis://:Default7-pass@" + base},
                    {"REDISCLI_AUTH", std::nullopt}});
    auto r = run(dir_.path(), {"redis", "create", "f", "--capacity", "1000", "--fpp", "0.01"});
    EXPECT_EQ(r.status, 0) << r;
    r = run(dir_.path(), {"redis", "add", "f", "a"});
    EXPECT_EQ(r.out, "added 1 new of 1 keys\n") << r;
    r = run(dir_.path(), {"redis", "info", "f"});
    EXPECT_EQ(r.status, 0) << r;
    EXPECT_NE(r.out.find("url: redis://" + base + "\n"), std::string::npos) << r;
    shows_no_password(r);
  }
  {
    scoped_env env({{"BLOOMKIT_REDIS_URL", "redis://" + base}, {"REDISCLI_AUTH", "Default7-pass"}});
    auto r = run(dir_.path(), {"redis", "query", "f", "a", "b"});
    EXPECT_EQ(r.out, "1\ta\n0\tb\n") << r;
    EXPECT_EQ(r.status, 0) << r;
    // --url wins over BLOOMKIT_REDIS_URL; REDISCLI_AUTH still gives its password.
    r = run(dir_.path(), {"redis", "--url", "redis://" + base, "query", "f", "a"});
    EXPECT_EQ(r.out, "1\ta\n") << r;
    r = run(dir_.path(), {"redis", "--url", "redis://127.0.0.1:1", "query", "f", "a"});
    EXPECT_EQ(r.status, 1) << r;
    EXPECT_NE(r.err.find("127.0.0.1:1"), std::string::npos) << r;
  }
  {
    // An ACL user whose password comes from REDISCLI_AUTH: redis://alice:@host.
    scoped_env env({{"BLOOMKIT_REDIS_URL", std::nullopt}, {"REDISCLI_AUTH", "Alice7-pass"}});
    const auto r = run(dir_.path(), {"redis", "--url", "redis://alice:@" + base, "info", "f"});
    EXPECT_EQ(r.status, 0) << r;
    EXPECT_NE(r.out.find("url: redis://alice@" + base + "\n"), std::string::npos) << r;
    shows_no_password(r);
  }
  {
    // Wrong passwords, from REDISCLI_AUTH and from the URL: exit 1 naming the server and user.
    scoped_env env({{"BLOOMKIT_REDIS_URL", "redis://alice:@" + base}, {"REDISCLI_AUTH", "Wrong7"}});
    auto r = run(dir_.path(), {"redis", "info", "f"});
    EXPECT_EQ(r.status, 1) << r;
    EXPECT_EQ(
        r.err.rfind(
            "bloomkit: error: Redis at " + base + " refused AUTH of user \"alice\": WRONGPASS", 0),
        0u)
        << r;
    shows_no_password(r);
    r = run(dir_.path(), {"redis", "--url", "redis://alice:Wrong8@" + base, "info", "f"});
    EXPECT_EQ(r.status, 1) << r;
    EXPECT_NE(r.err.find("refused AUTH"), std::string::npos) << r;
    shows_no_password(r);
  }
  {
    // No password at all; a user without one; a bad URL in the variable.
    scoped_env env({{"BLOOMKIT_REDIS_URL", "redis://" + base}, {"REDISCLI_AUTH", std::nullopt}});
    auto r = run(dir_.path(), {"redis", "info", "f"});
    EXPECT_EQ(r.status, 1) << r;
    EXPECT_NE(r.err.find("requires a password: NOAUTH"), std::string::npos) << r;
    r = run(dir_.path(), {"redis", "--url", "redis://alice:@" + base, "info", "f"});
    EXPECT_EQ(r.err, "bloomkit: error: Redis URL \"redis://alice@" + base +
                         "\" names user \"alice\" but no password: add it to the URL or set "
                         "REDISCLI_AUTH\n")
        << r;
  }
  {
    scoped_env env({{"BLOOMKIT_REDIS_URL", "redis://:Default7-pass@"}});
    const auto r = run(dir_.path(), {"redis", "info", "f"});
    EXPECT_EQ(r.status, 1) << r;
    EXPECT_EQ(r.err,
              "bloomkit: error: BLOOMKIT_REDIS_URL: invalid Redis URL \"redis://***@\": missing "
              "host\n")
        << r;
  }
}

// The malformed URL shapes that used to echo their password (issue 11, item 12).
TEST_F(RedisCli, BadUrlsNeverShowThePassword) {
  for (const std::string url :
       {"redis:/user:Secret7@h:1", "redis:user:Secret7@h", "redis://:Secret7@",
        "redis://user:Secret7@", "redis://h:1?password=Secret7",
        "redis://Other7@h:1?password=Secret7", "redis://user:Secret7",
        "redis://u:Sec/ret7@h:1/x"}) {
    const auto r = run(dir_.path(), {"redis", "--url", url, "info", "f"});
    EXPECT_EQ(r.status, 1) << url << "\n" << r;
    EXPECT_EQ(r.err.rfind("bloomkit: error: invalid Redis URL \"", 0), 0u) << url << "\n" << r;
    for (const char* secret : {"Secret7", "Other7", "Sec", "ret7"}) {
      EXPECT_EQ(r.err.find(secret), std::string::npos) << url << "\n" << r;
    }
  }
}

// The connect-failure message is the one docs/CLI.md and docs/REDIS.md quote (for 127.0.0.1:6379).
TEST_F(RedisCli, ConnectFailureIsTheDocumentedMessage) {
  const fs::path docs = fs::path(BLOOMKIT_INTEROP_DATA) / ".." / ".." / ".." / "docs";
  const std::string quoted =
      "cannot connect to Redis at 127.0.0.1:6379: Connection refused (gave up after 3 retries)";
  EXPECT_NE(slurp(docs / "CLI.md").find("bloomkit: error: " + quoted + "\n"), std::string::npos);
  EXPECT_NE(slurp(docs / "REDIS.md").find("`" + quoted + "`"), std::string::npos);
  const auto r = run(dir_.path(), {"redis", "--url", "redis://127.0.0.1:1", "info", "f"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_EQ(r.err,
            "bloomkit: error: cannot connect to Redis at 127.0.0.1:1: Connection refused "
            "(gave up after 3 retries)\n")
      << r;
}

// The TLS options, checked before any connection (issue 27, item 6): with a plaintext URL they
// are refused (they were ignored); a file that is not a regular file is refused naming the option;
// an encrypted key fails at once, never prompting, unless BLOOMKIT_TLS_KEY_PASSPHRASE gives its
// passphrase.
TEST_F(RedisCli, TlsOptionsAreCheckedBeforeConnecting) {
  using bloomkit::test::scoped_env;
  const auto& certs = bloomkit::test::tls_certificates::shared();
  const std::string ca = certs.ca().string();
  auto r = run(dir_.path(), {"redis", "--url", "redis://127.0.0.1:1", "--tls-ca", ca, "info", "f"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_EQ(r.err, "bloomkit: error: --tls-ca \"" + ca +
                       "\" is a TLS option, but the URL \"redis://127.0.0.1:1\" is not a TLS one: "
                       "use rediss:// (rediss-cluster://, rediss-sentinel://) for TLS, or drop "
                       "the option\n")
      << r;
  r = run(dir_.path(), {"redis", "--url", "rediss://127.0.0.1:1", "--tls-ca", dir_.path().string(),
                        "info", "f"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_EQ(r.err, "bloomkit: error: TLS: cannot use the CA file \"" + dir_.path().string() +
                       "\" (--tls-ca): it is a directory, not a regular file\n")
      << r;
  const std::vector<std::string> encrypted = {"redis",
                                              "--url",
                                              "rediss://127.0.0.1:1",
                                              "--tls-ca",
                                              ca,
                                              "--tls-cert",
                                              certs.client().cert.string(),
                                              "--tls-key",
                                              certs.encrypted_client_key().string(),
                                              "info",
                                              "f"};
  {
    scoped_env env({{"BLOOMKIT_TLS_KEY_PASSPHRASE", std::nullopt}});
    r = run(dir_.path(), encrypted);
    EXPECT_EQ(r.status, 1) << r;
    EXPECT_EQ(r.err, "bloomkit: error: TLS: the client key \"" +
                         certs.encrypted_client_key().string() +
                         "\" (--tls-key) is encrypted and no passphrase was given (set "
                         "BLOOMKIT_TLS_KEY_PASSPHRASE)\n")
        << r;
  }
  {
    scoped_env env({{"BLOOMKIT_TLS_KEY_PASSPHRASE",
                     bloomkit::test::tls_certificates::encrypted_key_passphrase}});
    r = run(dir_.path(), encrypted);
    EXPECT_EQ(r.status, 1) << r;
    // The key loaded: the error is the connection's (nobody listens on port 1).
    EXPECT_EQ(r.err.rfind("bloomkit: error: cannot connect to Redis at 127.0.0.1:1", 0), 0u) << r;
  }
}

}  // namespace
