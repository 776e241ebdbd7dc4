#pragma once
// Internal: the fewest parts (words of a word-blocked filter) whose FPP figure holds a target,
// for sizing.cpp.

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace bloomkit::detail {

// The least x in (lo, hi] with fpp(x) <= p, given that fpp(lo) > p (or lo is 0) and
// fpp(hi) <= p, where fpp falls as x grows. `first` is a guess of it (probed first when inside
// the bracket).
//
// The answer is the one bisection gives; the probes are fewer. Over a few decades an FPP figure
// is close to a power of x, so each probe goes where the line through the last two figures, in
// log-log space, crosses p: near the answer in two or three probes. A probe that does not at
// least halve the bracket is followed by a bisection, so the search never takes more than about
// twice bisection's probes. Every probe narrows the bracket, whose ends keep their meaning, so
// the result does not depend on where the probes went.
template <class Fpp>
std::uint64_t fewest_passing(std::uint64_t lo, std::uint64_t hi, std::uint64_t first, double p,
                             Fpp&& fpp) {
  struct point {
    double log_x = 0, log_fpp = 0;
  };
  point older, newer;  // the last two probes whose figures are in (0, 1)
  int points = 0;
  bool bisect = false;
  std::uint64_t guess = first;
  while (hi - lo > 1) {
    // Bisection halves the bracket's logarithm while it spans decades.
    std::uint64_t mid = lo > 0 && hi / lo >= 4
                            ? static_cast<std::uint64_t>(std::sqrt(static_cast<double>(lo)) *
                                                         std::sqrt(static_cast<double>(hi)))
                            : lo + (hi - lo) / 2;
    if (guess > lo && guess < hi) {
      mid = guess;
    } else if (!bisect && points == 2 && newer.log_fpp != older.log_fpp) {
      const double slope = (newer.log_x - older.log_x) / (newer.log_fpp - older.log_fpp);
      const double x = std::exp(newer.log_x + (std::log(p) - newer.log_fpp) * slope);
      if (std::isfinite(x)) {
        // Just past the crossing, so that a good line brackets the answer from both sides.
        const double above = std::ceil(x);
        mid = above <= static_cast<double>(lo + 1)   ? lo + 1
              : above >= static_cast<double>(hi - 1) ? hi - 1
                                                     : static_cast<std::uint64_t>(above);
      }
    }
    guess = 0;
    const std::uint64_t width = hi - lo;
    const double figure = fpp(mid);
    if (figure <= p) {
      hi = mid;
    } else {
      lo = mid;
    }
    bisect = !bisect && 2 * (hi - lo) > width;
    if (figure > 0 && figure < 1) {
      older = newer;
      newer = {std::log(static_cast<double>(mid)), std::log(figure)};
      points = std::min(points + 1, 2);
    }
  }
  return hi;
}

}  // namespace bloomkit::detail
