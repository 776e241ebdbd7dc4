#pragma once
// The Spark vectors (tests/data/spark, or the directory $BLOOMKIT_SPARK_VECTORS names) as the
// CLI tests feed them: the small filters' keys, one per line as `query --key-type` reads them,
// and Spark's answers as `query` prints them (spark_cli_test, redis_spark_cli_test).

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "support/json.hpp"

#ifndef BLOOMKIT_SPARK_DATA
#error "BLOOMKIT_SPARK_DATA must be the path of tests/data/spark"
#endif

namespace bloomkit::cli_test {

using bloomkit::test::json;

inline fs::path vectors_dir() {
  if (const char* dir = std::getenv("BLOOMKIT_SPARK_VECTORS"); dir != nullptr && *dir != 0) {
    return dir;
  }
  return BLOOMKIT_SPARK_DATA;
}

// The vectors' small filters at FPP 0.01, whose probe groups list every item.
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

inline std::vector<spark_vector> listed_vectors() {
  const fs::path dir = vectors_dir();
  const json index = json::parse(read_file(dir / "index.json"));
  std::vector<spark_vector> out;
  for (const json& entry : index["filters"].items) {
    // n = 100 (and the merges and intersections, of 1000): the larger filters differ in m and
    // k only, which the C++ tests cover; this keeps the CLI test near 2 s.
    const bool combined = entry["kind"].str() != "filter";
    if (entry["fpp"].kind != json::type::number || entry["fpp"].number() != "0.01" ||
        (!combined && entry["expected_num_items"].u64() != 100)) {
      continue;
    }
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

// The vector named `name` (listed_vectors).
inline spark_vector listed_vector(const std::string& name) {
  for (spark_vector& v : listed_vectors()) {
    if (v.name == name) return v;
  }
  ADD_FAILURE() << "no Spark vector " << name << " in " << vectors_dir();
  return {};
}

}  // namespace bloomkit::cli_test
