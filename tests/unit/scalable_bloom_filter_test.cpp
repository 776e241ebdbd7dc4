#include "bloomkit/scalable_bloom_filter.hpp"
#include "bloomkit/detail/filter_access.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "support/build.hpp"
#include "support/keys.hpp"
#include "support/statistical.hpp"

namespace bloomkit {
namespace {

using test::make_keys;
using test::views;

void expect_all_present(const scalable_bloom_filter& f, const std::vector<std::string>& keys) {
  for (const auto& k : keys) ASSERT_TRUE(f.contains(k)) << k;
  const auto v = views(keys);
  auto results = std::make_unique<bool[]>(v.size());
  EXPECT_EQ(f.contains_many(v, {results.get(), v.size()}), v.size());
  for (std::size_t i = 0; i < v.size(); ++i) ASSERT_TRUE(results[i]) << v[i];
}

// Runs fn, expects a bloomkit::error of `code` whose message contains every one of `parts`.
void expect_error(errc code, const std::vector<std::string>& parts,
                  const std::function<void()>& fn) {
  try {
    fn();
    ADD_FAILURE() << "no error";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    for (const auto& part : parts) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  }
}

TEST(ScalableBloomFilter, SubFiltersFollowTheChainFormula) {
  for (const scalable_params params :
       {scalable_params{1000, 0.01}, scalable_params{777, 0.001, 4, 0.8},
        scalable_params{50, 0.2, 1, 0.3}}) {
    double sum = 0;
    for (std::size_t i = 0; i < 8; ++i) {
      const filter_config c = scalable_bloom_filter::sub_filter_config(params, i);
      EXPECT_EQ(c.capacity,
                params.initial_capacity * static_cast<std::uint64_t>(std::pow(params.growth, i)));
      EXPECT_DOUBLE_EQ(c.target_fpp, params.target_fpp * (1 - params.tightening) *
                                         std::pow(params.tightening, static_cast<double>(i)));
      // Exact sizing: the fewest bits whose exact FPP at capacity is within the target (a few
      // percent above the textbook size for large sub-filters, more for small ones).
      EXPECT_EQ(c.cells, exact_params(c.capacity, c.target_fpp).bits);
      EXPECT_LE(exact_fpp(c.cells, c.hashes, c.capacity), c.target_fpp);
      EXPECT_GT(exact_fpp(c.cells - 1, c.hashes, c.capacity), c.target_fpp);  // smallest m
      EXPECT_GE(c.cells, optimal_bits(c.capacity, c.target_fpp));
      sum += c.target_fpp;
    }
    EXPECT_LT(sum, params.target_fpp);
  }
}

TEST(ScalableBloomFilter, NoFalseNegativesUpTo100TimesTheInitialCapacity) {
  scalable_bloom_filter f(1000, 0.01);
  const auto single = make_keys(50'000, 1);
  const auto batched = make_keys(50'000, 2);
  for (const auto& k : single) f.insert(k);
  f.insert_many(views(batched));
  expect_all_present(f, single);
  expect_all_present(f, batched);
  EXPECT_EQ(f.sub_filter_count(), 7u);  // capacities 1000 + 2000 + ... + 64000 >= 100000
  EXPECT_EQ(f.capacity(), 127'000u);
  EXPECT_LE(f.inserted(), 100'000u);
  EXPECT_GE(f.inserted(), 100'000u - 2000u);  // keys lost to false positives on insert
  EXPECT_NEAR(f.estimated_count(), static_cast<double>(f.inserted()), f.inserted() * 0.03);
  // Slow tightening (r = 0.9).
  scalable_bloom_filter slow(500, 0.05, 2, 0.9);
  const auto keys = make_keys(20'000, 3);
  slow.insert_many(views(keys));
  expect_all_present(slow, keys);
  EXPECT_EQ(slow.sub_filter_count(), 6u);  // 500 + 1000 + ... + 8000 < 20000 <= ... + 16000
}

// With growth s and tightening r, sub-filter i must hold p (1 - r) r^i at n0 s^i keys, and the
// native probes' n/m^2 floor makes its bits per key at least sqrt(1 / (n_i p_i)): bounded only
// when s r >= 1. Other combinations are refused up front, except linear growth (s = 1,
// RedisBloom's EXPANSION 1), whose cost per link grows instead (LinearGrowthKeepsTheBound).
TEST(ScalableBloomFilter, GrowthThatCannotHoldTheBoundIsRefused) {
  for (const auto& [s, r] : {std::pair{2u, 0.4}, std::pair{4u, 0.2}, std::pair{3u, 0.3}}) {
    expect_error(errc::invalid_argument, {"growth " + std::to_string(s), "tightening", "bound"},
                 [&] { scalable_bloom_filter(10, 0.01, s, r); });
  }
  for (const auto& [s, r] : {std::pair{2u, 0.5}, std::pair{2u, 0.9}, std::pair{4u, 0.25},
                             std::pair{3u, 0.4}, std::pair{1u, 0.5}, std::pair{1u, 0.99}}) {
    EXPECT_NO_THROW(scalable_bloom_filter(10, 0.01, s, r)) << s << " " << r;
  }
  // A linear chain as an older bloomkit wrote it (the textbook-sized sub-filters of
  // (10, 0.01, 1)) loads, and now grows with exactly sized sub-filters.
  const scalable_params linear{10, 0.01, 1, 0.5};
  std::vector<bloom_filter> subs;
  const auto keys = make_keys(20, 50);
  for (std::size_t i = 0; i < 2; ++i) {
    const filter_config target = scalable_bloom_filter::sub_filter_target(linear, i);
    std::uint64_t m = optimal_bits(target.capacity, target.target_fpp);
    const std::uint32_t k = optimal_hashes(m, target.capacity);
    while (expected_fpp(m, k, target.capacity) > target.target_fpp) ++m;  // as it was sized
    auto sub = detail::filter_access::make<bloom_filter>(
        filter_config{m, k, target.capacity, target.target_fpp}, bit_array(m), 0);
    for (std::size_t k = 10 * i; k < 10 * i + 10; ++k) sub.insert(keys[k]);
    subs.push_back(sub);
  }
  auto old = detail::filter_access::make_chain<scalable_bloom_filter>(linear, subs);
  expect_all_present(old, keys);
  EXPECT_FALSE(old.insert(keys[3]));
  EXPECT_TRUE(old.insert("new key"));
  EXPECT_EQ(old.sub_filter_count(), 3u);
  expect_all_present(old, keys);
}

// Linear growth keeps every sub-filter at n0 keys and halves its target per link (r = 0.5, as
// RedisBloom's EXPANSION 1): the compound FPP measured after 12 full links stays within the
// target; bits per link grow, and hashes too until the floor.
TEST(ScalableBloomFilter, LinearGrowthKeepsTheBound) {
  const double p = 0.01;
  scalable_bloom_filter f(200, p, 1);
  const auto keys = make_keys(2400, 61);
  for (const auto& key : keys) f.insert(key);
  expect_all_present(f, keys);
  ASSERT_GE(f.sub_filter_count(), 12u);
  for (std::size_t i = 0; i < f.sub_filter_count(); ++i) {
    EXPECT_EQ(f.sub_filters()[i].capacity(), 200u);
    EXPECT_DOUBLE_EQ(f.sub_filters()[i].target_fpp(), p / std::pow(2.0, double(i + 1)));
    if (i > 0) {
      EXPECT_GT(f.sub_filters()[i].bits(), f.sub_filters()[i - 1].bits()) << i;
      // Past the probes' floor (about the 8th link here) more bits need fewer hashes.
      if (i < 6) {
        EXPECT_GE(f.sub_filters()[i].hashes(), f.sub_filters()[i - 1].hashes()) << i;
      }
    }
  }
  EXPECT_GT(f.sub_filters()[5].hashes(), f.sub_filters()[0].hashes());
  const std::size_t absent = test::sanitized_build ? 40'000 : 400'000;
  const auto misses = make_keys(absent, 62);
  std::size_t positives = 0;
  for (const auto& key : misses) positives += f.contains(key);
  const double sigma = std::sqrt(p * (1 - p) / static_cast<double>(absent));
  EXPECT_LE(static_cast<double>(positives) / static_cast<double>(absent), p + 5 * sigma);
}

// The compound FPP measured on never-inserted keys at 100x the initial capacity stays within
// a statistical bound (5 sigma of a binomial count) of the target.
TEST(ScalableBloomFilter, CompoundFppStaysWithinTargetAt100TimesInitialCapacity) {
  BLOOMKIT_STATISTICAL_TEST();
  std::uint64_t set = 100;
  const std::uint64_t shrink = test::sanitized_build ? 5 : 1;
  const std::uint64_t n0 = 1000 / shrink;
  for (const scalable_params params :
       {scalable_params{n0, 0.1}, scalable_params{n0, 0.01}, scalable_params{n0, 0.001},
        scalable_params{n0, 0.01, 4, 0.8}, scalable_params{2 * n0, 0.02, 3, 0.4}}) {
    scalable_bloom_filter f(params);
    // 100 times the initial capacity.
    const std::uint64_t n = params.initial_capacity * 100;
    f.insert_many(views(make_keys(n, ++set)));
    const double p = params.target_fpp;
    const std::size_t queries = (p >= 0.01 ? 200'000 : 500'000) / shrink;
    const auto absent = make_keys(queries, ++set);
    auto results = std::make_unique<bool[]>(queries);
    const double measured =
        static_cast<double>(f.contains_many(views(absent), {results.get(), queries})) / queries;
    const double sigma = std::sqrt(p * (1 - p) / queries);
    EXPECT_LE(measured, p + 5 * sigma) << "p=" << p << " s=" << params.growth;
    EXPECT_LE(f.estimated_fpp(), p);
    EXPECT_NEAR(measured, f.estimated_fpp(), 5 * sigma + 0.1 * f.estimated_fpp());
    std::printf("p=%g s=%u r=%g keys=%llu sub-filters=%zu measured=%.5f estimated=%.5f\n", p,
                params.growth, params.tightening, static_cast<unsigned long long>(n),
                f.sub_filter_count(), measured, f.estimated_fpp());
  }
}

TEST(ScalableBloomFilter, InsertReportsWhetherAdded) {
  scalable_bloom_filter f(10, 0.01);
  EXPECT_TRUE(f.insert("a"));
  EXPECT_FALSE(f.insert("a"));
  EXPECT_EQ(f.inserted(), 1u);
  for (int i = 0; i < 100; ++i) f.insert(i);
  EXPECT_FALSE(f.insert(5));  // in an older sub-filter by now
  const char le[] = {7, 0, 0, 0};
  EXPECT_TRUE(f.contains(std::string_view(le, 4)));
  EXPECT_GT(f.sub_filter_count(), 1u);
}

// insert_many gives exactly the filter (and count) of a loop of insert(), including repeats
// within a batch and batches that span several growths.
TEST(ScalableBloomFilter, BatchedAndSingleKeyPathsAgree) {
  for (std::uint32_t growth : {2u, 3u, 4u}) {
    auto keys = make_keys(6000, 10 + growth);
    const auto again = make_keys(2000, 10 + growth);  // repeats of the first 2000
    keys.insert(keys.begin() + 3000, again.begin(), again.end());
    scalable_bloom_filter single(100, 0.01, growth);
    scalable_bloom_filter batched(100, 0.01, growth);
    std::size_t added = 0;
    for (const auto& k : keys) added += single.insert(k);
    const auto v = views(keys);
    std::size_t batched_added = 0;
    for (std::size_t at = 0; at < v.size(); at += 2500) {
      batched_added +=
          batched.insert_many(std::span(v).subspan(at, std::min<std::size_t>(2500, v.size() - at)));
    }
    EXPECT_EQ(batched_added, added);
    EXPECT_EQ(batched.inserted(), single.inserted());
    EXPECT_EQ(batched, single);
    const auto probe = make_keys(5000, 20 + growth);
    auto results = std::make_unique<bool[]>(probe.size());
    std::size_t present = 0;
    for (const auto& k : probe) present += single.contains(k);
    EXPECT_EQ(batched.contains_many(views(probe), {results.get(), probe.size()}), present);
    for (std::size_t i = 0; i < probe.size(); ++i) ASSERT_EQ(results[i], single.contains(probe[i]));
  }
  scalable_bloom_filter f(10, 0.1);
  const std::vector<std::string_view> two = {"a", "b"};
  bool one[1];
  EXPECT_THROW(f.contains_many(two, one), error);
}

TEST(ScalableBloomFilter, MemoryCeilingStopsGrowthAndLeavesAUsableFilter) {
  const scalable_params unlimited{1000, 0.01};
  std::uint64_t ceiling = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    ceiling += bytes_for_bits(scalable_bloom_filter::sub_filter_config(unlimited, i).cells);
  }
  const std::uint64_t fourth =
      bytes_for_bits(scalable_bloom_filter::sub_filter_config(unlimited, 3).cells);
  scalable_bloom_filter f(1000, 0.01, 2, 0.5, ceiling);
  const auto keys = make_keys(20'000, 31);
  std::size_t accepted = 0;
  for (; accepted < keys.size(); ++accepted) {
    if (f.sub_filter_count() == 3 && f.inserted() == f.capacity() && !f.contains(keys[accepted])) {
      break;
    }
    f.insert(keys[accepted]);
  }
  ASSERT_LT(accepted, keys.size());
  EXPECT_EQ(f.byte_size(), ceiling);
  const auto before = f;
  expect_error(errc::too_large,
               {"memory ceiling of " + std::to_string(ceiling) + " bytes",
                "needs " + std::to_string(fourth) + " bytes", "sub-filter 3"},
               [&] { f.insert(keys[accepted]); });
  EXPECT_EQ(f, before);
  EXPECT_EQ(f.inserted(), before.inserted());
  EXPECT_EQ(f.sub_filter_count(), 3u);
  // Still answers lookups, and inserts of keys it holds.
  const std::vector<std::string> held(keys.begin(),
                                      keys.begin() + static_cast<std::ptrdiff_t>(accepted));
  expect_all_present(f, held);
  EXPECT_FALSE(f.insert(held.front()));
  EXPECT_EQ(f.insert_many(views(held)), 0u);
  EXPECT_THROW(f.insert_many(views(make_keys(10, 32))), error);
  EXPECT_EQ(f.sub_filter_count(), 3u);
  // A ceiling below the first sub-filter is refused up front.
  expect_error(errc::too_large, {"memory ceiling of 100 bytes", "sub-filter 0"},
               [] { scalable_bloom_filter(1000, 0.01, 2, 0.5, 100); });
}

TEST(ScalableBloomFilter, ParametersAreValidatedWithClearMessages) {
  expect_error(errc::invalid_argument, {"initial capacity"},
               [] { scalable_bloom_filter(0, 0.01); });
  for (double p : {0.0, 1.0, -0.5, std::nan("")}) {
    expect_error(errc::invalid_argument, {"target fpp"}, [&] { scalable_bloom_filter(10, p); });
  }
  for (std::uint32_t s : {0u, 32769u}) {
    expect_error(errc::invalid_argument, {"growth factor", std::to_string(s)},
                 [&] { scalable_bloom_filter(10, 0.01, s); });
  }
  for (double r : {0.0, 1.0, 1.5, std::nan("")}) {
    expect_error(errc::invalid_argument, {"tightening ratio"},
                 [&] { scalable_bloom_filter(10, 0.01, 2, r); });
  }
  // A chain cannot grow past its limits; each is a clear too_large.
  const scalable_params wide{1'000'000, 0.01, 1024, 0.5};
  expect_error(errc::too_large, {"sub-filter 7", "2^63"},
               [&] { scalable_bloom_filter::sub_filter_config(wide, 7); });
  expect_error(errc::too_large, {"sub-filter 4", "bits"},
               [&] { scalable_bloom_filter::sub_filter_config(wide, 4); });
  expect_error(errc::too_large, {"at most 256"}, [] {
    scalable_bloom_filter::sub_filter_config({1, 0.5, 1, 0.5}, 256);
  });
}

TEST(ScalableBloomFilter, FromSubFiltersAcceptsOnlyTheChain) {
  scalable_bloom_filter f(100, 0.01);
  f.insert_many(views(make_keys(500, 41)));
  ASSERT_EQ(f.sub_filter_count(), 3u);
  std::vector<bloom_filter> subs(f.sub_filters().begin(), f.sub_filters().end());
  auto chain = [](const scalable_params& params, std::vector<bloom_filter> sub_filters) {
    return detail::filter_access::make_chain<scalable_bloom_filter>(params, std::move(sub_filters));
  };
  EXPECT_EQ(chain(f.params(), subs), f);
  auto other = f.params();
  other.growth = 3;
  expect_error(errc::invalid_argument, {"sub-filter 1", "capacity"}, [&] { chain(other, subs); });
  auto missing_middle = subs;
  missing_middle.erase(missing_middle.begin() + 1);
  EXPECT_THROW(chain(f.params(), missing_middle), error);
  auto half_full = subs;
  half_full[0] =
      detail::filter_access::make<bloom_filter>(subs[0].config(), bit_array(subs[0].bits()), 50);
  expect_error(errc::invalid_argument, {"sub-filter 0", "full"},
               [&] { chain(f.params(), half_full); });
  expect_error(errc::invalid_argument, {"1..256"}, [&] { chain(f.params(), {}); });
}

TEST(ScalableBloomFilter, MergeIsUnsupported) {
  scalable_bloom_filter a(100, 0.01);
  const scalable_bloom_filter b(100, 0.01);
  expect_error(errc::unsupported, {"cannot merge scalable filters"}, [&] { a.merge(b); });
}

TEST(ScalableBloomFilter, ClearAndAccessors) {
  scalable_bloom_filter f(100, 0.05, 3, 0.7, 1 << 20);
  EXPECT_EQ(f.initial_capacity(), 100u);
  EXPECT_EQ(f.target_fpp(), 0.05);
  EXPECT_EQ(f.growth(), 3u);
  EXPECT_EQ(f.tightening(), 0.7);
  EXPECT_EQ(f.memory_ceiling(), 1u << 20);
  EXPECT_EQ(f.scheme(), hash_scheme::xxh3_128);
  EXPECT_EQ(f.estimated_fpp(), 0.0);
  f.insert_many(views(make_keys(1000, 51)));
  EXPECT_EQ(f.capacity(), 100u + 300u + 900u);
  std::uint64_t bits = 0;
  std::size_t bytes = 0;
  for (const auto& sub : f.sub_filters()) {
    bits += sub.bits();
    bytes += sub.byte_size();
  }
  EXPECT_EQ(f.cells(), bits);
  EXPECT_EQ(f.byte_size(), bytes);
  EXPECT_GT(f.fill_ratio(), 0.0);
  const auto copy = f;
  f.clear();
  EXPECT_EQ(f.sub_filter_count(), 1u);
  EXPECT_EQ(f.inserted(), 0u);
  EXPECT_EQ(f, scalable_bloom_filter(100, 0.05, 3, 0.7, 1 << 20));
  EXPECT_NE(f, copy);
  expect_all_present(copy, make_keys(1000, 51));
}

}  // namespace
}  // namespace bloomkit

namespace bloomkit {
namespace {

// The scalable composition over blocked sub-filters: a configuration, the same code.
TEST(ScalableBlockedFilter, GrowsKeepsEveryKeyAndItsBound) {
  scalable_blocked_bloom_filter f(1000, 0.01);
  const auto keys = test::make_keys(20'000, 51);
  const auto v = test::views(keys);
  std::size_t added = 0;
  for (std::size_t i = 0; i < 5000; ++i) added += f.insert(keys[i]);
  added += f.insert_many(std::span(v).subspan(5000));
  EXPECT_EQ(added, f.inserted());
  EXPECT_GE(f.sub_filter_count(), 4u);
  for (const auto& sub : f.sub_filters()) {
    // Each link's layout is the one its n and p get (sizing.hpp's blocked_params).
    EXPECT_EQ(blocked_params(sub.capacity(), sub.target_fpp()),
              (filter_params{sub.cells(), sub.hashes()}));
    EXPECT_LE(sub.inserted(), sub.capacity());
  }
  auto results = std::make_unique<bool[]>(keys.size());
  EXPECT_EQ(f.contains_many(test::views(keys), {results.get(), keys.size()}), keys.size());
  for (const auto& k : keys) ASSERT_TRUE(f.contains(k));
  EXPECT_LE(f.estimated_fpp(), 0.01);
  const auto strangers = test::make_keys(200'000, 52);
  std::size_t false_positives = 0;
  for (const auto& k : strangers) false_positives += f.contains(k);
  EXPECT_LE(static_cast<double>(false_positives) / static_cast<double>(strangers.size()), 0.012);
  EXPECT_THROW(f.merge(f), error);
  EXPECT_THROW(f.intersect(f), error);
}

}  // namespace
}  // namespace bloomkit
