#include "bloomkit/sizing.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "bloomkit/error.hpp"
#include "support/errors.hpp"

namespace bloomkit {
namespace {

using test::code_of;

std::string message_of(auto&& fn) {
  const auto e = test::thrown_by(fn);
  return e ? e->what() : "";
}

TEST(Sizing, TextbookValues) {
  // n = 10^6, p = 1%: m = 9,585,059 bits (9.585 bits/key), k = 7.
  const auto params = optimal_params(1'000'000, 0.01);
  EXPECT_EQ(params.bits, 9'585'059u);
  EXPECT_EQ(params.hashes, 7u);
  // p = 0.1%: 14.38 bits/key, k = 10.
  const auto tight = optimal_params(1'000'000, 0.001);
  EXPECT_EQ(tight.bits, 14'377'588u);
  EXPECT_EQ(tight.hashes, 10u);
}

TEST(Sizing, ExpectedFppOfOptimalSizingIsNearTarget) {
  for (double p : {0.5, 0.1, 0.01, 0.001, 1e-6}) {
    for (std::uint64_t n : {100u, 10'000u, 1'000'000u}) {
      const auto params = optimal_params(n, p);
      const double fpp = expected_fpp(params.bits, params.hashes, n);
      // Rounding k to an integer costs a little; never more than 10% of p.
      EXPECT_LE(fpp, p * 1.1) << "n=" << n << " p=" << p;
      EXPECT_GE(fpp, p * 0.8) << "n=" << n << " p=" << p;
    }
  }
}

TEST(Sizing, CapacityInvertsExpectedFpp) {
  for (double p : {0.1, 0.01, 0.001}) {
    const auto params = optimal_params(50'000, p);
    const std::uint64_t n = capacity_for(params.bits, params.hashes, p);
    EXPECT_LE(expected_fpp(params.bits, params.hashes, n), p);
    EXPECT_GT(expected_fpp(params.bits, params.hashes, n + 1), p);
    EXPECT_NEAR(static_cast<double>(n), 50'000.0, 50'000.0 * 0.06);
  }
  // A filter too small for even one key at this p.
  EXPECT_EQ(capacity_for(1, 1, 0.01), 0u);
}

TEST(Sizing, ExpectedFppEdges) {
  EXPECT_EQ(expected_fpp(1000, 3, 0), 0.0);
  EXPECT_NEAR(expected_fpp(1, 1, 1'000'000), 1.0, 1e-12);
  EXPECT_LT(expected_fpp(std::uint64_t{1} << 40, 7, 1'000'000'000), 1e-9);
}

TEST(Sizing, RejectsBadCapacity) {
  EXPECT_EQ(code_of([] { optimal_params(0, 0.01); }), errc::invalid_argument);
  EXPECT_NE(message_of([] { optimal_params(0, 0.01); }).find("capacity"), std::string::npos);
}

TEST(Sizing, RejectsBadFpp) {
  for (double p : {0.0, 1.0, 1.5, -0.1, std::numeric_limits<double>::quiet_NaN(),
                   std::numeric_limits<double>::infinity()}) {
    EXPECT_EQ(code_of([&] { optimal_params(10, p); }), errc::invalid_argument) << p;
    EXPECT_NE(message_of([&] { optimal_params(10, p); }).find("fpp"), std::string::npos);
    EXPECT_EQ(code_of([&] { capacity_for(1000, 3, p); }), errc::invalid_argument) << p;
  }
}

TEST(Sizing, RejectsSizesThatCannotExist) {
  // 10^18 keys at 1e-12: far beyond 2^46 bits.
  EXPECT_EQ(code_of([] { optimal_params(1'000'000'000'000'000'000ull, 1e-12); }), errc::too_large);
  EXPECT_NE(message_of([] { optimal_params(1'000'000'000'000'000'000ull, 1e-12); }).find("bits"),
            std::string::npos);
  EXPECT_EQ(code_of([] { validate_params(0, 3); }), errc::invalid_argument);
  EXPECT_EQ(code_of([] { validate_params(100, 0); }), errc::invalid_argument);
  EXPECT_EQ(code_of([] { validate_params(max_bits + 1, 3); }), errc::too_large);
  EXPECT_EQ(code_of([] { validate_params(100, max_hashes + 1); }), errc::too_large);
  // p so small that k exceeds the limit.
  EXPECT_EQ(code_of([] { optimal_params(10, 1e-320); }), errc::too_large);
}

TEST(Sizing, ExtremeButValidTargets) {
  const auto near_one = optimal_params(1000, 0.999);
  EXPECT_GE(near_one.bits, 1u);
  EXPECT_EQ(near_one.hashes, 1u);
  const auto near_zero = optimal_params(1000, 1e-15);
  EXPECT_EQ(near_zero.hashes, 50u);
  EXPECT_EQ(optimal_params(1, 0.5).bits, 2u);
}

TEST(Sizing, BytesForBits) {
  EXPECT_EQ(bytes_for_bits(1), 8u);
  EXPECT_EQ(bytes_for_bits(64), 8u);
  EXPECT_EQ(bytes_for_bits(65), 16u);
}

}  // namespace
}  // namespace bloomkit
