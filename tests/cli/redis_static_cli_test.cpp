// `bloomkit redis rebuild --kind static` and the other Redis subcommands on a static filter
// against a real redis-server: creation and rebuilds with and without a delta, add refused
// without one, info's fields, push and pull of a static file, and the usage and kind errors
// (exit 2 and 1).

#include <fstream>
#include <iterator>
#include <string>

#include <gtest/gtest.h>

#include "redis_cli_fixture.hpp"

namespace {

using namespace bloomkit::redis_cli_test;

class RedisCliStatic : public RedisCli {
 protected:
  std::string keyfile(const std::string& name, int from, int to) {
    const auto path = (dir_.path() / name).string();
    std::ofstream(path) << lines(from, to);
    return path;
  }
};

TEST_F(RedisCliStatic, RebuildAddQueryInfoAndTheNextRebuildFoldsTheDeltaIn) {
  const std::string base = keyfile("base.txt", 0, 2000);
  auto r = redis({"rebuild", "ids", "--kind", "static", "--fpp", "0.01", "--delta-capacity", "500",
                  "--shard-bits", "10", base});
  ASSERT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.out.rfind("rebuilt ids: 2000 keys read, 2000 distinct, generation 1, static, "
                        "7-bit fingerprints, ",
                        0),
            0u)
      << r;
  EXPECT_NE(r.out.find(" delta capacity 500, in "), std::string::npos) << r;
  r = redis({"add", "ids"}, lines(2000, 2100));
  ASSERT_EQ(r.status, 0) << r;
  r = redis({"query", "ids", "--count"}, lines(0, 2100));
  EXPECT_EQ(r.out, "present=2100 absent=0\n") << r;
  r = redis({"info", "ids", "--json"});
  ASSERT_EQ(r.status, 0) << r;
  for (const char* field : {"\"kind\": \"static\"", "\"fingerprint_bits\": 7", "\"keys\": 2000",
                            "\"delta_capacity\": 500", "\"generation\": 1"}) {
    EXPECT_NE(r.out.find(field), std::string::npos) << field << "\n" << r;
  }
  // Without --kind a static filter rebuilds as static, keeping its parameters.
  r = redis({"rebuild", "ids", base, keyfile("added.txt", 2000, 2100)});
  ASSERT_EQ(r.status, 0) << r;
  EXPECT_NE(r.out.find("2100 distinct, generation 2, static"), std::string::npos) << r;
  EXPECT_NE(r.out.find("delta capacity 500"), std::string::npos) << r;
  r = redis({"query", "ids", "--count"}, lines(0, 2100));
  EXPECT_EQ(r.out, "present=2100 absent=0\n") << r;
  EXPECT_EQ(redis({"expire", "ids", "100"}).status, 0);
  EXPECT_GT(server_->raw({"TTL", "ids:2:3"}).integer(), 0);
  EXPECT_EQ(redis({"drop", "ids"}).status, 0);
  EXPECT_EQ(server_->raw({"EXISTS", "ids:meta", "ids:2:0", "ids:2:3"}).integer(), 0);
}

TEST_F(RedisCliStatic, RefusalsNameTheKindAndUsageErrorsAreExit2) {
  const std::string base = keyfile("base.txt", 0, 100);
  auto r = redis({"rebuild", "s", "--kind", "static", "--fpp", "0.001", base});
  ASSERT_EQ(r.status, 0) << r;
  r = redis({"add", "s", "x"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("is a static filter without a delta: it takes no inserts"),
            std::string::npos)
      << r;
  // A new static filter needs --fpp; an empty input is refused.
  r = redis({"rebuild", "new", "--kind", "static", base});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("needs a target fpp (--fpp P)"), std::string::npos) << r;
  r = redis({"rebuild", "s"}, "");
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("gave no keys"), std::string::npos) << r;
  // Native filters: --kind static is refused, the static options are usage errors.
  ASSERT_EQ(redis({"create", "n", "--capacity", "100", "--fpp", "0.01"}).status, 0);
  r = redis({"rebuild", "n", "--kind", "static", base});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("filter 'n' is a native filter"), std::string::npos) << r;
  r = redis({"rebuild", "n", "--delta-capacity", "10", base});
  EXPECT_EQ(r.status, 2) << r;
  r = redis({"remove", "s", "x"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("a static filter, not a native one"), std::string::npos) << r;
}

TEST_F(RedisCliStatic, PullAndPushAStaticFile) {
  ASSERT_EQ(
      redis({"rebuild", "s", "--kind", "static", "--fpp", "0.01", keyfile("base.txt", 0, 3000)})
          .status,
      0);
  const auto file = (dir_.path() / "s.bloom").string();
  auto r = redis({"pull", "s", file});
  ASSERT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.out, "pulled s to " + file + ": static, 7-bit fingerprints, generation 1\n") << r;
  // The local CLI reads the file: every key present.
  r = run(dir_.path(), {"query", file, "--count"}, lines(0, 3000));
  EXPECT_EQ(r.out, "present=3000 absent=0\n") << r;
  r = redis({"push", file, "copy", "--delta-capacity", "100"});
  ASSERT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.out, "pushed " + file + " to copy: static, 7-bit fingerprints, delta capacity 100\n")
      << r;
  EXPECT_EQ(redis({"add", "copy", "extra"}).status, 0);
  r = redis({"query", "copy", "--count"}, lines(0, 3000) + "extra\n");
  EXPECT_EQ(r.out, "present=3001 absent=0\n") << r;
  // Its delta holds a key now: a static file cannot, so pull refuses.
  r = redis({"pull", "copy", (dir_.path() / "refused.bloom").string()});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("its delta holds keys"), std::string::npos) << r;
}

}  // namespace
