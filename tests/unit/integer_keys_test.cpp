// Integer keys (key_type::int64; hash schemes splitmix64-split-block and splitmix64-128,
// docs/FORMAT.md): the documented digests and positions, widening of every integer width, no
// false negative on any path, the FPP at the target, files that remember the scheme, and the
// refusal of keys of the other type.

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <typeinfo>
#include <vector>

#include <gtest/gtest.h>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/compat/guava.hpp"
#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/integer_keys.hpp"
#include "support/golden_reference.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit {
namespace {

namespace ref = golden;

// docs/FORMAT.md's mixer, written from the document: SplitMix64's output function.
std::uint64_t documented_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
constexpr std::uint64_t golden_gamma = 0x9e3779b97f4a7c15ULL;

TEST(IntegerKeys, DigestsAreSplitMix64Outputs) {
  // SplitMix64 seeded with 0 starts 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4 (its published
  // reference outputs).
  EXPECT_EQ(splitmix64_digest(0), 0xe220a8397b1dcdafULL);
  EXPECT_EQ(splitmix64_digest128(0), (digest128{0xe220a8397b1dcdafULL, 0x6e789e6aa1b965f4ULL}));
  std::mt19937_64 rng(7);
  for (int i = 0; i < 1000; ++i) {
    const std::uint64_t x = rng();
    EXPECT_EQ(splitmix64_digest(x), documented_mix(x + golden_gamma));
    EXPECT_EQ(splitmix64_digest128(x),
              (digest128{documented_mix(x + golden_gamma), documented_mix(x + 2 * golden_gamma)}));
  }
}

TEST(IntegerKeys, OneKeySetsTheDocumentedPositions) {
  for (const std::uint64_t x : {std::uint64_t{0}, std::uint64_t{1}, ~std::uint64_t{0},
                                std::uint64_t{0x8000000000000000}, std::uint64_t{123456789}}) {
    auto blocked = blocked_bloom_filter::for_capacity(1000, 0.01, key_type::int64);
    ASSERT_EQ(blocked.hashes(), blocked_hashes);
    blocked.insert_integer(x);
    std::vector<std::uint64_t> set;
    for (std::uint64_t i = 0; i < blocked.bits(); ++i) {
      if (blocked.storage().test(i)) set.push_back(i);
    }
    EXPECT_EQ(set, ref::split_block_positions(documented_mix(x + golden_gamma), blocked.bits()));

    auto classic = bloom_filter::for_capacity(1000, 0.01, key_type::int64);
    auto counting = counting_bloom_filter::for_capacity(1000, 0.01, key_type::int64);
    classic.insert_integer(x);
    counting.insert_integer(x);
    const ref::digest_pair d{documented_mix(x + golden_gamma),
                             documented_mix(x + 2 * golden_gamma)};
    for (auto p : ref::xxh3_128_positions(d, classic.bits(), classic.hashes())) {
      EXPECT_TRUE(classic.storage().test(p));
      EXPECT_GE(counting.counter(p), 1u);
    }
    EXPECT_EQ(counting.to_bloom_filter().storage(), classic.storage());
  }
}

TEST(IntegerKeys, EveryWidthIsWidenedToTheSameKey) {
  EXPECT_EQ(widen_key(std::int8_t{-1}), ~std::uint64_t{0});
  EXPECT_EQ(widen_key(std::int32_t{-1}), widen_key(std::int64_t{-1}));
  EXPECT_EQ(widen_key(std::uint32_t{0xffffffff}), std::uint64_t{0xffffffff});
  EXPECT_EQ(widen_key(std::uint16_t{7}), widen_key(std::int64_t{7}));
  auto f = blocked_bloom_filter::for_capacity(1000, 0.001, key_type::int64);
  EXPECT_TRUE(f.insert(std::int32_t{-1}));
  EXPECT_FALSE(f.insert(std::int64_t{-1}));                           // the same key
  EXPECT_FALSE(f.insert(std::numeric_limits<std::uint64_t>::max()));  // its bits
  EXPECT_TRUE(f.contains(std::int8_t{-1}));
  EXPECT_TRUE(f.insert(std::uint32_t{0xffffffff}));  // 4294967295 is another key than -1
  EXPECT_EQ(f.inserted(), 2u);
}

// Inserts keys of type T by every path and finds each: batched, single, and as uint64.
template <class Filter, class T>
void check_no_false_negative(std::uint64_t capacity, double fpp = 0.01) {
  SCOPED_TRACE(std::string(typeid(T).name()) + " capacity " + std::to_string(capacity));
  std::vector<T> keys;
  std::mt19937_64 rng(capacity);
  for (std::uint64_t i = 0; i < capacity; ++i) keys.push_back(static_cast<T>(rng()));
  keys.push_back(std::numeric_limits<T>::min());
  keys.push_back(std::numeric_limits<T>::max());
  auto batched = Filter::for_capacity(capacity, fpp, key_type::int64);
  auto single = Filter::for_capacity(capacity, fpp, key_type::int64);
  batched.insert_integers(std::span<const T>(keys));
  for (T k : keys) single.insert(k);
  EXPECT_TRUE(batched == single);  // the same cells by either path
  std::unique_ptr<bool[]> found(new bool[keys.size()]);
  EXPECT_EQ(batched.contains_integers(std::span<const T>(keys), {found.get(), keys.size()}),
            keys.size());
  for (T k : keys) {
    ASSERT_TRUE(single.contains(k));
    ASSERT_TRUE(single.contains_integer(widen_key(k)));
  }
}

template <class Filter>
void check_every_width(std::uint64_t capacity) {
  check_no_false_negative<Filter, std::int8_t>(capacity);
  check_no_false_negative<Filter, std::uint8_t>(capacity);
  check_no_false_negative<Filter, std::int16_t>(capacity);
  check_no_false_negative<Filter, std::uint16_t>(capacity);
  check_no_false_negative<Filter, std::int32_t>(capacity);
  check_no_false_negative<Filter, std::uint32_t>(capacity);
  check_no_false_negative<Filter, std::int64_t>(capacity);
  check_no_false_negative<Filter, std::uint64_t>(capacity);
}

TEST(IntegerKeys, NoFalseNegativeForAnyWidthOnAnyPath) {
  // 3000 keys: in cache (plain loops); 200,000 at p = 0.01: past 1 MiB (the pipeline's lag) for
  // the classic and counting filters, and several widened chunks.
  for (std::uint64_t n : {3000u, 200000u}) {
    check_every_width<blocked_bloom_filter>(n);
    check_every_width<bloom_filter>(n);
    check_every_width<counting_bloom_filter>(n);
  }
  // The blocked layouts of lines (sizing.hpp): one line of k = 3 at p = 0.1, two lines at 1e-4.
  check_no_false_negative<blocked_bloom_filter, std::uint64_t>(20000, 0.1);
  check_no_false_negative<blocked_bloom_filter, std::int32_t>(20000, 1e-4);
}

// The false positives of `queries` absent keys against the filter's expected FPP at its keys:
// within 6 standard deviations of the binomial count.
template <class Filter>
void check_fpp(std::uint64_t n, double expected_fpp_of_filter(const Filter&, std::uint64_t)) {
  auto f = Filter::for_capacity(n, 0.01, key_type::int64);
  std::vector<std::uint64_t> keys(n);
  for (std::uint64_t i = 0; i < n; ++i) keys[i] = i;  // sequential keys: the mixer's hard case
  f.insert_integers(std::span<const std::uint64_t>(keys));
  const std::uint64_t queries = 400000;
  std::vector<std::uint64_t> absent(queries);
  for (std::uint64_t i = 0; i < queries; ++i) absent[i] = n + i;
  std::unique_ptr<bool[]> hits(new bool[queries]);
  const double got = static_cast<double>(
      f.contains_integers(std::span<const std::uint64_t>(absent), {hits.get(), queries}));
  const double p = expected_fpp_of_filter(f, n);
  const double mean = p * static_cast<double>(queries);
  const double sd = std::sqrt(mean * (1 - p));
  EXPECT_NEAR(got, mean, 6 * sd + 1) << "n " << n << " expected FPP " << p;
  EXPECT_LE(p, 0.0101);  // the target holds
}

TEST(IntegerKeys, FalsePositiveRateIsTheTargets) {
  for (std::uint64_t n : {1000u, 100000u}) {
    check_fpp<bloom_filter>(n, [](const bloom_filter& f, std::uint64_t keys) {
      return exact_fpp(f.bits(), f.hashes(), keys);
    });
    check_fpp<counting_bloom_filter>(n, [](const counting_bloom_filter& f, std::uint64_t keys) {
      return exact_fpp(f.cells(), f.hashes(), keys);
    });
    check_fpp<blocked_bloom_filter>(n, [](const blocked_bloom_filter& f, std::uint64_t keys) {
      return blocked_fpp(f.bits(), f.hashes(), keys);
    });
  }
}

template <class Filter>
void check_round_trip(hash_scheme scheme) {
  SCOPED_TRACE(to_string(scheme));
  const test::temp_dir dir;
  auto f = Filter::for_capacity(500, 0.01, key_type::int64);
  std::vector<std::int64_t> keys;
  for (std::int64_t i = -250; i < 250; ++i) keys.push_back(i * 1000003);
  f.insert_integers(std::span<const std::int64_t>(keys));
  EXPECT_EQ(f.file_scheme(), scheme);
  save(f, dir / "f.bloom");
  const file_header h = read_header(dir / "f.bloom");
  EXPECT_EQ(h.scheme, scheme);
  EXPECT_EQ(h.keys(), key_type::int64);
  EXPECT_EQ(h.flags, file_flag_int64_keys);
  for (bool mapped : {false, true}) {
    const Filter g = mapped ? map<Filter>(dir / "f.bloom") : load<Filter>(dir / "f.bloom");
    EXPECT_EQ(g.keys(), key_type::int64);
    EXPECT_TRUE(g == f);
    for (auto k : keys) ASSERT_TRUE(g.contains(k));
    EXPECT_THROW(g.contains("7"), error);
    // The registry's door keeps it too.
    const any_filter a = mapped ? map_any(dir / "f.bloom") : load_any(dir / "f.bloom");
    EXPECT_EQ(keys_of(a), key_type::int64);
    std::unique_ptr<bool[]> found(new bool[keys.size()]);
    EXPECT_EQ(contains_integers(a, std::span<const std::int64_t>(keys), {found.get(), keys.size()}),
              keys.size());
  }
  // A string filter's file is unchanged: its scheme, no flag.
  save(Filter::for_capacity(500, 0.01), dir / "s.bloom");
  EXPECT_EQ(read_header(dir / "s.bloom").flags, 0u);
  EXPECT_EQ(read_header(dir / "s.bloom").scheme, Filter::scheme());
}

TEST(IntegerKeys, FilesRememberTheScheme) {
  check_round_trip<bloom_filter>(hash_scheme::splitmix64_128);
  check_round_trip<blocked_bloom_filter>(hash_scheme::splitmix64_split_block);
  check_round_trip<counting_bloom_filter>(hash_scheme::splitmix64_128);
}

template <class Filter>
void check_refusals() {
  auto ints = Filter::for_capacity(100, 0.01, key_type::int64);
  auto strings = Filter::for_capacity(100, 0.01);
  const std::string_view key = "a";
  std::vector<std::string_view> keys{key};
  const std::vector<std::uint64_t> numbers{1};
  bool result[1];
  const auto refused = [](auto op, const char* says) {
    try {
      op();
      ADD_FAILURE() << "not refused";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  const char* takes_ints = "takes integer keys";
  refused([&] { ints.insert(key); }, takes_ints);
  refused([&] { (void)ints.contains(key); }, takes_ints);
  refused([&] { ints.insert_many(keys); }, takes_ints);
  refused([&] { ints.contains_many(keys, result); }, takes_ints);
  if constexpr (Filter::counting) refused([&] { ints.remove(key); }, takes_ints);
  const char* takes_strings = "takes string keys";
  refused([&] { strings.insert_integer(1); }, takes_strings);
  refused([&] { strings.insert_integers(std::span<const std::uint64_t>(numbers)); }, takes_strings);
  refused([&] { strings.contains_integers(std::span<const std::uint64_t>(numbers), result); },
          takes_strings);
  if constexpr (!Filter::counting) {
    refused([&] { strings.insert_integer_concurrent(1); }, takes_strings);
    refused([&] { strings.insert_integers_concurrent(std::span<const std::uint64_t>(numbers)); },
            takes_strings);
  }
  EXPECT_EQ(ints.inserted(), 0u);
  EXPECT_EQ(strings.inserted(), 0u);
  // Their integral overloads keep their meaning: the integer's bytes, a byte-string key.
  EXPECT_TRUE(strings.insert(std::uint64_t{5}));
  EXPECT_TRUE(strings.contains(std::string_view("\5\0\0\0\0\0\0\0", 8)));
  try {
    ints.merge(strings);
    ADD_FAILURE() << "merged";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::incompatible);
    EXPECT_NE(std::string(e.what()).find("key types differ"), std::string::npos) << e.what();
  }
}

TEST(IntegerKeys, KeysOfTheOtherTypeAreRefused) {
  check_refusals<bloom_filter>();
  check_refusals<blocked_bloom_filter>();
  check_refusals<counting_bloom_filter>();
  // The peers' schemes have no integer scheme: they take integers as bytes.
  EXPECT_THROW(guava::mitz_64_filter::for_capacity(100, 0.01, key_type::int64), error);
}

TEST(IntegerKeys, KindsWithoutIntegerKeysRefuseThemAtTheDoor) {
  kind_request r;
  r.initial_capacity = 100;
  r.target_fpp = 0.01;
  r.keys = key_type::int64;
  for (const char* kind : {"scalable", "cuckoo", "static"}) {
    EXPECT_THROW(create_any(kind, r), error) << kind;
  }
  for (const char* kind : {"classic", "blocked", "counting"}) {
    any_filter f = *create_any(kind, r);
    EXPECT_EQ(keys_of(f), key_type::int64) << kind;
    const std::vector<std::uint16_t> keys{1, 2, 3};
    EXPECT_EQ(insert_integers(f, std::span<const std::uint16_t>(keys)), 3u);
  }
  r.keys = key_type::string;
  any_filter chain = *create_any("scalable", r);
  const std::vector<std::uint64_t> keys{1};
  try {
    insert_integers(chain, std::span<const std::uint64_t>(keys));
    ADD_FAILURE() << "not refused";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("scalable filter of string keys"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace bloomkit
