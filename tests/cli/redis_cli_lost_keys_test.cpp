// `bloomkit redis` on filters that lost keys or cannot count (issue 11): a missing shard is an
// error naming it, drop removes orphans and an interrupted create, a rebuild from no keys is
// refused unless allowed, and add and info warn about a refused count, eviction and TTLs.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "redis_cli_fixture.hpp"

namespace {

using namespace bloomkit::redis_cli_test;

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
  // Until a deadline, not a count of polls: under ThreadSanitizer (with the library at -Og) on a
  // loaded machine the tool wrote 61 shards in the 8 s that 1,000 polls took.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (server_->raw({"DBSIZE"}).integer() < 300 && std::chrono::steady_clock::now() < deadline) {
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

}  // namespace
