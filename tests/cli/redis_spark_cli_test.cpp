// `bloomkit redis push` of Spark filters and `bloomkit redis --layout spark add|query|info`
// against a real redis-server (label `redis`): the key holds Spark's writeTo bytes exactly and
// answers every probe as Spark did (tests/data/spark, or $BLOOMKIT_SPARK_VECTORS).

#include <memory>

#include "cli_with_redis.hpp"
#include "spark_vectors.hpp"

namespace {

using namespace bloomkit::cli_test;

class RedisSparkCli : public CliWithRedis {};

TEST_F(RedisSparkCli, PushedFilterAnswersAsSpark) {
  for (const char* name :
       {"v1_string_n100_p0.01", "v2_seed1234567_long_n100_p0.01", "v2_seed0_binary_n100_p0.01"}) {
    const spark_vector v = listed_vector(name);
    SCOPED_TRACE(v.name);
    // Spark's file itself, and the file imported from it, make the same string: Spark's bytes.
    const std::string imported = at("imported.bloom");
    ok({"import", v.bin.string(), imported, "--from", "spark", "--key-type", v.item_type});
    for (const std::string& file : {v.bin.string(), imported}) {
      const std::string key = file == imported ? "imported" : "spark";
      auto r = redis({"push", file, key});
      ASSERT_EQ(r.status, 0) << r;
      EXPECT_EQ(r.out, "pushed " + file + " to " + key + ": spark-v" + std::to_string(v.version) +
                           ", " + std::to_string(v.bits) + " bits, " + std::to_string(v.hashes) +
                           " hashes, seed " + std::to_string(v.seed) + "\n");
      EXPECT_EQ(server_->raw({"GET", key}).str(), read_file(v.bin));
    }
    const std::vector<std::string> layout = {"--layout", "spark", "--key-type", v.item_type};
    auto args = layout;
    args.insert(args.end(), {"query", "spark"});
    auto r = redis(args, v.keys);
    ASSERT_EQ(r.status, 0) << r;
    EXPECT_EQ(r.out, v.answers);
    // Adding keys Spark put changes nothing: they are all there.
    args = layout;
    args.insert(args.end(), {"add", "imported"});
    r = redis(args, v.keys.substr(0, v.keys.find('\n') + 1));
    EXPECT_EQ(r.out, "added 0 new of 1 keys\n") << r;
    EXPECT_EQ(server_->raw({"GET", "imported"}).str(), read_file(v.bin));
    args = layout;
    args.insert(args.end(), {"info", "spark"});
    r = redis(args);
    ASSERT_EQ(r.status, 0) << r;
    const auto fields = parse_lines(r.out);
    EXPECT_EQ(fields.at("layout"), "spark");
    EXPECT_EQ(fields.at("bits"), std::to_string(v.bits));
    EXPECT_EQ(fields.at("spark_version"), std::to_string(v.version));
    EXPECT_EQ(fields.at("seed"), std::to_string(v.seed));
    server_->raw({"FLUSHALL"});
  }
}

TEST_F(RedisSparkCli, MissingExistingAndForeignKeysAreErrors) {
  const spark_vector v = listed_vector("v2_seed0_binary_n100_p0.01");
  ASSERT_EQ(redis({"push", v.bin.string(), "f"}).status, 0);
  auto r = redis({"push", v.bin.string(), "f"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("spark filter key 'f' exists already"), std::string::npos) << r;
  r = redis({"--layout", "spark", "query", "nothing", "x"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("spark filter key 'nothing' does not exist"), std::string::npos) << r;
  server_->raw({"SET", "junk", "not a filter at all"});
  r = redis({"--layout", "spark", "query", "junk", "x"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("does not hold a Spark BloomFilter"), std::string::npos) << r;
  // A string cut short under a reader: an error, never an answer.
  server_->raw({"SET", "short", read_file(v.bin).substr(0, 100)});
  r = redis({"--layout", "spark", "query", "short", "x"});
  EXPECT_EQ(r.status, 1) << r;
  EXPECT_NE(r.err.find("100 bytes where its header makes"), std::string::npos) << r;
  r = redis({"--layout", "spark", "--bits", "64", "query", "f", "x"});
  EXPECT_EQ(r.status, 2) << r;
  r = redis({"--key-type", "long", "query", "f", "x"});
  EXPECT_EQ(r.status, 2) << r;
}

}  // namespace
