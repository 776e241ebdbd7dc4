#pragma once
// Internal: mixtures over the binomial loads of the parts of a filter (blocks, lines, words,
// shards), for the FPP figures of sizing.cpp and blocked_layouts.cpp.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>

namespace bloomkit::detail {

// ln n! - ((n + 1/2) ln n - n + ln(2 pi) / 2): Stirling's error, for n >= 1.
inline double stirling_error(double n) {
  if (n < 16)
    return std::lgamma(n + 1) -
           ((n + 0.5) * std::log(n) - n + 0.5 * std::log(2 * std::numbers::pi));
  const double n2 = n * n;
  return (1.0 / 12 - (1.0 / 360 - 1.0 / (1260 * n2)) / n2) / n;
}

// ln of the binomial probability of i successes in n trials of probability q (0 < q < 1), with
// the large terms of ln C(n, i) cancelled analytically (Loader, 2000): lgamma(n + 1) for n = 1e12
// alone carries an error of 4e-3.
inline double log_binomial(double n, double q, double i) {
  if (i == 0) return n * std::log1p(-q);
  if (i == n) return n * std::log(q);
  const double mean = n * q;
  const double deviance =
      i * std::log1p((i - mean) / mean) + (n - i) * std::log1p((mean - i) / (n - mean));
  return -0.5 * std::log(2 * std::numbers::pi * i * (n - i) / n) - deviance + stirling_error(n) -
         stirling_error(i) - stirling_error(n - i);
}

// Sums fn(load) weighted by the binomial probability of `load` of n keys landing in one of
// `parts` equally likely parts. Loads more than 40 standard deviations from the mean weigh below
// 1e-300; a window of more than 4096 loads is sampled in steps (the figures are smooth in the
// load), and the weights are normalised to sum to 1.
template <class Fn>
double binomial_mixture(std::uint64_t n, std::uint64_t parts, Fn&& fn) {
  if (parts == 1) return fn(static_cast<double>(n));
  const double keys = static_cast<double>(n);
  const double q = 1.0 / static_cast<double>(parts);
  const double mean = keys * q;
  const double sigma = std::sqrt(keys * q * (1 - q));
  const double lo = std::max(0.0, std::floor(mean - 40 * sigma - 10));
  const double hi = std::min(keys, std::ceil(mean + 40 * sigma + 10));
  const double step = std::max(1.0, std::floor((hi - lo) / 4096));
  double sum = 0;
  double weight_sum = 0;
  for (double load = lo; load <= hi; load += step) {
    const double weight = std::exp(log_binomial(keys, q, load));
    sum += weight * fn(load);
    weight_sum += weight;
  }
  return weight_sum > 0 ? sum / weight_sum : fn(mean);
}

}  // namespace bloomkit::detail
