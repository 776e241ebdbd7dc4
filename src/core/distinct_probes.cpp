#include "distinct_probes.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace bloomkit::detail {
namespace {

// Samples of v per 1/(m k) inside the windows when m < 2k.
constexpr int grid_points = 8;

double fraction(double x) noexcept {
  return x - std::floor(x);
}

// Euler's phi: how many a in [0, j) have gcd(a, j) = 1 (1 for j = 1).
std::uint32_t totient(std::uint32_t j) noexcept {
  std::uint32_t result = j;
  for (std::uint32_t f = 2; f * f <= j; ++f) {
    if (j % f != 0) continue;
    while (j % f == 0) j /= f;
    result -= result / f;
  }
  if (j > 1) result -= result / j;
  return result;
}

// How D is spread over the phase t in [0, 1) for one v: `fixed` counts what every t has, and
// each arc (start, length) of t adds one. accumulate() adds weight * (measure of t) to
// probability[max(1, D)].
class arc_sweep {
 public:
  void clear() noexcept { events_.clear(); }
  // start in [0, 1), 0 < length < 1; an arc past 1 wraps to 0.
  void add(double start, double length) {
    const double end = start + length;
    events_.emplace_back(start, +1);
    if (end <= 1) {
      events_.emplace_back(end, -1);
    } else {
      events_.emplace_back(1.0, -1);
      events_.emplace_back(0.0, +1);
      events_.emplace_back(end - 1, -1);
    }
  }
  void accumulate(int fixed, double weight, std::vector<double>& probability) {
    std::sort(events_.begin(), events_.end());
    int covering = 0;
    double last = 0;
    for (const auto& [at, delta] : events_) {
      if (at > last) {
        add(fixed + covering, weight * (at - last), probability);
        last = at;
      }
      covering += delta;
    }
    if (last < 1) add(fixed + covering, weight * (1 - last), probability);
  }

 private:
  static void add(int d, double mass, std::vector<double>& probability) {
    const auto index = static_cast<std::size_t>(std::max(1, d));
    probability[std::min(index, probability.size() - 1)] += mass;
  }
  std::vector<std::pair<double, int>> events_;
};

// m >= 2k: the windows around a/j are disjoint and the j chains of a window never share a
// bit. Each chain's count is 1 + floor(span) plus one more bit on an arc of phases of length
// frac(span); those arcs sit where the chains' offsets put them, which depends on m mod j.
// Taking them all at the same place (comonotone) gives the largest E[g(D)] for every convex g
// (the comonotone sum is the largest in convex order), E[x^D] among them, and the exact E[D];
// and it depends on the chain lengths alone, so the window's part is (1/m) H(d) with H
// computed in closed form: the integrand is linear in s between the breakpoints below.
void add_chain_windows(std::uint64_t m, std::uint32_t k, std::vector<double>& probability) {
  const double bits = static_cast<double>(m);
  double in_windows = 0;
  std::vector<double> breaks;
  for (std::uint32_t j = 1; j < k; ++j) {
    const std::uint32_t fractions = totient(j);  // a/j with gcd(a, j) = 1 (j = 1: just 0/1)
    // v = a/j +- e: the minus side of a/j is the plus side of (j-a)/j mirrored (v -> -v,
    // u -> -u reverses the bits and keeps D), so every window counts its plus side twice.
    const double window = 2.0 * fractions / (bits * j);
    in_windows += window;
    // Chains r = 0..j-1 hold probes r, r + j, ...: (k-1)/j + 1 points for r <= (k-1) % j
    // ("long"), one fewer for the rest ("short"), s bits apart (s = m j |e| in (0, 1)).
    const std::uint32_t long_points = (k - 1) / j + 1;
    const std::uint32_t long_chains = (k - 1) % j + 1;
    const std::uint32_t short_chains = j - long_chains;
    const double long_steps = long_points - 1;
    const double short_steps = long_points - 2.0;  // unused when short_chains == 0
    breaks.assign({0.0, 1.0});
    for (double i = 1; i < long_steps; ++i) breaks.push_back(i / long_steps);
    if (short_chains > 0) {
      for (double i = 1; i < short_steps; ++i) breaks.push_back(i / short_steps);
    }
    std::sort(breaks.begin(), breaks.end());
    for (std::size_t i = 0; i + 1 < breaks.size(); ++i) {
      const double width = breaks[i + 1] - breaks[i];
      if (!(width > 0)) continue;
      // Linear on the piece: its midpoint gives the piece's integral exactly.
      const double s = breaks[i] + width / 2;
      const double long_span = long_steps * s;
      const double short_span = short_chains > 0 ? short_steps * s : 0;
      const double long_part = fraction(long_span);
      const double short_part = short_chains > 0 ? fraction(short_span) : 0;
      const int fixed = static_cast<int>(long_chains * (1 + std::floor(long_span)) +
                                         short_chains * (1 + std::floor(short_span)));
      // All arcs end at the same phase: the longer arc's chains add a bit wherever the
      // shorter's do.
      const bool long_first = long_part >= short_part;
      const double outer = long_first ? long_part : short_part;
      const double inner = long_first ? short_part : long_part;
      const int outer_chains = static_cast<int>(long_first ? long_chains : short_chains);
      const double mass = window * width;
      probability[static_cast<std::size_t>(fixed)] += mass * (1 - outer);
      if (outer > inner) {
        probability[static_cast<std::size_t>(fixed + outer_chains)] += mass * (outer - inner);
      }
      if (inner > 0) probability[static_cast<std::size_t>(fixed) + j] += mass * inner;
    }
  }
  probability[k] += 1 - in_windows;
}

// m < 2k: sample v across the windows (merged where they overlap) and sweep the phase.
void add_sampled_windows(std::uint64_t m, std::uint32_t k, std::vector<double>& probability) {
  const double bits = static_cast<double>(m);
  std::vector<std::pair<double, double>> windows;
  for (std::uint32_t j = 1; j < k; ++j) {
    for (std::uint32_t a = 0; a <= j; ++a) {
      if (std::gcd(a, j) != 1) continue;  // j = 1 keeps 0/1 and 1/1
      const double center = static_cast<double>(a) / j;
      const double half = 1.0 / (bits * j);
      windows.emplace_back(std::max(0.0, center - half), std::min(1.0, center + half));
    }
  }
  std::sort(windows.begin(), windows.end());
  std::vector<std::pair<double, double>> merged;
  for (const auto& w : windows) {
    if (!merged.empty() && w.first <= merged.back().second) {
      merged.back().second = std::max(merged.back().second, w.second);
    } else {
      merged.push_back(w);
    }
  }
  const double spacing = 1.0 / (bits * k * grid_points);
  std::vector<double> points(k);
  arc_sweep sweep;
  double in_windows = 0;
  for (const auto& [lo, hi] : merged) {
    in_windows += hi - lo;
    const auto samples = static_cast<long>(std::max(1.0, std::ceil((hi - lo) / spacing)));
    const double width = (hi - lo) / static_cast<double>(samples);
    for (long i = 0; i < samples; ++i) {
      const double v = lo + (static_cast<double>(i) + 0.5) * width;
      for (std::uint32_t p = 0; p < k; ++p) points[p] = fraction(p * v);
      std::sort(points.begin(), points.end());
      int always_split = 0;
      sweep.clear();
      for (std::uint32_t p = 0; p < k; ++p) {
        const double gap = p + 1 < k ? points[p + 1] - points[p] : 1 + points[0] - points[p];
        const double split = bits * gap;  // the t-measure on which a boundary falls between
        if (split >= 1) {
          ++always_split;
        } else if (split > 0) {
          sweep.add(fraction(1 - split - fraction(bits * points[p])), split);
        }
      }
      sweep.accumulate(always_split, width, probability);
    }
  }
  probability[k] += 1 - in_windows;
}

double mean_of(const std::vector<double>& probability) {
  double mean = 0;
  for (std::size_t d = 1; d < probability.size(); ++d)
    mean += static_cast<double>(d) * probability[d];
  return mean;
}

}  // namespace

double distinct_probes::power_mean(double x) const noexcept {
  double sum = 0;
  double power = 1;
  for (std::size_t d = 1; d < probability.size(); ++d) {
    power *= x;
    sum += probability[d] * power;
  }
  return sum;
}

distinct_probes native_distinct_probes(std::uint64_t m, std::uint32_t k) {
  std::vector<double> probability(static_cast<std::size_t>(k) + 1, 0.0);
  if (k == 1) {
    probability[1] = 1;
    return {probability, 1};
  }
  if (m >= 2 * static_cast<std::uint64_t>(k)) {
    add_chain_windows(m, k, probability);
  } else if (k <= max_sampled_hashes) {
    add_sampled_windows(m, k, probability);
  } else {
    const double bunched = std::min(1.0, 2.0 * (k - 1) / static_cast<double>(m));
    probability[1] = bunched;
    probability[k] = 1 - bunched;
    return {probability, static_cast<double>(k)};
  }
  for (double& p : probability) p = std::clamp(p, 0.0, 1.0);
  return {probability, mean_of(probability)};
}

distinct_probes independent_distinct_probes(std::uint64_t m, std::uint32_t k) {
  const double bits = static_cast<double>(m);
  std::vector<double> probability(static_cast<std::size_t>(k) + 1, 0.0);
  probability[0] = 1;
  for (std::uint32_t draw = 0; draw < k; ++draw) {
    for (std::size_t d = std::min<std::size_t>(draw + 1, k); d >= 1; --d) {
      const double repeat = probability[d] * (static_cast<double>(d) / bits);
      const double fresh =
          probability[d - 1] * std::max(0.0, (bits - static_cast<double>(d - 1)) / bits);
      probability[d] = repeat + fresh;
    }
    probability[0] = 0;
  }
  return {probability, mean_of(probability)};
}

}  // namespace bloomkit::detail
