// Every filter kind meets its target false-positive probability at capacity, for small
// capacities too (issue 11, item 6), and a scalable filter meets its compound bound.
//
// The statistics (F filters, Q probes each, the standard error and what the test can tell) are
// in support/fpp_checks.hpp.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/compat/go_zero.hpp"
#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/scalable_bloom_filter.hpp"
#include "support/build.hpp"
#include "support/fpp_checks.hpp"
#include "support/statistical.hpp"

namespace bloomkit {
namespace {

using test::design;
using test::expect_meets;
using test::key_family;
using test::measure;
using test::measurement;
using test::point;

const point points[] = {{0.1, 0.15}, {0.01, 0.15}, {0.001, 0.3}};
const std::uint64_t capacities[] = {1, 2, 3, 5, 10, 20, 50, 100};

// Sanitized builds run 5-20 times slower: they check p = 0.1 and 0.01 (p = 0.001 takes the
// most probes).
std::span<const point> checked_points() {
  return {points, test::sanitized_build ? 2u : 3u};
}

template <class Filter>
void expect_kind_meets_target(const char* kind, std::span<const point> checked = checked_points(),
                              std::uint64_t min_filters = 1000) {
  for (const point& pt : checked) {
    for (const std::uint64_t n : capacities) {
      const auto [filters, each] = design(pt, n, min_filters);
      const Filter empty = Filter::for_capacity(n, pt.p);
      const measurement m = measure(filters, each, [&](std::uint64_t f) {
        Filter filter = empty;
        filter.insert_many(key_family("key-", f, n).views());
        return filter;
      });
      expect_meets(m, pt, std::string(kind) + " n=" + std::to_string(n));
    }
  }
}

TEST(SmallFilterFpp, ClassicMeetsItsTargetAtEveryCapacity) {
  BLOOMKIT_STATISTICAL_TEST();
  expect_kind_meets_target<bloom_filter>("classic");
}

TEST(SmallFilterFpp, BlockedMeetsItsTargetAtEveryCapacity) {
  BLOOMKIT_STATISTICAL_TEST();
  expect_kind_meets_target<blocked_bloom_filter>("blocked");
}

TEST(SmallFilterFpp, CountingMeetsItsTargetAtEveryCapacity) {
  BLOOMKIT_STATISTICAL_TEST();
  expect_kind_meets_target<counting_bloom_filter>("counting");
}

TEST(SmallFilterFpp, GoZeroMeetsItsTargetAtEveryCapacity) {
  BLOOMKIT_STATISTICAL_TEST();
  // 14 murmur3 hashes a key: p = 0.1 and 0.01 only.
  expect_kind_meets_target<go_zero::filter>("go-zero", {points, 2}, 5000);
}

// A scalable filter filled through `stages` sub-filters has a compound FPP of at most
// sum_{i < stages} p (1 - r) r^i < p, whatever its first capacity, growth s and tightening r:
// here s r = 1, the least it accepts (2 and 0.5, 4 and 0.25), and a slow tightening.
TEST(SmallFilterFpp, ScalableMeetsItsCompoundBoundFromSmallFirstCapacities) {
  BLOOMKIT_STATISTICAL_TEST();
  constexpr std::size_t stages = 5;
  for (const point& pt : checked_points()) {
    for (const std::uint64_t first : {1u, 3u, 10u}) {
      for (const auto& [growth, tightening] :
           {std::pair{2u, 0.5}, std::pair{4u, 0.25}, std::pair{2u, 0.9}}) {
        std::uint64_t total = 0;
        for (std::uint64_t i = 0, c = first; i < stages; ++i, c *= growth) total += c;
        const auto [filters, each] = design(pt, total);
        const measurement m = measure(filters, each, [&](std::uint64_t f) {
          scalable_bloom_filter filter(first, pt.p, growth, tightening);
          filter.insert_many(key_family("key-", f, total).views());
          return filter;
        });
        expect_meets(m, pt,
                     "scalable first=" + std::to_string(first) + " growth=" +
                         std::to_string(growth) + " tightening=" + std::to_string(tightening));
      }
    }
  }
}

}  // namespace
}  // namespace bloomkit
