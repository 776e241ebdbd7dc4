// End-to-end tests of `bloomkit redis ...` (docs/CLI.md, "Redis"): the real binary against a
// real redis-server (and one 3-master Redis Cluster) started by the fixtures; stdout, stderr and
// the exit status are checked exactly.

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/file.hpp"
#include "json_check.hpp"
#include "support/interop_vectors.hpp"
#include "support/redis_fixtures.hpp"
#include "support/redis_server.hpp"
#include "support/scoped_env.hpp"
#include "support/spawn.hpp"
#include "support/temp_dir.hpp"

#ifndef BLOOMKIT_EXE
#error "BLOOMKIT_EXE must be the path of the bloomkit binary"
#endif

namespace {

namespace fs = std::filesystem;
using bloomkit::test::redis_cluster;
using bloomkit::test::redis_server;

struct result {
  int status = -1;
  std::string out;
  std::string err;
};

std::ostream& operator<<(std::ostream& os, const result& r) {
  return os << "status " << r.status << "\n--- stdout ---\n"
            << r.out << "\n--- stderr ---\n"
            << r.err;
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Starts bloomkit with `args`, its stdin read from paths[0], stdout and stderr written to
// paths[1] and paths[2]; does not wait for it.
pid_t start(const std::vector<std::string>& args, const std::array<fs::path, 3>& paths) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, paths[0].c_str(), O_RDONLY, 0);
  for (int fd : {1, 2}) {
    posix_spawn_file_actions_addopen(&actions, fd, paths[fd].c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
  }
  pid_t pid = -1;
  EXPECT_EQ(bloomkit::test::spawn_with_default_signals(&pid, BLOOMKIT_EXE, args, &actions), 0);
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

// Runs bloomkit with `args`, `input` on stdin; stdout and stderr go through files in `dir`.
result run(const fs::path& dir, const std::vector<std::string>& args,
           const std::string& input = "") {
  const fs::path in = dir / "stdin", out = dir / "stdout", err = dir / "stderr";
  std::ofstream(in, std::ios::binary | std::ios::trunc) << input;
  const pid_t pid = start(args, {in, out, err});
  int status = 0;
  ::waitpid(pid, &status, 0);
  result r;
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

std::string lines(int from, int to) {
  std::string s;
  for (int i = from; i < to; ++i) s += "key-" + std::to_string(i) + "\n";
  return s;
}

class RedisCli : public bloomkit::test::single_server_test {
 protected:
  // bloomkit redis --url <server> args...
  result redis(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), {"redis", "--url", server_->url()});
    return run(dir_.path(), args, input);
  }
  bloomkit::test::temp_dir dir_;
};

TEST_F(RedisCli, CreateAddQuery) {
  const auto expected = bloomkit::optimal_params(100000, 0.01);
  auto r = redis({"create", "urls", "--capacity", "1e5", "--fpp", "0.01"});
  ASSERT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.out, "created urls: " + std::to_string(expected.bits) + " bits, " +
                       std::to_string((expected.bits + 7) / 8) + " bytes, " +
                       std::to_string(expected.hashes) + " hashes, 1 shards\n");
  EXPECT_EQ(r.err, "");
  // Creating it again with the same parameters is fine; with others, an error.
  EXPECT_EQ(redis({"create", "urls", "--capacity", "100000", "--fpp", "0.01"}).status, 0);
  r = redis({"create", "urls", "--capacity", "1e6", "--fpp", "0.01"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_EQ(r.err,
            "bloomkit: error: filter 'urls' already exists with other parameters: capacity "
            "100000 (asked 1000000), bits_per_shard " +
                std::to_string(expected.bits) + " (asked " +
                std::to_string(bloomkit::optimal_bits(1000000, 0.01)) + ")\n");

  r = redis({"add", "urls", "a", "b"});
  EXPECT_EQ(r.out, "added 2 new of 2 keys\n") << r;
  r = redis({"add", "urls"}, "b\nc\r\n" + lines(0, 1000));
  EXPECT_EQ(r.out, "added 1001 new of 1002 keys\n") << r;
  r = redis({"query", "urls", "a", "zz", "c"});
  EXPECT_EQ(r.out, "1\ta\n0\tzz\n1\tc\n") << r;
  r = redis({"query", "urls", "--present"}, "a\nzz\nb\n");
  EXPECT_EQ(r.out, "a\nb\n") << r;
  r = redis({"query", "urls", "--absent"}, "a\nzz\nb\n");
  EXPECT_EQ(r.out, "zz\n") << r;
  r = redis({"query", "urls", "--count"}, lines(0, 1000) + lines(5000, 6000));
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.out.rfind("present=", 0), 0u) << r;
  const auto present = std::stoul(r.out.substr(8));
  EXPECT_GE(present, 1000u);
  EXPECT_LT(present, 1040u);  // 1000 keys at p = 0.01 for the misses: ~10, at most a few dozen
  // --url also after the subcommand.
  r = run(dir_.path(), {"redis", "query", "urls", "a", "--url", server_->url()});
  EXPECT_EQ(r.out, "1\ta\n") << r;
}

TEST_F(RedisCli, InfoTextAndJson) {
  ASSERT_EQ(
      redis({"create", "f", "--capacity", "3e5", "--fpp", "0.01", "--shard-bits", "20"}).status, 0);
  redis({"add", "f"}, lines(0, 100));
  auto r = redis({"info", "f"});
  ASSERT_EQ(r.status, 0) << r;
  const auto m = bloomkit::optimal_bits(300000, 0.01);
  const std::uint64_t shards = (m + (1 << 20) - 1) >> 20;
  const std::uint64_t per_shard = ((m + shards - 1) / shards + 63) / 64 * 64;
  for (const std::string& line :
       std::vector<std::string>{"name: f\n", "url: " + server_->url() + "\n", "format_version: 1\n",
                                "hash_scheme: redis-sharded-xxh3\n",
                                "bits: " + std::to_string(per_shard * shards) + "\n",
                                "shards: " + std::to_string(shards) + "\n",
                                "bits_per_shard: " + std::to_string(per_shard) + "\n",
                                "hashes: 7\n", "capacity: 300000\n", "target_fpp: 0.01\n",
                                "generation: 1\n", "ttl: -1\n", "inserted: 100\n"}) {
    EXPECT_NE(r.out.find(line), std::string::npos) << line << r;
  }
  r = redis({"info", "f", "--json"});
  ASSERT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.out.front(), '{');
  EXPECT_NE(r.out.find("\"shards\": " + std::to_string(shards)), std::string::npos) << r;
  EXPECT_NE(r.out.find("\"hash_scheme\": \"redis-sharded-xxh3\""), std::string::npos) << r;
  EXPECT_NE(r.out.find("\"ttl\": -1"), std::string::npos) << r;
  EXPECT_NE(r.out.find("\"estimated_count\": "), std::string::npos) << r;
}

TEST_F(RedisCli, PushPullRebuildExpireDrop) {
  const fs::path file = dir_ / "local.bf", back = dir_ / "back.bf";
  ASSERT_EQ(
      run(dir_.path(), {"create", file.string(), "--capacity", "1000", "--fpp", "0.01"}).status, 0);
  run(dir_.path(), {"add", file.string()}, lines(0, 500));
  auto r = redis({"push", file.string(), "pushed"});
  EXPECT_EQ(r.out, "pushed " + file.string() + " to pushed: 9586 bits, 7 hashes, 1 shards\n") << r;
  r = redis({"pull", "pushed", back.string()});
  EXPECT_EQ(r.out, "pulled pushed to " + back.string() + ": 9586 bits, 7 hashes, 1 shards\n") << r;
  EXPECT_EQ(slurp(file), slurp(back));
  // The pulled file is a native filter: the file commands work on it.
  r = run(dir_.path(), {"query", back.string(), "key-1", "nope"});
  EXPECT_EQ(r.out, "1\tkey-1\n0\tnope\n") << r;
  r = redis({"push", file.string(), "pushed"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_EQ(r.err, "bloomkit: error: filter 'pushed' already exists\n");

  std::ofstream(dir_ / "a.txt") << lines(1000, 1100);
  std::ofstream(dir_ / "b.txt") << lines(1100, 1200);
  r = redis({"rebuild", "pushed", (dir_ / "a.txt").string(), (dir_ / "b.txt").string()});
  ASSERT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.out.rfind("rebuilt pushed: 200 keys read, 200 new, generation 2, in ", 0), 0u) << r;
  r = redis({"query", "pushed", "--count"}, lines(1000, 1200));
  EXPECT_EQ(r.out, "present=200 absent=0\n") << r;
  r = redis({"rebuild", "pushed", (dir_ / "missing.txt").string()});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("missing.txt"), std::string::npos) << r;

  r = redis({"expire", "pushed", "100"});
  EXPECT_EQ(r.out, "expire pushed: 2 keys expire in 100 s\n") << r;
  EXPECT_GT(server_->raw({"TTL", "pushed:2:0"}).integer(), 90);
  EXPECT_GT(server_->raw({"TTL", "pushed:meta"}).integer(), 90);
  EXPECT_EQ(redis({"expire", "pushed", "0"}).status, 2);

  r = redis({"drop", "pushed"});
  EXPECT_EQ(r.out, "dropped pushed\n") << r;
  EXPECT_EQ(server_->raw({"EXISTS", "pushed:meta"}).integer(), 0);
}

TEST_F(RedisCli, ErrorsAreExitOneWithAClearMessage) {
  auto r = redis({"query", "missing", "a"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "bloomkit: error: filter 'missing' does not exist (no key 'missing:meta')\n");
  server_->raw({"SET", "str:meta", "x"});
  r = redis({"add", "str", "a"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_EQ(r.err,
            "bloomkit: error: filter 'str': key 'str:meta' exists but is not a hash (not a "
            "bloomkit filter meta)\n");
  for (const char* command : {"info", "drop", "pull"}) {
    std::vector<std::string> args = {command, "missing"};
    if (std::string(command) == "pull") args.push_back((dir_ / "x.bf").string());
    r = redis(args);
    EXPECT_EQ(r.status, 1) << command << r;
  }
  EXPECT_FALSE(fs::exists(dir_ / "x.bf"));
  // Usage errors: exit 2.
  EXPECT_EQ(redis({"create", "f", "--capacity", "0", "--fpp", "0.01"}).status, 2);
  EXPECT_EQ(
      redis({"create", "f", "--capacity", "10", "--fpp", "0.01", "--shard-bits", "40"}).status, 2);
  EXPECT_EQ(redis({"frobnicate"}).status, 2);
  // Nothing listens: exit 1 naming the address.
  r = run(dir_.path(), {"redis", "--url", "redis://127.0.0.1:1", "info", "f"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("127.0.0.1:1"), std::string::npos) << r;
}

// Filter names are bytes: `info --json` is valid JSON for any of them and gives the name back
// exactly (python3's json module checks it); a name with a control byte is shown escaped
// ($'...') in every one-line output and error, an ordinary name exactly as before
// (docs/CLI.md, "Names in output").
TEST_F(RedisCli, AnyFilterNameKeepsJsonValidAndLinesWhole) {
  const std::vector<std::string> names = {"caf\xc3\xa9", "caf\xe9",   "\xed\xa0\x80", "\xe2\x82",
                                          "\x80\xff",    "new\nline", "t\tab"};
  std::vector<std::string> documents;
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    auto r = redis({"create", name, "--capacity", "100", "--fpp", "0.01"});
    ASSERT_EQ(r.status, 0) << r;
    r = redis({"info", name, "--json"});
    ASSERT_EQ(r.status, 0) << r;
    documents.push_back(r.out);
    const std::string text = redis({"info", name}).out;
    EXPECT_EQ(std::count(text.begin(), text.end(), '\n'),
              std::count(r.out.begin(), r.out.end(), '\n') - 2)
        << text;
  }
  // Valid JSON (python3's json module), each name given back byte for byte.
  const auto parsed = bloomkit::cli_test::python_json_strings(documents, "name");
  ASSERT_EQ(parsed.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(parsed[i], names[i]) << documents[i];
  // An ordinary name (no control byte, not starting with $') prints as it always did.
  auto r = redis({"create", "caf\xe9", "--capacity", "100", "--fpp", "0.01"});
  EXPECT_EQ(r.out.rfind("created caf\xe9: ", 0), 0u) << r;

  r = redis({"create", "a\nb", "--capacity", "100", "--fpp", "0.01"});
  EXPECT_EQ(r.out.rfind("created $'a\\nb': ", 0), 0u) << r;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r;
  EXPECT_EQ(redis({"info", "a\nb"}).out.rfind("name: $'a\\nb'\n", 0), 0u);
  const fs::path file = dir_.path() / "f\n.bf";
  r = redis({"pull", "a\nb", file.string()});
  EXPECT_EQ(r.out.rfind("pulled $'a\\nb' to $'" + dir_.path().string() + "/f\\n.bf': ", 0), 0u)
      << r;
  r = redis({"push", file.string(), "c\rd"});
  EXPECT_EQ(r.out.rfind("pushed $'" + dir_.path().string() + "/f\\n.bf' to $'c\\rd': ", 0), 0u)
      << r;
  r = redis({"rebuild", "a\nb"}, "k\n");
  EXPECT_EQ(r.out.rfind("rebuilt $'a\\nb': 1 keys read, 1 new, generation 2, in ", 0), 0u) << r;
  r = redis({"expire", "a\nb", "100"});
  EXPECT_EQ(r.out, "expire $'a\\nb': 2 keys expire in 100 s\n") << r;
  r = redis({"drop", "a\nb"});
  EXPECT_EQ(r.out, "dropped $'a\\nb'\n") << r;
  // A name that starts like the escaped form is escaped too, so the two never look alike.
  r = redis({"create", "$'x'", "--capacity", "100", "--fpp", "0.01"});
  EXPECT_EQ(r.out.rfind("created $'$\\'x\\'': ", 0), 0u) << r;
  // Errors the library words: control bytes escaped, one line.
  r = redis({"query", "x\ny", "k"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_EQ(r.err, "bloomkit: error: filter 'x\\ny' does not exist (no key 'x\\ny:meta')\n");
}

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

// --- missing shards, orphans, interrupted creates, empty rebuilds, eviction (issue 11) ---

// Starts bloomkit with `args` (stdin empty, output discarded) without waiting for it.
pid_t spawn(const std::vector<std::string>& args) {
  return start(args, {"/dev/null", "/dev/null", "/dev/null"});
}

TEST_F(RedisCli, AMissingShardIsAnErrorNamingItNeverAnAnswer) {
  ASSERT_EQ(
      redis({"create", "f", "--capacity", "1e4", "--fpp", "0.01", "--shard-bits", "12"}).status, 0);
  ASSERT_EQ(redis({"add", "f"}, lines(0, 1000)).status, 0);
  server_->raw({"DEL", "f:1:0"});
  const std::string message =
      "bloomkit: error: filter 'f': shard 'f:1:0' is missing (evicted or deleted): the filter "
      "cannot answer; rebuild or push it again\n";
  auto r = redis({"query", "f", "--count"}, lines(0, 1000));
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_EQ(r.out, "") << r;
  EXPECT_EQ(r.err, message) << r;
  r = redis({"info", "f"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("'f:1:0'"), std::string::npos) << r;
  r = redis({"add", "f"}, lines(0, 1000));
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_EQ(r.err, message) << r;
  EXPECT_EQ(server_->raw({"EXISTS", "f:1:0"}).integer(), 0);  // the add created no shard
}

TEST_F(RedisCli, DropRemovesOrphanShardsAndAnInterruptedCreate) {
  // A create of ~93,000 shards of 128 bytes (one round trip each), killed after a few hundred.
  server_->raw({"SET", "unrelated", "x"});
  const std::vector<std::string> create = {
      "redis", "--url", server_->url(), "create",       "big", "--capacity",
      "1e7",   "--fpp", "0.01",         "--shard-bits", "10"};
  const pid_t pid = spawn(create);
  for (int i = 0; i < 1000 && server_->raw({"DBSIZE"}).integer() < 300; ++i) {
    ::usleep(5000);
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  ASSERT_GE(server_->raw({"DBSIZE"}).integer(), 300);
  ASSERT_EQ(server_->raw({"EXISTS", "big:meta"}).integer(), 0);
  // A new create refuses the leftovers and says how to remove them; drop removes them all.
  auto r = redis({"create", "big", "--capacity", "1e7", "--fpp", "0.01", "--shard-bits", "10"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("bloomkit redis drop big"), std::string::npos) << r;
  r = redis({"drop", "big"});
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.out, "dropped big\n") << r;
  EXPECT_EQ(server_->raw({"DBSIZE"}).integer(), 1);
  r = redis({"create", "big", "--capacity", "1e4", "--fpp", "0.01", "--shard-bits", "10"});
  EXPECT_EQ(r.status, 0) << r;

  // Orphans of any generation, without a meta; names with glob characters match only themselves;
  // keys of other shapes under the same prefix stay.
  for (const std::string name : {"o", "a*b", "q?[x]\\"}) {
    for (const std::string& key : {name + ":1:0", name + ":1:17", name + ":4:2"}) {
      server_->raw({"SET", key, "bits"});
    }
  }
  const std::vector<std::string> others = {
      "o:x",    "o:1:2:3",     "o:01:2", "o:1:",   "o:meta:1", "aXb:1:0",
      "ab:1:0", "qa[x]\\:1:0", "o",      "oo:1:1", "a*bc:1:0"};
  for (const auto& key : others) server_->raw({"SET", key, "other"});
  const long long before = server_->raw({"DBSIZE"}).integer();
  for (const std::string name : {"o", "a*b", "q?[x]\\"}) {
    r = redis({"drop", name});
    EXPECT_EQ(r.status, 0) << name << r;
    EXPECT_EQ(r.out, "dropped " + name + "\n") << r;
  }
  EXPECT_EQ(server_->raw({"DBSIZE"}).integer(), before - 9);
  for (const auto& key : others) EXPECT_EQ(server_->raw({"EXISTS", key}).integer(), 1) << key;
  r = redis({"drop", "o"});  // nothing left of it
  EXPECT_EQ(r.status, 1) << r;
}

TEST_F(RedisCli, RebuildFromNoKeysIsRefusedUnlessAllowed) {
  ASSERT_EQ(redis({"create", "ids", "--capacity", "1e4", "--fpp", "0.01"}).status, 0);
  ASSERT_EQ(redis({"add", "ids"}, lines(0, 500)).status, 0);
  // `false | bloomkit redis rebuild ids`: a failed export upstream gives an empty stdin.
  auto r = redis({"rebuild", "ids"}, "");
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_EQ(r.out, "") << r;
  EXPECT_EQ(
      r.err,
      "bloomkit: error: filter 'ids': the rebuild's source gave no keys: refusing to replace "
      "the filter with an empty one (--allow-empty, rebuild_options::allow_empty, allows it)\n")
      << r;
  r = redis({"query", "ids", "--count"}, lines(0, 500));
  EXPECT_EQ(r.out, "present=500 absent=0\n") << r;
  EXPECT_EQ(server_->raw({"HGET", "ids:meta", "generation"}).str(), "1");
  EXPECT_EQ(server_->raw({"EXISTS", "ids:2:0"}).integer(), 0);
  r = redis({"rebuild", "ids", "--allow-empty"}, "");
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.out.rfind("rebuilt ids: 0 keys read, 0 new, generation 2, in ", 0), 0u) << r;
  r = redis({"query", "ids", "--count"}, lines(0, 500));
  EXPECT_EQ(r.out.rfind("present=", 0), 0u) << r;
  EXPECT_LT(std::stoul(r.out.substr(8)), 5u) << r;
}

TEST_F(RedisCli, AddWarnsWhenTheServerRefusesToCount) {
  ASSERT_EQ(redis({"create", "f", "--capacity", "1e4", "--fpp", "0.01"}).status, 0);
  server_->raw({"ACL", "SETUSER", "nocount", "on", ">pw", "~*", "+@all", "-hincrby"});
  const std::string url = "redis://nocount:pw@" + server_->address();
  auto r = run(dir_.path(), {"redis", "--url", url, "add", "f", "a", "b"});
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.out, "added 2 new of 2 keys\n") << r;
  EXPECT_EQ(r.err.rfind("bloomkit: warning: filter 'f': the server refused to count 2 new keys "
                        "in its meta (HINCRBY f:meta: NOPERM",
                        0),
            0u)
      << r;
  r = redis({"query", "f", "a", "b"});
  EXPECT_EQ(r.out, "1\ta\n1\tb\n") << r;
  EXPECT_EQ(server_->raw({"HGET", "f:meta", "inserted"}).str(), "0");
  // With the count allowed: no warning, and inserted counts.
  r = redis({"add", "f", "c"});
  EXPECT_EQ(r.err, "") << r;
  EXPECT_EQ(server_->raw({"HGET", "f:meta", "inserted"}).str(), "1");
}

TEST_F(RedisCli, InfoWarnsWhenTheServerMayEvictTheFilterOrTtlsDiffer) {
  ASSERT_EQ(
      redis({"create", "f", "--capacity", "1e4", "--fpp", "0.01", "--shard-bits", "12"}).status, 0);
  auto info = [&] {
    auto r = redis({"info", "f"});
    EXPECT_EQ(r.status, 0) << r;
    return r.err;
  };
  EXPECT_EQ(info(), "");  // noeviction
  server_->raw({"CONFIG", "SET", "maxmemory-policy", "allkeys-lru"});
  auto err = info();
  EXPECT_EQ(err.rfind("bloomkit: warning: ", 0), 0u) << err;
  EXPECT_NE(err.find("maxmemory-policy allkeys-lru"), std::string::npos) << err;
  server_->raw({"CONFIG", "SET", "maxmemory-policy", "volatile-lru"});
  EXPECT_EQ(info(), "");  // the filter has no TTL: volatile-* never evicts it
  ASSERT_EQ(redis({"expire", "f", "1000"}).status, 0);
  err = info();
  EXPECT_NE(err.find("maxmemory-policy volatile-lru"), std::string::npos) << err;
  server_->raw({"CONFIG", "SET", "maxmemory-policy", "noeviction"});
  EXPECT_EQ(info(), "");
  // A shard whose TTL differs from the meta's: it would vanish before the filter does.
  server_->raw({"EXPIRE", "f:1:1", "10"});
  err = info();
  EXPECT_EQ(err.rfind("bloomkit: warning: ", 0), 0u) << err;
  EXPECT_NE(err.find("'f:1:1'"), std::string::npos) << err;
}

TEST(RedisCliCluster, CreateAddQueryOnThreeMasters) {
  BLOOMKIT_REQUIRE_REDIS();
  redis_cluster cluster;
  bloomkit::test::temp_dir dir;
  auto redis = [&](std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), {"redis", "--url", cluster.url()});
    return run(dir.path(), args, input);
  };
  auto r = redis({"create", "c", "--capacity", "1e5", "--fpp", "0.01", "--shard-bits", "14"});
  ASSERT_EQ(r.status, 0) << r;
  EXPECT_NE(r.out.find(", 59 shards\n"), std::string::npos) << r;
  r = redis({"add", "c"}, lines(0, 5000));
  EXPECT_EQ(r.out.rfind("added ", 0), 0u) << r;
  r = redis({"query", "c", "--count"}, lines(0, 5000));
  EXPECT_EQ(r.out, "present=5000 absent=0\n") << r;
  for (const auto m : cluster.masters()) {
    EXPECT_GT(cluster.node(m).raw({"DBSIZE"}).integer(), 5) << m;
  }
  const fs::path file = dir / "c.bf";
  r = redis({"pull", "c", file.string()});
  EXPECT_EQ(r.status, 0) << r;
  r = redis({"push", file.string(), "c2"});
  EXPECT_EQ(r.status, 0) << r;
  r = redis({"query", "c2", "--count"}, lines(0, 5000));
  EXPECT_EQ(r.out, "present=5000 absent=0\n") << r;
}

// redis add warns on stderr once the filter holds more keys than its capacity (one line, the
// keys are added all the same); a go-zero key records no capacity and never warns.
TEST_F(RedisCli, AddWarnsOnceTheFilterPassesItsCapacity) {
  ASSERT_EQ(redis({"create", "w", "--capacity", "10", "--fpp", "0.01"}).status, 0);
  auto r = redis({"add", "w"}, lines(0, 10));
  EXPECT_EQ(r.out, "added 10 new of 10 keys\n") << r;
  EXPECT_EQ(r.err, "") << r;
  r = redis({"add", "w", "key-10"});
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.out, "added 1 new of 1 keys\n") << r;
  const std::regex warning(
      "bloomkit: warning: redis filter 'w' holds about [0-9]+ keys, past its capacity 10: its "
      "false-positive rate is now about [0-9.e+-]+ \\(target 0\\.01\\)\n");
  EXPECT_TRUE(std::regex_match(r.err, warning)) << r;
  // Saturated: the rate it reports is what it answers, about 1.
  r = redis({"add", "w"}, lines(100, 3000));
  EXPECT_TRUE(std::regex_match(r.err, warning)) << r;
  EXPECT_NE(r.err.find("now about 1 (target"), std::string::npos) << r;
  r = run(dir_.path(),
          {"redis", "--url", server_->url(), "--layout", "go-zero", "--bits", "64", "add", "g"},
          lines(0, 1000));
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.err, "") << r;
}

// --- --layout go-zero: go-zero core/bloom keys, checked against tests/data/interop/go_zero ---

class RedisCliGoZero : public RedisCli {
 protected:
  static std::string bytes_of(const bloomkit::test::interop_vector& v) {
    const auto bytes = bloomkit::test::read_bytes(v.file);
    return {bytes.begin(), bytes.end()};
  }
  static std::string lines_of(const std::vector<std::string>& keys) {
    std::string s;
    for (const auto& k : keys) s += k + "\n";
    return s;
  }
  std::vector<bloomkit::test::interop_vector> vectors_ = [] {
    std::vector<bloomkit::test::interop_vector> out;
    for (const auto& p : bloomkit::test::vector_files("go_zero")) {
      out.push_back(bloomkit::test::read_vector(p));
    }
    return out;
  }();
};

TEST_F(RedisCliGoZero, AddWritesGoZerosBytes) {
  ASSERT_FALSE(vectors_.empty());
  for (const auto& v : vectors_) {
    SCOPED_TRACE(v.name);
    const std::string bits = std::to_string(v.bits);
    auto r = redis({"add", "users", "--layout", "go-zero", "--bits", bits}, lines_of(v.inserted));
    ASSERT_EQ(r.status, 0) << r;
    EXPECT_EQ(r.out.rfind("added ", 0), 0u) << r;
    EXPECT_NE(r.out.find(" new of " + std::to_string(v.inserted.size()) + " keys\n"),
              std::string::npos)
        << r;
    EXPECT_EQ(server_->raw({"GET", "users"}).str(), bytes_of(v));
    // Again: nothing new, same bytes.
    r = redis({"--layout", "go-zero", "--bits", bits, "add", "users"}, lines_of(v.inserted));
    EXPECT_EQ(r.out, "added 0 new of " + std::to_string(v.inserted.size()) + " keys\n") << r;
    EXPECT_EQ(server_->raw({"GET", "users"}).str(), bytes_of(v));
    server_->raw({"DEL", "users"});
  }
}

TEST_F(RedisCliGoZero, QueryAndInfoOnGoZerosBytes) {
  for (const auto& v : vectors_) {
    SCOPED_TRACE(v.name);
    server_->raw({"SET", "bloom:users", bytes_of(v)});
    std::string input, expected;
    std::size_t present = 0;
    for (std::size_t i = 0; i < v.probes.size(); ++i) {
      input += v.probe_texts[i] + "\n";
      expected += (v.probes[i].second ? "1\t" : "0\t") + v.probe_texts[i] + "\n";
      present += v.probes[i].second;
    }
    const std::string bits = std::to_string(v.bits);
    auto r = redis({"query", "bloom:users", "--layout", "go-zero", "--bits", bits}, input);
    ASSERT_EQ(r.status, 0) << r;
    EXPECT_EQ(r.out, expected);
    r = redis({"query", "bloom:users", "--layout", "go-zero", "--bits", bits, "--count"}, input);
    EXPECT_EQ(r.out, "present=" + std::to_string(present) +
                         " absent=" + std::to_string(v.probes.size() - present) + "\n")
        << r;
    r = redis({"info", "bloom:users", "--layout", "go-zero", "--bits", bits, "--json"});
    ASSERT_EQ(r.status, 0) << r;
    std::uint64_t set = 0;
    for (unsigned char byte : bloomkit::test::read_bytes(v.file)) set += std::popcount(byte);
    EXPECT_NE(r.out.find("\"name\": \"bloom:users\""), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"layout\": \"go-zero\""), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"bits\": " + bits + ","), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"hashes\": 14,"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"bits_set\": " + std::to_string(set) + ","), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"estimated_count\": "), std::string::npos) << r.out;
    r = redis({"info", "bloom:users", "--layout", "go-zero", "--bits", bits});
    EXPECT_NE(r.out.find("layout: go-zero\n"), std::string::npos) << r;
    EXPECT_EQ(r.err, "") << r;
  }
  // A key that does not exist answers absent to everything: info says so.
  auto r = redis({"info", "nothing", "--layout", "go-zero", "--bits", "1000"});
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.err.rfind("bloomkit: warning: go-zero filter key 'nothing' does not exist", 0), 0u)
      << r;
}

TEST_F(RedisCliGoZero, UsageAndTypeErrors) {
  auto r = redis({"add", "users", "--layout", "go-zero", "a"});
  EXPECT_EQ(r.status, 2) << r;
  EXPECT_NE(r.err.find("--layout go-zero needs --bits M"), std::string::npos) << r;
  r = redis({"query", "users", "--bits", "1000", "a"});
  EXPECT_EQ(r.status, 2) << r;
  EXPECT_NE(r.err.find("--bits applies only to --layout go-zero"), std::string::npos) << r;
  for (const char* bits : {"0", "4294967297", "x", "-1"}) {
    r = redis({"add", "users", "--layout", "go-zero", "--bits", bits, "a"});
    EXPECT_EQ(r.status, 2) << bits << r;
  }
  r = redis({"add", "users", "--layout", "redisson", "--bits", "1000", "a"});
  EXPECT_EQ(r.status, 2) << r;
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"create", "users", "--capacity", "10", "--fpp", "0.1"},
           {"drop", "users"},
           {"expire", "users", "10"},
           {"pull", "users", "out.bloom"}}) {
    auto a = args;
    a.insert(a.end(), {"--layout", "go-zero", "--bits", "1000"});
    r = redis(a);
    EXPECT_EQ(r.status, 2) << r;
    EXPECT_NE(r.err.find("--layout go-zero supports add, query and info"), std::string::npos) << r;
  }
  // create: go-zero keys are not created beforehand, whatever else the command line lacks.
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--layout", "go-zero", "--bits", "1000", "create", "users"},
           {"--layout", "go-zero", "create", "users", "--capacity", "10", "--fpp", "0.1"}}) {
    r = redis(args);
    EXPECT_EQ(r.status, 2) << r;
    EXPECT_EQ(r.err.rfind("bloomkit: error: redis create: go-zero keys are not created beforehand "
                          "(go-zero's New(store, key, bits) writes nothing; the first add creates "
                          "the key): run `bloomkit redis --layout go-zero --bits M add users`; "
                          "--layout go-zero supports add, query and info\n",
                          0),
              0u)
        << r;
  }
  EXPECT_EQ(server_->raw({"DBSIZE"}).integer(), 0);  // no usage error wrote anything
  server_->raw({"HSET", "users", "f", "v"});
  r = redis({"add", "users", "--layout", "go-zero", "--bits", "1000", "a"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("'users'"), std::string::npos) << r;
  EXPECT_NE(r.err.find("WRONGTYPE"), std::string::npos) << r;
}

}  // namespace
