// End-to-end tests of `bloomkit redis ...` (docs/CLI.md, "Redis"): the real binary against a
// real redis-server (and one 3-master Redis Cluster) started by the fixtures; stdout, stderr and
// the exit status are checked exactly. create, add, query, info, push, pull, rebuild, expire,
// drop, their errors, names in output, and the capacity warning.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "bloomkit/bloom_filter.hpp"
#include "json_check.hpp"
#include "redis_cli_fixture.hpp"

namespace {

using namespace bloomkit::redis_cli_test;

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

TEST_F(RedisCli, AddPrintNewPrintsTheNewKeys) {
  ASSERT_EQ(redis({"create", "urls", "--capacity", "1e5", "--fpp", "0.01"}).status, 0);
  auto r = redis({"add", "urls", "--print-new"}, "a\nb\na\n");
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.out, "a\nb\n") << r;
  EXPECT_EQ(r.err, "added 2 new of 3 keys\n") << r;
  r = redis({"add", "urls", "b", "c", "--print-new"});
  EXPECT_EQ(r.out, "c\n") << r;
  // A peer's key answers per key too (its stdin then takes one connection).
  r = redis({"--layout", "go-zero", "--bits", "65536", "add", "gz", "--print-new"}, "a\nb\na\n");
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.out, "a\nb\n") << r;
  EXPECT_EQ(r.err, "added 2 new of 3 keys\n") << r;
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

}  // namespace
