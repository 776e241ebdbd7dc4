// `bloomkit redis create --kind counting` and `bloomkit redis remove` against a real
// redis-server: removes from args and stdin, refusals, the rest of the Redis subcommands on a
// counting filter, and the usage and type errors (exit 2 and 1).

#include <string>

#include <gtest/gtest.h>

#include "redis_cli_fixture.hpp"

namespace {

using namespace bloomkit::redis_cli_test;

class RedisCliCounting : public RedisCli {};

TEST_F(RedisCliCounting, CreateAddRemoveQuery) {
  auto r = redis({"create", "items", "--kind", "counting", "--capacity", "1000", "--fpp", "0.01"});
  ASSERT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.out.rfind("created items: ", 0), 0u) << r;
  EXPECT_NE(r.out.find(" 4-bit counters, "), std::string::npos) << r;
  EXPECT_EQ(server_->raw({"HGET", "items:meta", "kind"}).str(), "counting");
  r = redis({"add", "items"}, lines(0, 100));
  ASSERT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.out, "added 100 new of 100 keys\n");
  r = redis({"remove", "items", "key-0", "key-1"});
  ASSERT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.out, "removed 2 of 2 keys\n");
  r = redis({"remove", "items"}, lines(2, 50));
  ASSERT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.out, "removed 48 of 48 keys\n");
  r = redis({"query", "items", "--count"}, lines(50, 100));
  EXPECT_EQ(r.out, "present=50 absent=0\n") << r;
  // Removed keys are gone (but for false positives).
  r = redis({"query", "items", "--count"}, lines(0, 50));
  ASSERT_EQ(r.status, 0) << r;
  ASSERT_EQ(r.out.rfind("present=", 0), 0u) << r;
  EXPECT_LT(std::stoi(r.out.substr(8)), 5) << r;
  // Never-inserted keys that are definitely absent are refused: nothing changes.
  const std::string before = server_->raw({"GET", "items:1:0"}).str();
  r = redis({"remove", "items", "key-0", "key-1"});
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_EQ(server_->raw({"GET", "items:1:0"}).str(), before);
  r = redis({"info", "items", "--json"});
  ASSERT_EQ(r.status, 0) << r;
  EXPECT_NE(r.out.find("\"kind\": \"counting\""), std::string::npos) << r;
  EXPECT_NE(r.out.find("\"inserted\": 50"), std::string::npos) << r;
}

TEST_F(RedisCliCounting, PullPushRebuildExpireDrop) {
  ASSERT_EQ(redis({"create", "c", "--kind", "counting", "--capacity", "500", "--fpp", "0.01",
                   "--shard-bits", "32"})
                .status,
            0);
  ASSERT_EQ(redis({"add", "c"}, lines(0, 200)).status, 0);
  const auto file = (dir_.path() / "c.bf").string();
  auto r = redis({"pull", "c", file});
  ASSERT_EQ(r.status, 0) << r;
  // The file is a counting filter file: the local CLI removes from it.
  r = run(dir_.path(), {"remove", file, "key-0"});
  EXPECT_EQ(r.out, "removed 1 of 1 keys\n") << r;
  r = redis({"push", file, "copy"});
  ASSERT_EQ(r.status, 0) << r;
  r = redis({"remove", "copy", "key-1", "key-0"});
  EXPECT_EQ(r.out, "removed 1 of 2 keys\n") << r;
  r = redis({"rebuild", "c"}, lines(100, 200));
  ASSERT_EQ(r.status, 0) << r;
  r = redis({"query", "c", "--count"}, lines(100, 200));
  EXPECT_EQ(r.out, "present=100 absent=0\n") << r;
  r = redis({"remove", "c"}, lines(100, 200));
  EXPECT_EQ(r.out, "removed 100 of 100 keys\n") << r;
  EXPECT_EQ(redis({"expire", "c", "100"}).status, 0);
  EXPECT_GT(server_->raw({"TTL", "c:2:0"}).integer(), 0);
  EXPECT_EQ(redis({"drop", "c"}).status, 0);
  EXPECT_EQ(server_->raw({"EXISTS", "c:meta"}).integer(), 0);
}

TEST_F(RedisCliCounting, AShardedFilterPullsIntoAShardedCountingFileAndPushesBack) {
  ASSERT_EQ(redis({"create", "c", "--kind", "counting", "--capacity", "3000", "--fpp", "0.01",
                   "--shard-bits", "12"})
                .status,
            0);
  ASSERT_EQ(redis({"add", "c"}, lines(0, 2000)).status, 0);
  const auto file = (dir_.path() / "c.bf").string();
  auto r = redis({"pull", "c", file});
  ASSERT_EQ(r.status, 0) << r;
  // Its probes are the shards': the local commands refuse it, naming the scheme.
  r = run(dir_.path(), {"query", file, "key-0"});
  EXPECT_NE(r.status, 0) << r;
  EXPECT_NE(r.err.find("redis-sharded-xxh3"), std::string::npos) << r;
  r = redis({"push", file, "copy"});
  ASSERT_EQ(r.status, 0) << r;
  r = redis({"query", "copy", "--count"}, lines(0, 2000));
  EXPECT_EQ(r.out, "present=2000 absent=0\n") << r;
  r = redis({"remove", "copy"}, lines(0, 1000));
  EXPECT_EQ(r.out, "removed 1000 of 1000 keys\n") << r;
  r = redis({"info", "copy", "--json"});
  EXPECT_NE(r.out.find("\"kind\": \"counting\""), std::string::npos) << r;
  EXPECT_NE(r.out.find("\"inserted\": 1000"), std::string::npos) << r;
}

TEST_F(RedisCliCounting, ErrorsAndUsage) {
  ASSERT_EQ(redis({"create", "bits", "--capacity", "1000", "--fpp", "0.01"}).status, 0);
  auto r = redis({"remove", "bits", "a"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("bloomkit: error: filter 'bits' is a bit filter"), std::string::npos) << r;
  r = redis({"remove", "missing", "a"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r;
  r = redis({"create", "bits", "--kind", "counting", "--capacity", "1000", "--fpp", "0.01"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("kind bit (asked counting)"), std::string::npos) << r;
  r = redis({"remove"});
  EXPECT_EQ(r.status, 2) << r;
  r = redis({"create", "x", "--kind", "cuckoo", "--capacity", "10", "--fpp", "0.01"});
  EXPECT_EQ(r.status, 2) << r;
  r = redis(
      {"create", "x", "--kind", "counting", "--capacity", "10", "--fpp", "0.01", "--window", "1h"});
  EXPECT_EQ(r.status, 2) << r;
  EXPECT_NE(r.err.find("--window"), std::string::npos) << r;
  r = redis({"create", "x", "--kind", "counting", "--capacity", "10", "--fpp", "0.01",
             "--shard-bits", "11"});
  EXPECT_EQ(r.status, 2) << r;
  EXPECT_NE(r.err.find("--shard-bits 12 or more"), std::string::npos) << r;
  r = redis({"--layout", "go-zero", "--bits", "64", "remove", "k", "a"});
  EXPECT_EQ(r.status, 2) << r;
  EXPECT_EQ(server_->raw({"EXISTS", "x:meta"}).integer(), 0);
}

}  // namespace
