#include "bloomkit/sizing.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "bloomkit/error.hpp"
#include "exact_double.hpp"

namespace bloomkit {
namespace {

const double ln2 = std::log(2.0);

}  // namespace

void validate_capacity(std::uint64_t n) {
  if (n < 1) throw error(errc::invalid_argument, "capacity must be at least 1 (got 0)");
}

void validate_fpp(double p) {
  if (!std::isfinite(p) || !(p > 0.0) || !(p < 1.0)) {
    throw error(errc::invalid_argument, "fpp (false-positive probability) must be in (0, 1), got " +
                                            detail::exact_double(p));
  }
}

void validate_params(std::uint64_t m, std::uint32_t k) {
  if (m < 1) throw error(errc::invalid_argument, "bits must be at least 1 (got 0)");
  if (m > max_bits) {
    throw error(errc::too_large, "bits " + std::to_string(m) + " exceed the maximum of " +
                                     std::to_string(max_bits) + " (8 TiB)");
  }
  if (k < 1) throw error(errc::invalid_argument, "hashes must be at least 1 (got 0)");
  if (k > max_hashes) {
    throw error(errc::too_large, "hashes " + std::to_string(k) + " exceed the maximum of " +
                                     std::to_string(max_hashes));
  }
}

std::uint64_t optimal_bits(std::uint64_t n, double p) {
  validate_capacity(n);
  validate_fpp(p);
  const double m = std::ceil(-static_cast<double>(n) * std::log(p) / (ln2 * ln2));
  if (!(m <= static_cast<double>(max_bits))) {
    throw error(errc::too_large, "capacity " + std::to_string(n) + " at fpp " +
                                     detail::exact_double(p) + " needs " + detail::exact_double(m) +
                                     " bits, more than the maximum of " + std::to_string(max_bits) +
                                     " (8 TiB)");
  }
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(m));
}

std::uint32_t optimal_hashes(std::uint64_t m, std::uint64_t n) {
  validate_capacity(n);
  if (m < 1) throw error(errc::invalid_argument, "bits must be at least 1 (got 0)");
  const double k = std::round(static_cast<double>(m) / static_cast<double>(n) * ln2);
  if (k > max_hashes) {
    throw error(errc::too_large,
                "bits per key " + detail::exact_double(static_cast<double>(m) / n) + " call for " +
                    detail::exact_double(k) + " hashes, more than the maximum of " +
                    std::to_string(max_hashes));
  }
  return std::max<std::uint32_t>(1, static_cast<std::uint32_t>(k));
}

filter_params optimal_params(std::uint64_t n, double p) {
  const std::uint64_t m = optimal_bits(n, p);
  return {m, optimal_hashes(m, n)};
}

double expected_fpp(std::uint64_t m, std::uint32_t k, std::uint64_t n) {
  validate_params(m, k);
  if (n == 0) return 0.0;
  // -expm1(-x) = 1 - e^-x, accurate when kn/m is small.
  const double fraction_set =
      -std::expm1(-static_cast<double>(k) * static_cast<double>(n) / static_cast<double>(m));
  return std::pow(fraction_set, k);
}

std::uint64_t natural_capacity(std::uint64_t m, std::uint32_t k) {
  validate_params(m, k);
  return static_cast<std::uint64_t>(std::max(1.0, std::round(static_cast<double>(m) / k * ln2)));
}

double estimate_count(std::uint64_t m, std::uint32_t k, std::uint64_t set_bits) noexcept {
  const double bits = static_cast<double>(m);
  const double set = static_cast<double>(set_bits);
  if (set >= bits) return std::numeric_limits<double>::infinity();
  return -bits / k * std::log1p(-set / bits);
}

std::uint64_t capacity_for(std::uint64_t m, std::uint32_t k, double p) {
  validate_params(m, k);
  validate_fpp(p);
  // fpp = (1 - e^(-kn/m))^k <= p  <=>  n <= -m/k ln(1 - p^(1/k)).
  const double root = std::pow(p, 1.0 / k);
  double n = std::floor(-static_cast<double>(m) / k * std::log1p(-root));
  if (!(n >= 0)) return 0;
  if (n > static_cast<double>(std::numeric_limits<std::uint64_t>::max() / 2)) {
    n = static_cast<double>(std::numeric_limits<std::uint64_t>::max() / 2);
  }
  auto result = static_cast<std::uint64_t>(n);
  // Floating-point rounding can leave the boundary off by one either way; settle it exactly.
  // (Bounded: past 2^53 a step of one no longer changes the double.)
  for (int i = 0; i < 64 && result > 0 && expected_fpp(m, k, result) > p; ++i) --result;
  for (int i = 0; i < 64 && expected_fpp(m, k, result + 1) <= p; ++i) ++result;
  return result;
}

// --- blocked filters --------------------------------------------------------------------

void validate_blocks(std::uint64_t blocks) {
  if (blocks < 1) throw error(errc::invalid_argument, "blocks must be at least 1 (got 0)");
  if (blocks > max_blocks) {
    throw error(errc::too_large, "blocks " + std::to_string(blocks) + " exceed the maximum of " +
                                     std::to_string(max_blocks) + " (8 TiB)");
  }
}

double blocked_expected_fpp(std::uint64_t blocks, std::uint64_t n) {
  validate_blocks(blocks);
  if (n == 0) return 0.0;
  const double lambda = static_cast<double>(n) / static_cast<double>(blocks);
  const double sigma = std::sqrt(lambda);
  // A block holding i keys answers a stranger positive with probability (1 - (31/32)^i)^8,
  // which is 1 to double precision from i = 1500 on. Poisson mass more than 40 sigma from
  // lambda is below 1e-300, so the window below holds every term that counts.
  if (lambda - 40 * sigma > 1500) return 1.0;
  const double lo = std::max(0.0, std::floor(lambda - 40 * sigma - 10));
  const double hi = std::ceil(lambda + 40 * sigma + 10);
  const double log_lambda = std::log(lambda);
  const double log_word_clear = std::log1p(-1.0 / 32);  // ln(31/32)
  double fpp = 0;
  for (double i = std::max(lo, 1.0); i <= hi; ++i) {
    const double weight = std::exp(i * log_lambda - lambda - std::lgamma(i + 1));
    const double bit_set = -std::expm1(i * log_word_clear);  // 1 - (31/32)^i
    const double b2 = bit_set * bit_set;
    const double b4 = b2 * b2;
    fpp += weight * b4 * b4;
  }
  return std::min(fpp, 1.0);
}

std::uint64_t blocked_optimal_blocks(std::uint64_t n, double p) {
  validate_capacity(n);
  validate_fpp(p);
  if (blocked_expected_fpp(max_blocks, n) > p) {
    throw error(errc::too_large, "capacity " + std::to_string(n) + " at fpp " +
                                     detail::exact_double(p) +
                                     " needs more blocks than the maximum of " +
                                     std::to_string(max_blocks) + " (8 TiB)");
  }
  // fpp falls as blocks grow (the block loads shrink): bisect for the smallest enough.
  std::uint64_t lo = 0;  // too few (or none)
  std::uint64_t hi = max_blocks;
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (blocked_expected_fpp(mid, n) <= p) {
      hi = mid;
    } else {
      lo = mid;
    }
  }
  return hi;
}

std::uint64_t blocked_natural_capacity(std::uint64_t blocks) {
  validate_blocks(blocks);
  const double n = std::round(static_cast<double>(blocks * blocked_block_bits) * ln2 /
                              static_cast<double>(blocked_hashes));
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(n));
}

}  // namespace bloomkit
