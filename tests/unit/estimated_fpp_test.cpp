// estimated_fpp() follows the bits, not the count of inserts (issue 11, item 7): a filter past
// its capacity reports the rate it answers with, and a saturated one (every bit set, "present" to
// everything) reports 1. Before, the figure came from inserted(), which stops growing as a
// filter saturates (an insert that sets no new bit does not count): a full filter said 0.59.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/compat/go_zero.hpp"
#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/scalable_bloom_filter.hpp"
#include "support/keys.hpp"
#include "support/statistical.hpp"

namespace bloomkit {
namespace {

using test::make_keys;
using test::views;

template <class Filter>
double measured_fpp(const Filter& f, std::size_t queries, std::uint64_t set) {
  const auto strangers = make_keys(queries, set);
  auto answers = std::make_unique<bool[]>(queries);
  return static_cast<double>(f.contains_many(views(strangers), {answers.get(), queries})) /
         static_cast<double>(queries);
}

// Filled to `times` its capacity, a filter's estimate is within sampling error (5 sigma) and 3%
// of the rate measured on 20000 strangers.
template <class Filter>
void expect_estimate_matches(Filter f, double times, const char* what) {
  const auto n = static_cast<std::size_t>(static_cast<double>(f.capacity()) * times);
  f.insert_many(views(make_keys(n, 1)));
  const double measured = measured_fpp(f, 20000, 2);
  const double sigma = std::sqrt(measured * (1 - measured) / 20000);
  EXPECT_NEAR(f.estimated_fpp(), measured, 5 * sigma + 0.03 * measured)
      << what << " at " << times << "x capacity, fill " << f.fill_ratio();
}

TEST(EstimatedFpp, SaturatedFiltersReportOne) {
  auto classic = bloom_filter::for_capacity(100, 0.01);
  auto blocked = blocked_bloom_filter::for_capacity(100, 0.01);
  auto counting = counting_bloom_filter::for_capacity(100, 0.01);
  auto go = go_zero::filter::for_capacity(100, 0.01);
  const auto keys = make_keys(20000, 3);
  classic.insert_many(views(keys));
  blocked.insert_many(views(keys));
  counting.insert_many(views(keys));
  go.insert_many(views(keys));
  for (const auto& [fill, fpp, name] :
       {std::tuple{classic.fill_ratio(), classic.estimated_fpp(), "classic"},
        std::tuple{blocked.fill_ratio(), blocked.estimated_fpp(), "blocked"},
        std::tuple{counting.fill_ratio(), counting.estimated_fpp(), "counting"},
        std::tuple{go.fill_ratio(), go.estimated_fpp(), "go-zero"}}) {
    EXPECT_EQ(fill, 1.0) << name;
    EXPECT_EQ(fpp, 1.0) << name;
  }
  EXPECT_EQ(measured_fpp(classic, 1000, 4), 1.0);
}

TEST(EstimatedFpp, FollowsTheBitsAtAndPastCapacity) {
  BLOOMKIT_STATISTICAL_TEST();
  for (const double times : {1.0, 2.0, 4.0}) {
    expect_estimate_matches(bloom_filter::for_capacity(5000, 0.01), times, "classic");
    expect_estimate_matches(blocked_bloom_filter::for_capacity(5000, 0.01), times, "blocked");
    expect_estimate_matches(counting_bloom_filter::for_capacity(5000, 0.01), times, "counting");
  }
  // Small filters too, where the k probes of a key can share bits.
  expect_estimate_matches(bloom_filter::for_capacity(20, 0.01), 3.0, "small classic");
}

TEST(EstimatedFpp, CountingFilterEstimateFallsWithRemoves) {
  auto f = counting_bloom_filter::for_capacity(1000, 0.01);
  const auto keys = make_keys(4000, 5);
  f.insert_many(views(keys));
  const double full = f.estimated_fpp();
  for (std::size_t i = 0; i < 3000; ++i) ASSERT_TRUE(f.remove(keys[i]));
  EXPECT_LT(f.estimated_fpp(), full / 10);
  EXPECT_LE(f.estimated_fpp(), 0.02);
}

TEST(EstimatedFpp, ScalableIsTheCompoundOfItsSubFilters) {
  scalable_bloom_filter f(1000, 0.01);
  f.insert_many(views(make_keys(20000, 6)));
  double all_negative = 1;
  for (const auto& s : f.sub_filters()) all_negative *= 1 - s.estimated_fpp();
  EXPECT_DOUBLE_EQ(f.estimated_fpp(), 1 - all_negative);
  EXPECT_LE(f.estimated_fpp(), 0.01);
  const double measured = measured_fpp(f, 50000, 7);
  EXPECT_NEAR(f.estimated_fpp(), measured, 5 * std::sqrt(measured / 50000) + 0.05 * measured);
}

}  // namespace
}  // namespace bloomkit
