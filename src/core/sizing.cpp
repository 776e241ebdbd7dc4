#include "bloomkit/sizing.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>
#include <numbers>
#include <string>

#include "binomial_mixture.hpp"
#include "bloomkit/error.hpp"
#include "distinct_probes.hpp"
#include "exact_double.hpp"
#include "fewest_passing.hpp"
#include "sizing_memo.hpp"

namespace bloomkit {
namespace {

using detail::binomial_mixture;
using detail::sizing_memo;

const double ln2 = std::log(2.0);

// The n / m^2 term of exact_fpp: keys whose digests nearly agree (sizing.hpp).
constexpr double aligned_keys = 1.0;

// P(a given bit is set) after n keys that each set `mean` distinct bits of m, uniformly:
// 1 - (1 - mean/m)^n.
double fill_after(double mean, std::uint64_t m, double n) {
  return -std::expm1(n * std::log1p(-mean / static_cast<double>(m)));
}

// With one or two probes (u and u + v) a key's bits are independent and uniform, so the first
// term is the whole figure; the n / m^2 term is for three probes and more.
double native_fpp(const detail::distinct_probes& spread, std::uint64_t m, double n) {
  if (n <= 0) return 0.0;
  const double bits = static_cast<double>(m);
  const std::size_t k = spread.probability.size() - 1;
  const double aligned = k >= 3 ? aligned_keys * n / bits / bits : 0.0;
  return std::min(1.0, spread.power_mean(fill_after(spread.mean, m, n)) + aligned);
}

// The fewest bits m, over k = 1..k_max, with fpp(m, k) <= p (the smaller k on a tie). For each
// k, m is bisected: fpp falls as m grows (up to wiggles far below p's precision, which can only
// make the m found a little larger than needed, never one with fpp above p). Sizes of fewer
// than 2k bits are not considered: they never win (k probes bunch up in so few bits), and
// skipping them keeps every figure on the fast path of distinct_probes.hpp.
template <class Fpp>
filter_params fewest_bits(std::uint64_t n, double p, std::uint32_t k_max, Fpp&& fpp) {
  filter_params best;
  for (std::uint32_t k = 1; k <= k_max; ++k) {
    // Start from the textbook m for this k (where (1 - e^(-kn/m))^k = p).
    const double guess = std::ceil(static_cast<double>(k) * static_cast<double>(n) /
                                   -std::log1p(-std::pow(p, 1.0 / k)));
    const std::uint64_t least = 2 * static_cast<std::uint64_t>(k);
    std::uint64_t hi = guess >= static_cast<double>(max_bits)
                           ? max_bits
                           : std::max(least, static_cast<std::uint64_t>(guess));
    std::uint64_t lo = least - 1;  // lo fails (or is below the range), hi passes
    while (!(fpp(hi, k) <= p)) {
      if (hi == max_bits) break;
      lo = hi;
      hi = std::min(max_bits, hi * 2);
    }
    if (!(fpp(hi, k) <= p)) continue;  // not even max_bits bits hold p with this k
    if (best.bits != 0 && hi >= best.bits) {
      // Only a size below the best so far matters.
      if (lo + 1 >= best.bits || !(fpp(best.bits - 1, k) <= p)) continue;
      hi = best.bits - 1;
    }
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (fpp(mid, k) <= p) {
        hi = mid;
      } else {
        lo = mid;
      }
    }
    if (best.bits == 0 || hi < best.bits) best = {hi, k};
  }
  if (best.bits == 0) {
    throw error(errc::too_large, "capacity " + std::to_string(n) + " at fpp " +
                                     detail::exact_double(p) +
                                     " needs more bits than the maximum of " +
                                     std::to_string(max_bits) + " (8 TiB)");
  }
  return best;
}

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
  const std::uint64_t m = optimal_bits(n, p);  // validates n and p
  return sizing_memo::shared().get({sizing_memo::textbook, n, p}, [&] {
    const filter_params textbook{m, optimal_hashes(m, n)};
    const double promised = std::max(p, expected_fpp(textbook.bits, textbook.hashes, n));
    if (exact_fpp(textbook.bits, textbook.hashes, n) <= textbook_slack * promised) {
      return textbook;
    }
    return exact_params(n, p);
  });
}

filter_params exact_params(std::uint64_t n, double p) {
  const std::uint64_t m = optimal_bits(n, p);  // validates n and p
  return sizing_memo::shared().get({sizing_memo::exact, n, p}, [&] {
    const std::uint32_t k_max = std::min(max_hashes, optimal_hashes(m, n) + 2);
    return fewest_bits(n, p, k_max,
                       [n](std::uint64_t bits, std::uint32_t k) { return exact_fpp(bits, k, n); });
  });
}

double expected_fpp(std::uint64_t m, std::uint32_t k, std::uint64_t n) {
  validate_params(m, k);
  if (n == 0) return 0.0;
  // -expm1(-x) = 1 - e^-x, accurate when kn/m is small.
  const double fraction_set =
      -std::expm1(-static_cast<double>(k) * static_cast<double>(n) / static_cast<double>(m));
  return std::pow(fraction_set, k);
}

double exact_fpp(std::uint64_t m, std::uint32_t k, std::uint64_t n) {
  validate_params(m, k);
  return native_fpp(detail::native_distinct_probes(m, k), m, static_cast<double>(n));
}

double fpp_at_fill(std::uint64_t m, std::uint32_t k, double fill) noexcept {
  if (m < 1 || k < 1 || !(fill > 0)) return 0.0;
  if (fill >= 1) return 1.0;
  return detail::native_distinct_probes(m, k).power_mean(fill);
}

double independent_probes_fpp(std::uint64_t m, std::uint32_t k, std::uint64_t n) {
  validate_params(m, k);
  if (n == 0) return 0.0;
  // Every one of the kn draws misses a given bit with probability 1 - 1/m.
  const double fill = fill_after(1.0, m, static_cast<double>(k) * static_cast<double>(n));
  return std::min(1.0, detail::independent_distinct_probes(m, k).power_mean(fill));
}

double independent_probes_fpp_at_fill(std::uint64_t m, std::uint32_t k, double fill) noexcept {
  if (m < 1 || k < 1 || !(fill > 0)) return 0.0;
  if (fill >= 1) return 1.0;
  return detail::independent_distinct_probes(m, k).power_mean(fill);
}

double exact_fpp_in_parts(std::uint64_t part_bits, std::uint32_t k, std::uint64_t parts,
                          std::uint64_t n) {
  validate_params(part_bits, k);
  if (parts < 1) throw error(errc::invalid_argument, "parts must be at least 1 (got 0)");
  const auto spread = detail::native_distinct_probes(part_bits, k);
  return binomial_mixture(n, parts,
                          [&](double load) { return native_fpp(spread, part_bits, load); });
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

namespace {

// A block holding `load` keys answers a stranger positive with probability
// (1 - (31/32)^load)^8.
double blocked_block_fpp(double load) {
  const double bit_set = -std::expm1(load * std::log1p(-1.0 / 32));
  const double b2 = bit_set * bit_set;
  const double b4 = b2 * b2;
  return b4 * b4;
}

// The blocked figure with Poisson block loads (Pois(n / b)): what blocked_optimal_blocks sized
// with before the binomial, kept so that the sizes it gave stay the same.
double blocked_poisson_fpp(std::uint64_t blocks, std::uint64_t n) {
  const double lambda = static_cast<double>(n) / static_cast<double>(blocks);
  const double sigma = std::sqrt(lambda);
  if (lambda - 40 * sigma > 1500) return 1.0;
  const double lo = std::max(0.0, std::floor(lambda - 40 * sigma - 10));
  const double hi = std::ceil(lambda + 40 * sigma + 10);
  const double log_lambda = std::log(lambda);
  double fpp = 0;
  for (double i = std::max(lo, 1.0); i <= hi; ++i) {
    fpp += std::exp(i * log_lambda - lambda - std::lgamma(i + 1)) * blocked_block_fpp(i);
  }
  return std::min(fpp, 1.0);
}

}  // namespace

double blocked_expected_fpp(std::uint64_t blocks, std::uint64_t n) {
  validate_blocks(blocks);
  if (n == 0) return 0.0;
  const double lambda = static_cast<double>(n) / static_cast<double>(blocks);
  // A block's figure is 1 to double precision from 1500 keys on.
  if (lambda - 40 * std::sqrt(lambda) > 1500) return 1.0;
  return std::min(1.0, binomial_mixture(n, blocks, blocked_block_fpp));
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
  const auto fewest = [&](auto&& fpp) {
    std::uint64_t lo = 0;  // too few (or none)
    std::uint64_t hi = max_blocks;
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      (fpp(mid) <= p ? hi : lo) = mid;
    }
    return hi;
  };
  // The count the Poisson mixture gives (the sizes bloomkit always made) stands whenever the
  // exact figure holds p there, which it does wherever a block's figure is convex in its load
  // (below 66 keys a block, so for every p under about 0.3): Poisson loads vary more. Else
  // (a few blocks at a p near 1) the exact count.
  const std::uint64_t poisson = fewest([n](std::uint64_t b) { return blocked_poisson_fpp(b, n); });
  if (blocked_expected_fpp(poisson, n) <= p) return poisson;
  return fewest([n](std::uint64_t b) { return blocked_expected_fpp(b, n); });
}

std::uint64_t blocked_natural_capacity(std::uint64_t blocks) {
  validate_blocks(blocks);
  const double n = std::round(static_cast<double>(blocks * blocked_block_bits) * ln2 /
                              static_cast<double>(blocked_hashes));
  return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(n));
}

void validate_word_filter(std::uint32_t word_bits, std::uint32_t k, std::uint64_t words) {
  if (word_bits < 8 || word_bits > 512) {
    throw error(errc::invalid_argument,
                "word size must be 8..512 bits (got " + std::to_string(word_bits) + ")");
  }
  const std::uint32_t max_k = std::min(max_word_hashes, word_bits);  // distinct bits of a word
  if (k < 1 || k > max_k) {
    throw error(errc::invalid_argument, "bits per key must be 1.." + std::to_string(max_k) +
                                            " (got " + std::to_string(k) + ")");
  }
  if (words < 1 || words > max_bits / word_bits) {
    throw error(errc::invalid_argument, "word count must be 1.." +
                                            std::to_string(max_bits / word_bits) + " (got " +
                                            std::to_string(words) + ")");
  }
}

double word_filter_fpp(std::uint32_t word_bits, std::uint32_t k, std::uint64_t words,
                       std::uint64_t n) {
  validate_word_filter(word_bits, k, words);
  if (n == 0) return 0.0;
  const double field_bits = static_cast<double>(word_bits / k);
  const double zero_per_key = std::log1p(-1.0 / field_bits);
  const auto word_fpp = [&](double load) {
    return load <= 0 ? 0.0 : std::pow(-std::expm1(load * zero_per_key), k);
  };
  const double lambda = static_cast<double>(n) / static_cast<double>(words);
  if (lambda - 40 * std::sqrt(lambda) > 64.0 * word_bits) return 1.0;  // every word full
  return std::min(1.0, binomial_mixture(n, words, word_fpp));
}

word_filter_params word_filter_sizing(std::uint32_t word_bits, std::uint64_t n, double p) {
  validate_capacity(n);
  validate_fpp(p);
  validate_word_filter(word_bits, 1, 1);
  // The fewest words over k (the smaller k on a tie). The k near the usual optimum is searched
  // first, so that most others cost one figure (they cannot do with fewer words); a search starts
  // from the classic filter's m for its k, scaled by what the first search found
  // (fewest_passing.hpp): some 30 figures in all, where bisecting every k took 500.
  const filter_params found = sizing_memo::shared().get({sizing_memo::words, n, p, word_bits}, [&] {
    const std::uint32_t k_max = std::min(max_word_hashes, word_bits);
    const std::uint64_t most = max_bits / word_bits;
    // Where (1 - e^(-kn/m))^k = p for a classic filter of m bits, in words.
    const auto classic_words = [&](std::uint32_t k) {
      return static_cast<double>(k) * static_cast<double>(n) / -std::log1p(-std::pow(p, 1.0 / k)) /
             word_bits;
    };
    const auto first = std::clamp<std::uint32_t>(
        static_cast<std::uint32_t>(std::lround(0.8 * std::log2(1 / p))), 1, k_max);
    double scale = 1;    // the words found over the classic words, once a search is done
    filter_params best;  // its bits are words
    const auto search = [&](std::uint32_t k) {
      const auto fpp = [&](std::uint64_t words) { return word_filter_fpp(word_bits, k, words, n); };
      std::uint64_t hi = most;
      if (best.bits != 0) {
        // Fewer words than the best, or as many with a smaller k.
        hi = k < best.hashes ? best.bits : best.bits - 1;
        if (hi == 0 || !(fpp(hi) <= p)) return;
      } else if (!(fpp(most) <= p)) {
        return;
      }
      const double guess = std::ceil(classic_words(k) * scale);
      const std::uint64_t words = detail::fewest_passing(
          0, hi,
          guess >= 1 && guess < static_cast<double>(hi) ? static_cast<std::uint64_t>(guess) : hi, p,
          fpp);
      if (best.bits == 0) scale = static_cast<double>(words) / classic_words(k);
      best = {words, k};
    };
    search(first);
    for (std::uint32_t k = 1; k <= k_max; ++k) {
      if (k != first) search(k);
    }
    return best;
  });
  if (found.bits == 0) {
    throw error(errc::too_large, "capacity " + std::to_string(n) + " at fpp " +
                                     detail::exact_double(p) +
                                     " needs more bits than the maximum of " +
                                     std::to_string(max_bits) + " (8 TiB)");
  }
  return {found.bits, found.hashes};
}

}  // namespace bloomkit
