// End-to-end tests of the CLI on Spark's BloomFilter files (tests/data/spark, or the directory
// $BLOOMKIT_SPARK_VECTORS names): import, query on the imported file and on Spark's file itself,
// export back to Spark's bytes, info's V1 warning, and the errors of bad input.

#include <set>

#include "spark_vectors.hpp"

namespace {

using namespace bloomkit::cli_test;

class SparkCli : public Cli {
 protected:
  static std::vector<std::string> key_type_args(const spark_vector& v) {
    return {"--key-type", v.item_type};
  }
};

TEST_F(SparkCli, ImportAnswersAsSparkAndExportsItsBytes) {
  const std::vector<spark_vector> vectors = listed_vectors();
  ASSERT_GE(vectors.size(), 10u) << vectors_dir();
  std::set<std::string> seen;
  for (const spark_vector& v : vectors) {
    SCOPED_TRACE(v.name);
    seen.insert(v.item_type + " v" + std::to_string(v.version));
    const std::string file = at(v.name + ".bloom");
    std::vector<std::string> import = {"import", v.bin.string(), file, "--from", "spark"};
    for (const std::string& a : key_type_args(v)) import.push_back(a);
    EXPECT_EQ(ok(import), "imported " + v.bin.string() + ": " + std::to_string(v.bits) + " bits, " +
                              std::to_string(v.hashes) + " hashes, spark-v" +
                              std::to_string(v.version) + "\n");
    // Binary keys are hex: query reads them so with --key-type binary (the file records byte
    // keys); string and long keys as the file records them.
    std::vector<std::string> query = {"query", file};
    if (v.item_type == "binary") query.insert(query.end(), {"--key-type", "binary"});
    EXPECT_EQ(ok(query, v.keys), v.answers);
    // Spark's file itself, queried without import.
    std::vector<std::string> direct = {"query", v.bin.string()};
    for (const std::string& a : key_type_args(v)) direct.push_back(a);
    EXPECT_EQ(ok(direct, v.keys), v.answers);
    const std::string back = at(v.name + ".bin");
    EXPECT_EQ(ok({"export", file, back, "--to", "spark"}),
              "exported " + file + ": " + std::to_string(v.bits) + " bits, " +
                  std::to_string(v.hashes) + " hashes, spark\n");
    EXPECT_EQ(read_file(back), read_file(v.bin));
  }
  // Every key type of both versions was covered.
  EXPECT_EQ(seen.size(), 6u);
}

TEST_F(SparkCli, InfoWarnsOfV1AndShowsTheV2Seed) {
  const fs::path dir = vectors_dir();
  const std::string v1 = (dir / "v1_string_n1000_p0.01.bin").string();
  for (const std::string& file : {v1, [&] {
                                    const std::string imported = at("v1.bloom");
                                    ok({"import", v1, imported, "--from", "spark"});
                                    return imported;
                                  }()}) {
    const result r = run({"info", file});
    EXPECT_EQ(r.status, 0) << r;
    EXPECT_EQ(r.err.rfind("bloomkit: warning: '" + file + "' is a Spark V1 filter", 0), 0u) << r;
    EXPECT_NE(r.err.find("past about 10^8 items"), std::string::npos) << r;
    EXPECT_NE(r.err.find("Rebuild it as V2"), std::string::npos) << r;
    EXPECT_EQ(count_char(r.err, '\n'), 1u) << r;
    const auto lines = parse_lines(r.out);
    EXPECT_EQ(lines.at("hash_scheme"), "spark-v1");
    EXPECT_NE(r.err.find("give an FPP of " + lines.at("estimated_fpp")), std::string::npos) << r;
  }
  const std::string v2 = (dir / "v2_seed1234567_string_n1000_p0.01.bin").string();
  const result r = run({"info", v2, "--json"});
  EXPECT_EQ(r.status, 0) << r;
  EXPECT_EQ(r.err, "") << r;
  EXPECT_NE(r.out.find("\"format\": \"spark\""), std::string::npos) << r;
  EXPECT_NE(r.out.find("\"hash_scheme\": \"spark-v2\""), std::string::npos) << r;
  EXPECT_NE(r.out.find("\"seed\": \"1234567\""), std::string::npos) << r;
}

TEST_F(SparkCli, BadInputIsAClearError) {
  const fs::path dir = vectors_dir();
  const std::string good = read_file(dir / "v2_seed0_binary_n100_p0.01.bin");
  write("short.bin", good.substr(0, good.size() - 3));
  expect_error_naming(run({"import", at("short.bin"), at("out.bloom"), "--from", "spark"}),
                      at("short.bin"));
  EXPECT_FALSE(exists("out.bloom"));
  expect_error_naming(run({"query", at("short.bin"), "00"}), at("short.bin"));
  write("v3.bin", std::string("\0\0\0\3", 4) + good.substr(4));
  expect_error_naming(run({"import", at("v3.bin"), at("out.bloom"), "--from", "spark"}),
                      at("v3.bin"));
  // Hex keys: an odd count of digits, a non-hex character.
  for (const char* key : {"abc", "0g"}) {
    const result r = run(
        {"query", (dir / "v2_seed0_binary_n100_p0.01.bin").string(), "--key-type", "binary", key});
    EXPECT_EQ(r.status, 1) << r;
    EXPECT_NE(r.err.find(std::string("key '") + key + "' is not hex"), std::string::npos) << r;
  }
  // A key type the file's header contradicts.
  ok({"import", (dir / "v1_long_n100_p0.01.bin").string(), at("l.bloom"), "--from", "spark",
      "--key-type", "long"});
  const std::string l = at("l.bloom");
  expect_usage_error(run({"query", l, "--key-type", "binary", "00"}),
                     "--key-type binary: '" + l + "' holds integer (long) keys", "query");
  // A filter Spark does not compute is not exported as Spark's.
  ok({"create", at("native.bf"), "--capacity", "100", "--fpp", "0.01"});
  const result r = run({"export", at("native.bf"), at("x.bin"), "--to", "spark"});
  expect_error_naming(r, at("native.bf"));
  EXPECT_NE(r.err.find("it needs spark-v1 or spark-v2"), std::string::npos) << r;
  EXPECT_FALSE(exists("x.bin"));
}

}  // namespace
