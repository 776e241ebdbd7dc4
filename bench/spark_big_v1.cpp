// Rebuilds Spark's big V1 vector (tests/data/spark/big_v1_*.json: 2.4e8 items, 2 300 414 016
// bits, past V1's 2^31) from its item rule, and checks it against the manifest: Spark's sizing,
// the puts that changed nothing, the popcount, the SHA-256 and first / last words of Spark's
// 287 MB writeTo bytes, and Spark's answers to the 10^6 put and 10^6 never-put items it records.
// Too slow for the tests (about a minute); interop_spark_test checks the same filter's rules.
//
//   bloomkit_spark_big_v1 [manifest.json]      (default: the source tree's big V1 manifest)

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bloomkit/compat/spark.hpp"
#include "support/spark_vectors.hpp"

namespace {

using namespace bloomkit;
using test::json;

int failures = 0;

void check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  if (!ok) ++failures;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::string word_hex(std::uint64_t w) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(w));
  return text;
}

// The answers to a probe group: how many true, and at which positions.
void check_group(const spark::v1_filter& f, const json& group) {
  const test::spark_items items = test::spark_item_list(group["items"]);
  const std::vector<std::string_view> keys(items.bytes.begin(), items.bytes.end());
  const auto results = std::make_unique<bool[]>(keys.size());
  f.contains_many(keys, {results.get(), keys.size()});
  std::vector<std::uint64_t> trues;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (results[i]) trues.push_back(i);
  }
  bool same = trues.size() == group["true_count"].u64();
  if (group.has("true_indexes")) {
    std::vector<std::uint64_t> expected;
    for (const json& i : group["true_indexes"].items) expected.push_back(i.u64());
    same = same && trues == expected;
  }
  check(same, group["name"].str() + ": " + std::to_string(trues.size()) + " of " +
                  std::to_string(keys.size()) + " true, as Spark answered");
}

}  // namespace

int main(int argc, char** argv) {
  const auto path = argc > 1 ? std::filesystem::path(argv[1])
                             : test::spark_vectors_dir() / "big_v1_string_n240000000_p0.01.json";
  const json m = test::read_json(path);
  const std::uint64_t n = m["expected_num_items"].u64();
  auto f = spark::v1_filter::for_capacity(n, m["fpp"].f64());
  check(f.bits() == m["bit_size"].u64() && f.hashes() == m["num_hash_functions"].u64(),
        "create(V1, n, optimalNumOfBits(n, p)): " + std::to_string(f.bits()) + " bits, k " +
            std::to_string(f.hashes()));

  // The items, a batch at a time: "prefix decimal(i) suffix" for i = start, start + 1, ...
  const json& rule = m["items_put_rule"]["generated"];
  const std::uint64_t start = rule["start"].u64(), count = rule["count"].u64();
  const std::string prefix = rule["prefix"].str(), suffix = rule["suffix"].str();
  const auto t0 = std::chrono::steady_clock::now();
  std::uint64_t fresh = 0;
  std::vector<std::string> batch;
  std::vector<std::string_view> views;
  for (std::uint64_t at = 0; at < count;) {
    batch.clear();
    for (; at < count && batch.size() < (1u << 20); ++at) {
      batch.push_back(prefix + std::to_string(start + at) + suffix);
    }
    views.assign(batch.begin(), batch.end());
    fresh += f.insert_many(views);
  }
  std::printf("put %llu items in %.1f s\n", static_cast<unsigned long long>(count),
              seconds_since(t0));
  check(count - fresh == m["put_returned_false_count"].u64(),
        "puts that changed nothing: " + std::to_string(count - fresh));
  check(f.storage().count() == m["cardinality"].u64(),
        "popcount " + std::to_string(f.storage().count()));

  const auto bytes = spark::write(f);
  const json& s = m["serialized"];
  check(bytes.size() == s["size"].u64() && test::sha256_of(bytes) == s["sha256"].str(),
        "writeTo bytes: " + std::to_string(bytes.size()) + ", SHA-256 " + test::sha256_of(bytes));
  const auto words = f.storage().words();
  bool first = true, last = true;
  for (std::size_t i = 0; i < 8; ++i) {
    first = first && word_hex(words[i]) == s["first_8_words_hex"][i].str();
    last = last && word_hex(words[words.size() - 8 + i]) == s["last_8_words_hex"][i].str();
  }
  check(first && last, "the first and last 8 words");

  for (const json& group : m["probe_groups"].items) check_group(f, group);
  std::printf("estimated FPP (over the 2^31 bits V1 reaches): %.4f%%\n", 100 * f.estimated_fpp());
  std::printf("%s\n", failures == 0 ? "all checks passed" : "CHECKS FAILED");
  return failures == 0 ? 0 : 1;
}
