// End-to-end tests of the CLI on Spark's BloomFilter files (tests/data/spark, or the directory
// $BLOOMKIT_SPARK_VECTORS names): import, query on the imported file and on Spark's file itself,
// export back to Spark's bytes, info's V1 warning, and the errors of bad input.

#include <cstdlib>
#include <set>

#include "cli_support.hpp"
#include "support/json.hpp"

namespace {

using namespace bloomkit::cli_test;
using bloomkit::test::json;

fs::path vectors_dir() {
  if (const char* dir = std::getenv("BLOOMKIT_SPARK_VECTORS"); dir != nullptr && *dir != 0) {
    return dir;
  }
  return BLOOMKIT_SPARK_DATA;
}

// A filter of the vectors whose probe groups list every item (the small ones), at FPP 0.01 (the
// other FPPs differ only in k and m: the C++ tests cover them; this keeps the test near 2 s).
struct spark_vector {
  std::string name;
  std::string item_type;  // string, long, binary
  std::uint32_t version = 0;
  std::int64_t seed = 0;
  std::uint64_t bits = 0;
  std::uint32_t hashes = 0;
  fs::path bin;
  std::string keys;     // one key per line, as query takes them for item_type
  std::string answers;  // Spark's answers as query prints them
};

std::vector<spark_vector> listed_vectors() {
  const fs::path dir = vectors_dir();
  const json index = json::parse(read_file(dir / "index.json"));
  std::vector<spark_vector> out;
  for (const json& entry : index["filters"].items) {
    if (entry["fpp"].kind != json::type::number || entry["fpp"].number() != "0.01") continue;
    const json m = json::parse(read_file(dir / entry["manifest"].str()));
    bool listed = true;
    for (const json& g : m["probe_groups"].items) listed = listed && g["items"].has("list");
    if (!listed) continue;
    spark_vector v;
    v.name = m["name"].str();
    v.item_type = m["item_type"].str();
    v.version = static_cast<std::uint32_t>(m["version"].u64());
    v.seed = std::stoll(m["seed"].number());
    v.bits = m["bit_size"].u64();
    v.hashes = static_cast<std::uint32_t>(m["num_hash_functions"].u64());
    v.bin = dir / m["serialized"]["file"].str();
    for (const json& g : m["probe_groups"].items) {
      std::set<std::uint64_t> trues;
      if (g.has("true_indexes")) {
        for (const json& i : g["true_indexes"].items) trues.insert(i.u64());
      }
      const bool all_true = g["all_true"].flag;
      const auto& list = g["items"]["list"].items;
      for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string key =
            list[i].kind == json::type::number ? list[i].number() : list[i].str();
        v.keys += key + "\n";
        v.answers += std::string(all_true || trues.contains(i) ? "1\t" : "0\t") + key + "\n";
      }
    }
    out.push_back(std::move(v));
  }
  return out;
}

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
  expect_error_naming(run({"query", at("l.bloom"), "--key-type", "binary", "00"}), at("l.bloom"));
  // A filter Spark does not compute is not exported as Spark's.
  ok({"create", at("native.bf"), "--capacity", "100", "--fpp", "0.01"});
  const result r = run({"export", at("native.bf"), at("x.bin"), "--to", "spark"});
  expect_error_naming(r, at("native.bf"));
  EXPECT_NE(r.err.find("it needs spark-v1 or spark-v2"), std::string::npos) << r;
  EXPECT_FALSE(exists("x.bin"));
}

}  // namespace
