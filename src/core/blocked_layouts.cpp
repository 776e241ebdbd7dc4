// The layouts of blocked filters and the choice among them (sizing.hpp, "Blocked layouts at every
// p"): their FPP figures and blocked_params.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "binomial_mixture.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/sizing.hpp"
#include "exact_double.hpp"
#include "sizing_memo.hpp"

namespace bloomkit {
namespace {

constexpr std::uint64_t max_lines = max_bits / blocked_line_bits;

// The FPP of `lines` lines, `per_key` of them per key with `b` bits in each, holding n keys.
double line_fpp(std::uint64_t lines, std::uint32_t per_key, std::uint32_t b, std::uint64_t n) {
  if (n == 0) return 0.0;
  const double zero_per_visit = std::log1p(-1.0 / static_cast<double>(blocked_line_bits / b));
  const auto line = [&](double load) {
    return load <= 0 ? 0.0 : std::pow(-std::expm1(load * zero_per_visit), b);
  };
  const std::uint64_t visits = n * per_key;
  const double lambda = static_cast<double>(visits) / static_cast<double>(lines);
  // Every bit of every line is set long before this.
  if (lambda - 40 * std::sqrt(lambda) > 64.0 * blocked_line_bits) return 1.0;
  const double mean = detail::binomial_mixture(visits, lines, line);
  if (per_key == 1) return std::min(1.0, mean);
  const double square =
      detail::binomial_mixture(visits, lines, [&](double load) { return line(load) * line(load); });
  const double l = static_cast<double>(lines);
  return std::min(1.0, (1 - 1 / l) * mean * mean + square / l);
}

// The fewest lines (from 1 up to max_lines) whose fpp is at most p, if any; fpp falls as lines
// grow. The search doubles from `guess`, then bisects.
template <class Fpp>
std::optional<std::uint64_t> fewest_lines(std::uint64_t guess, double p, Fpp&& fpp) {
  std::uint64_t lo = 0;  // too few (or none)
  std::uint64_t hi = std::clamp<std::uint64_t>(guess, 1, max_lines);
  while (!(fpp(hi) <= p)) {
    if (hi == max_lines) return std::nullopt;
    lo = hi;
    hi = std::min(max_lines, hi * 2);
  }
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (fpp(mid) <= p ? hi : lo) = mid;
  }
  return hi;
}

// The fewest bits of each layout group for n keys at p (nullopt: more than max_bits), in the
// order blocked_params tries them.
std::optional<filter_params> split_block_size(std::uint64_t n, double p) {
  if (blocked_expected_fpp(max_blocks, n) > p) return std::nullopt;
  return filter_params{blocked_optimal_blocks(n, p) * blocked_block_bits, blocked_hashes};
}

std::optional<filter_params> one_line_size(std::uint64_t n, double p, std::uint64_t guess) {
  std::optional<filter_params> best;
  for (std::uint32_t b = 1; b <= blocked_line_hashes_max; ++b) {
    const auto lines =
        fewest_lines(guess, p, [&](std::uint64_t l) { return line_fpp(l, 1, b, n); });
    if (lines && (!best || *lines * blocked_line_bits < best->bits)) {
      best = filter_params{*lines * blocked_line_bits, b};
    }
  }
  return best;
}

std::optional<filter_params> two_line_size(std::uint64_t n, double p, std::uint64_t guess) {
  const std::uint32_t b = blocked_two_line_hashes / 2;
  const auto lines = fewest_lines(guess, p, [&](std::uint64_t l) { return line_fpp(l, 2, b, n); });
  if (!lines) return std::nullopt;
  return filter_params{*lines * blocked_line_bits, blocked_two_line_hashes};
}

}  // namespace

bool is_blocked_hashes(std::uint32_t k) noexcept {
  return (k >= 1 && k <= blocked_hashes) || k == blocked_two_line_hashes;
}

blocked_shape blocked_shape_of(std::uint32_t k) {
  if (!is_blocked_hashes(k)) {
    throw error(errc::invalid_argument,
                "hashes of a blocked filter must be 1.." + std::to_string(blocked_hashes) + " or " +
                    std::to_string(blocked_two_line_hashes) + " (got " + std::to_string(k) + ")");
  }
  if (k == blocked_hashes) return {};
  if (k == blocked_two_line_hashes) return {blocked_line_bits, 2, k / 2};
  return {blocked_line_bits, 1, k};
}

const char* blocked_layout_name(std::uint32_t k) noexcept {
  if (k == blocked_hashes) return "split-block";
  return k == blocked_two_line_hashes ? "two-line" : "one-line";
}

double blocked_fpp(std::uint64_t bits, std::uint32_t k, std::uint64_t n) {
  const blocked_shape shape = blocked_shape_of(k);
  if (bits == 0 || bits % shape.unit_bits != 0 || bits > max_bits) {
    throw error(errc::invalid_argument, "bits of a " + std::string(blocked_layout_name(k)) +
                                            " blocked filter must be a positive multiple of " +
                                            std::to_string(shape.unit_bits) + " up to " +
                                            std::to_string(max_bits) + " (got " +
                                            std::to_string(bits) + ")");
  }
  if (k == blocked_hashes) return blocked_expected_fpp(bits / blocked_block_bits, n);
  return line_fpp(bits / blocked_line_bits, shape.units_per_key, shape.bits_per_unit, n);
}

filter_params blocked_params(std::uint64_t n, double p) {
  const std::uint64_t classic = optimal_params(n, p).bits;  // validates n and p
  return detail::sizing_memo::shared().get({detail::sizing_memo::blocked, n, p}, [&] {
    const double limit = blocked_classic_ratio * static_cast<double>(classic);
    const std::uint64_t guess = classic / blocked_line_bits;
    std::optional<filter_params> fewest;
    const auto consider = [&](const std::optional<filter_params>& size) {
      if (size && (!fewest || size->bits < fewest->bits)) fewest = size;
      return size && static_cast<double>(size->bits) <= limit;
    };
    const auto split = split_block_size(n, p);
    // Small filters keep the split block (a line is a large part of them; and the files and
    // module images made at such sizes stay what they were).
    if (split && classic < blocked_small_filter_bits) return *split;
    if (consider(split)) return *fewest;
    if (const auto one = one_line_size(n, p, guess); consider(one)) return *one;
    if (const auto two = two_line_size(n, p, guess); consider(two)) return *two;
    if (!fewest) {
      throw error(errc::too_large, "capacity " + std::to_string(n) + " at fpp " +
                                       detail::exact_double(p) +
                                       " needs more bits than the maximum of " +
                                       std::to_string(max_bits) + " (8 TiB)");
    }
    return *fewest;
  });
}

}  // namespace bloomkit
