// Apache Spark's BloomFilter vectors (tests/data/spark, or BLOOMKIT_SPARK_VECTORS): every filter
// decodes, answers every probe as Spark did (false positives included), encodes back to the same
// bytes, and is rebuilt from its items to the same bytes; merges and intersections reproduce
// Spark's; the hashes and probe sequences of the index examples are Spark's; the big V1 filter
// (bits past 2^31, no .bin) is sized and probed by its rules.

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "bloomkit/compat/spark.hpp"
#include "support/build.hpp"
#include "support/errors.hpp"
#include "support/spark_vectors.hpp"

namespace {

using namespace bloomkit;

using bloomkit::test::json;
using bloomkit::test::spark_items;

struct vector_entry {
  std::string name;
  json manifest;
};

// The manifests of one kind ("filter", "merge", "intersect", "big"), each parsed once.
std::vector<const vector_entry*> manifests(const std::string& kind) {
  static const std::vector<vector_entry> all = [] {
    const auto dir = test::spark_vectors_dir();
    const json index = test::read_json(dir / "index.json");
    std::vector<vector_entry> out;
    for (const json& f : index["filters"].items) {
      out.push_back({f["name"].str(), test::read_json(dir / f["manifest"].str())});
    }
    return out;
  }();
  std::vector<const vector_entry*> out;
  for (const auto& e : all) {
    if (e.manifest["kind"].str() == kind) out.push_back(&e);
  }
  return out;
}

std::vector<unsigned char> serialized(const json& s) {
  auto bytes = test::read_bytes(test::spark_vectors_dir() / s["file"].str());
  EXPECT_EQ(bytes.size(), s["size"].u64());
  EXPECT_EQ(test::sha256_of(bytes), s["sha256"].str()) << "the vector file is not its manifest's";
  return bytes;
}

// Every item of `group` answered as Spark did: the count, and which ones where it lists them.
void expect_answers(const spark::any_filter& any, const json& group) {
  SCOPED_TRACE(group["name"].str());
  const spark_items items = test::spark_item_list(group["items"]);
  const std::vector<std::string_view>& keys = items.bytes;
  std::vector<char> answers(keys.size());
  std::visit(
      [&](const auto& f) {
        std::unique_ptr<bool[]> results(new bool[keys.size()]);
        f.contains_many(keys, std::span<bool>(results.get(), keys.size()));
        for (std::size_t i = 0; i < keys.size(); ++i) {
          answers[i] = results[i];
          // putLong's items through the integral overload, strings one at a time (every 16th
          // of the long lists: the same probes, and the tests' time is short).
          if (keys.size() > 5000 && i % 16 != 0) continue;
          const bool one = items.type == "long" ? f.contains(items.longs[i]) : f.contains(keys[i]);
          if (one != results[i]) ADD_FAILURE() << "contains and contains_many differ at " << i;
        }
      },
      any);
  std::vector<std::uint64_t> trues;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (answers[i]) trues.push_back(i);
  }
  EXPECT_EQ(trues.size(), group["true_count"].u64());
  if (group["all_true"].flag) {
    EXPECT_EQ(trues.size(), keys.size());
  }
  if (group.has("true_indexes")) {
    std::vector<std::uint64_t> expected;
    for (const json& i : group["true_indexes"].items) expected.push_back(i.u64());
    EXPECT_EQ(trues, expected);
  }
}

// The header fields, the popcount and the bytes written back.
void expect_fields(const spark::any_filter& any, const json& m,
                   const std::vector<unsigned char>& bytes) {
  EXPECT_EQ(static_cast<int>(spark::version_of(any)), static_cast<int>(m["version"].u64()));
  EXPECT_EQ(spark::seed_of(any), std::stoll(m["seed"].number()));
  std::visit(
      [&](const auto& f) {
        EXPECT_EQ(f.hashes(), m["num_hash_functions"].u64());
        EXPECT_EQ(f.bits(), m["bit_size"].u64());
        EXPECT_EQ(f.storage().count(), m["cardinality"].u64());
      },
      any);
  EXPECT_TRUE(spark::write(any) == bytes) << "the filter does not encode back to its bytes";
}

template <class Filter>
Filter sized_like(const json& m) {
  const std::uint64_t n = m["expected_num_items"].u64();
  const filter_params expected{m["bit_size"].u64(),
                               static_cast<std::uint32_t>(m["num_hash_functions"].u64())};
  const bool by_fpp = !m["fpp"].is_null();
  const filter_params params = by_fpp ? spark::optimal_params(n, m["fpp"].f64())
                                      : spark::params_for_bits(n, m["num_bits_requested"].u64());
  EXPECT_EQ(params, expected) << "Spark's create() sizes it otherwise";
  if constexpr (std::is_same_v<Filter, spark::v2_filter>) {
    const auto seed = static_cast<std::int32_t>(std::stoll(m["seed"].number()));
    return by_fpp ? Filter::for_capacity(n, m["fpp"].f64(), seed)
                  : Filter(params.bits, params.hashes, seed);
  } else {
    return by_fpp ? Filter::for_capacity(n, m["fpp"].f64()) : Filter(params.bits, params.hashes);
  }
}

// The filter of Spark's create() for the manifest, with `items` put in: one at a time (V1,
// counting the puts that changed nothing) or batched (V2).
spark::any_filter built(const json& m, const spark_items& items, std::uint64_t* unchanged) {
  const auto put = [&](auto f) -> spark::any_filter {
    std::uint64_t same = 0;
    if constexpr (std::is_same_v<decltype(f), spark::v1_filter>) {
      for (std::size_t i = 0; i < items.bytes.size(); ++i) {
        const bool fresh =
            items.type == "long" ? f.insert(items.longs[i]) : f.insert(items.bytes[i]);
        same += fresh ? 0 : 1;
      }
    } else {
      same = items.bytes.size() - f.insert_many(items.bytes);
    }
    if (unchanged) *unchanged = same;
    return f;
  };
  if (m["version"].u64() == 1) return put(sized_like<spark::v1_filter>(m));
  return put(sized_like<spark::v2_filter>(m));
}

TEST(SparkVectors, EveryFilterDecodesAnswersAsSparkAndEncodesBack) {
  const auto all = manifests("filter");
  ASSERT_FALSE(all.empty());
  for (const vector_entry* e : all) {
    const auto& [name, m] = *e;
    SCOPED_TRACE(name);
    const auto bytes = serialized(m["serialized"]);
    const spark::any_filter f = spark::read(bytes, name);
    expect_fields(f, m, bytes);
    // Under a sanitizer the filters of 10^6 items are decoded and encoded back but not probed:
    // their 2 * 10^6 probes take the same paths as the smaller filters' (the release build probes
    // them).
    if (test::sanitized_build && m["expected_num_items"].u64() > 100000) continue;
    for (const json& group : m["probe_groups"].items) expect_answers(f, group);
  }
}

// Up to 10^5 items (and Spark SQL's runtime-filter default, sized by bits): the filters of 10^6
// items take the same paths, and the tests' time is short.
TEST(SparkVectors, EveryFilterBuiltFromItsItemsIsSparksBytes) {
  for (const vector_entry* e : manifests("filter")) {
    const auto& [name, m] = *e;
    if (m["expected_num_items"].u64() > 100000 && !m["fpp"].is_null()) continue;
    SCOPED_TRACE(name);
    const json& put_items = m["probe_groups"][0];
    ASSERT_EQ(put_items["name"].str(), "put_items");
    std::uint64_t unchanged = 0;
    const auto f = built(m, test::spark_item_list(put_items["items"]), &unchanged);
    EXPECT_EQ(unchanged, m["put_returned_false_count"].u64());
    EXPECT_EQ(test::sha256_of(spark::write(f)), m["serialized"]["sha256"].str());
  }
}

void expect_combined(const char* kind,
                     void (*combine)(spark::any_filter&, const spark::any_filter&)) {
  const auto all = manifests(kind);
  ASSERT_FALSE(all.empty());
  for (const vector_entry* e : all) {
    const auto& [name, m] = *e;
    SCOPED_TRACE(name);
    std::vector<spark::any_filter> inputs;
    for (const json& input : m["inputs"].items) {
      const auto bytes = serialized(input["serialized"]);
      inputs.push_back(spark::read(bytes, name));
      // Each input is what Spark's create() and puts of its items made.
      const auto again = built(m, test::spark_item_list(input["items_put"]), nullptr);
      EXPECT_TRUE(spark::write(again) == bytes) << "input " << input["role"].str();
    }
    ASSERT_EQ(inputs.size(), 2u);
    combine(inputs[0], inputs[1]);
    const auto bytes = serialized(m["serialized"]);
    expect_fields(inputs[0], m, bytes);
    for (const json& group : m["probe_groups"].items) expect_answers(inputs[0], group);
  }
}

template <bool Merge>
void combine(spark::any_filter& a, const spark::any_filter& b) {
  std::visit(
      [&](auto& x) {
        const auto& y = std::get<std::decay_t<decltype(x)>>(b);
        if constexpr (Merge) {
          x.merge(y);
        } else {
          x.intersect(y);
        }
      },
      a);
}

TEST(SparkVectors, MergesAreSparksMergeInPlace) {
  expect_combined("merge", combine<true>);
}

TEST(SparkVectors, IntersectionsAreSparksIntersectInPlace) {
  expect_combined("intersect", combine<false>);
}

// The bits one put of `item` sets in an empty filter of the manifest's parameters.
std::vector<std::uint64_t> bits_set_by(const std::string& item, const json& m) {
  const auto seed = static_cast<std::int32_t>(std::stoll(m["seed"].number()));
  const auto k = static_cast<std::uint32_t>(m["num_hash_functions"].u64());
  spark::any_filter f = m["version"].u64() == 1
                            ? spark::any_filter(spark::v1_filter(m["bit_size"].u64(), k))
                            : spark::any_filter(spark::v2_filter(m["bit_size"].u64(), k, seed));
  std::vector<std::uint64_t> set;
  std::visit(
      [&](auto& x) {
        x.insert(item);
        const auto words = x.storage().words();
        for (std::size_t w = 0; w < words.size(); ++w) {
          for (std::uint64_t x = words[w]; x != 0; x &= x - 1) {
            set.push_back(64 * w + static_cast<std::uint64_t>(std::countr_zero(x)));
          }
        }
      },
      f);
  return set;
}

// h1, h2, the index sequence, and (for filters small enough to make) the bits one put sets.
void expect_index_examples(const json& m) {
  const auto seed = static_cast<std::int32_t>(std::stoll(m["seed"].number()));
  const std::uint64_t bits = m["bit_size"].u64();
  const auto k = static_cast<std::uint32_t>(m["num_hash_functions"].u64());
  for (const json& e : m["index_examples"].items) {
    std::string item = test::unhex(e["item_hex"].str());
    // A long's item_hex is big-endian; putLong hashes its little-endian bytes.
    if (m["item_type"].str() == "long") std::reverse(item.begin(), item.end());
    SCOPED_TRACE(e["item_hex"].str());
    const spark::hash_pair h = spark::hash_pair_of(item, seed);
    EXPECT_EQ(h.h1, std::stoll(e["h1"].number()));
    EXPECT_EQ(h.h2, std::stoll(e["h2"].number()));
    std::vector<std::uint64_t> sequence, expected, set;
    const auto walk = [&](auto seq) {
      for (std::uint32_t i = 0; i < k; ++i) sequence.push_back(seq.next());
    };
    if (m["version"].u64() == 1) {
      walk(spark::v1_sequence(h, bits));
    } else {
      walk(spark::v2_sequence(h, bits));
    }
    for (const json& i : e["index_sequence"].items) expected.push_back(i.u64());
    EXPECT_EQ(sequence, expected);
    const std::set<std::uint64_t> distinct(sequence.begin(), sequence.end());
    for (const json& i : e["set_bits_sorted"].items) set.push_back(i.u64());
    EXPECT_EQ(std::vector<std::uint64_t>(distinct.begin(), distinct.end()), set);
    if (bits <= (std::uint64_t{1} << 24)) {
      EXPECT_EQ(bits_set_by(item, m), set);
    }
  }
}

TEST(SparkVectors, IndexExamplesAreSparksHashesAndProbes) {
  for (const char* kind : {"filter", "merge", "intersect", "big"}) {
    for (const vector_entry* e : manifests(kind)) {
      const auto& [name, m] = *e;
      SCOPED_TRACE(name);
      if (m.has("index_examples")) expect_index_examples(m);
    }
  }
}

}  // namespace

// The V1 filter of 2.4e8 items whose bits pass 2^31 (its 287 MB .bin is not stored; bench/
// spark_big_v1 rebuilds it and answers its probes): Spark's sizing, its header, and bloomkit's
// FPP figure of it, over the 2^31 bits V1 reaches, against Spark's measured answers.
TEST(SparkVectors, BigV1FilterPastTwoToThe31) {
  const auto all = manifests("big");
  for (const vector_entry* e : all) {
    const auto& [name, m] = *e;
    SCOPED_TRACE(name);
    ASSERT_EQ(m["version"].u64(), 1u);
    const std::uint64_t n = m["expected_num_items"].u64(), bits = m["bit_size"].u64();
    const auto k = static_cast<std::uint32_t>(m["num_hash_functions"].u64());
    ASSERT_GT(bits, spark::v1_reachable_bits);
    EXPECT_EQ(spark::optimal_params(n, m["fpp"].f64()), (filter_params{bits, k}));
    EXPECT_EQ(spark::v1_bits_lost(bits), bits - spark::v1_reachable_bits);
    EXPECT_EQ(m["cardinality_bits_at_or_above_2^31"].u64(), 0u);
    // The header alone: read up to the words, which are missing (nothing allocated for them).
    const std::string header = test::unhex(m["serialized"]["header_hex"].str());
    const std::vector<unsigned char> bytes(header.begin(), header.end());
    const std::string message =
        test::error_of([&] { spark::read(bytes, name); }, errc::corrupt_file);
    EXPECT_NE(message.find(std::to_string(bits / 64) + " words"), std::string::npos) << message;
    // Spark's answers to never-put items give its real FPP; bloomkit's figure from the popcount
    // matches it, where the textbook one over all the bits (the manifest's expected_fpp) does not.
    const json& never = m["probe_groups"][1];
    ASSERT_EQ(never["name"].str(), "never_put");
    const double measured =
        static_cast<double>(never["true_count"].u64()) / static_cast<double>(never["count"].u64());
    const double fill = static_cast<double>(m["cardinality"].u64()) / static_cast<double>(bits);
    const double figure = spark::v1_policy::fpp_at_fill(bits, k, fill);
    EXPECT_NEAR(figure, measured, measured * 0.05);
    EXPECT_GT(std::abs(m["expected_fpp"].f64() - measured), measured * 0.2);
    EXPECT_NEAR(spark::v1_policy::fpp(bits, k, n), measured, measured * 0.05);
  }
}
