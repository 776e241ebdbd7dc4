#pragma once
// How many distinct bits the k probes of one key touch in a filter of m bits: the distribution
// of D, which sizing.cpp turns into exact false-positive figures for small filters.
//
// Native scheme (hashing.hpp). Probe i of a key is multiply-high of g(i) = h1 + i h2 + (i^3-i)/6
// (mod 2^64) into m bits. With u = h1 / 2^64 and v = h2 / 2^64, uniform on [0, 1), probe i is
//   floor(m frac(u + i v))   (the cubic term moves a probe by (i^3-i)/6 * m / 2^64 bits: under
//                             1e-7 bit for every m <= 2^40 and k <= 64, so it is left out)
// so the k probes are k consecutive points of a rotation of the circle, cut into m buckets.
// Two probes i < i' share a bucket only if the points are closer than 1/m, i.e. only if
// ||j v|| < 1/m for j = i' - i (||x|| = distance to the nearest integer). So D = k except on
// the windows W = {v : ||j v|| < 1/m for some 1 <= j < k}: intervals of half-width 1/(m j)
// around the fractions a/j (gcd(a, j) = 1), of total measure at most 2(k-1)/m. Inside W the
// probes of a key bunch up, D can be as small as 1 (v near 0: every probe in one or two
// adjacent bits), and such a key is a false positive whenever those few bits are set. That is
// why small filters miss the asymptotic formula, which assumes k distinct random bits.
//
// P(D = d) is computed by integrating over v in W (outside it, D = k) and, for each v, over the
// phase t = frac(m u), exactly: as t moves, the bucket boundaries sweep across the k points and
// the pair of neighbours (on the circle) at distance g < 1/m is split by a boundary on an arc
// of t of length m g; D(t) is the number of split pairs (at least 1), counted by a sweep.
//   - m >= 2k (every size sizing considers): the windows are disjoint and, in the window around
//     a/j, v = a/j + e with s = m j |e| in (0, 1), the probes form j chains (i mod j) whose
//     points step s bits apart and never meet another chain; a chain of L points starting at
//     phase x covers 1 + floor((L-1) s) + [frac(x) + frac((L-1) s) >= 1] bits. The phases of
//     the chains depend on m mod j; taking them equal (the comonotone case, add_chain_windows)
//     bounds E[x^D] from above and leaves E[D] exact, and then the integral over s has a closed
//     form: about k^2 operations whatever m is, so the 1/m tail of huge filters is there too.
//   - m < 2k: windows and chains overlap; v is sampled across W (grid_points per 1/(m k)) and
//     each v swept as above.
//   - k > max_exact_hashes: a bound instead. A key with D < k has at least one probe, so its
//     chance of a false positive is at most the fill x; P(D < k) <= sum_j P(||j v|| < 1/m) =
//     2(k-1)/m. The returned distribution puts that mass at D = 1 and the rest at k, and
//     `mean` is k (an upper bound, so the fill computed from it is an upper bound too).
// E[D] is exact. For m >= 2k, E[x^D] is an upper bound (chains taken as crossing bits together,
// below): against the sampled computation it is 0.1 - 4% above for k <= 10, up to 10% for k = 20
// - 64 (where x^D matters only for the rare bunched keys); against 200,000 keys of the real
// probe sequence it is never below and at most 10% above (tests/unit/sizing_test.cpp,
// FppAtFillMatchesTheProbeSequence).
//
// Independent probes (go-zero: k separate murmur3 hashes, % m). D is the number of distinct
// values among k independent uniform draws: P_{i+1}(d) = P_i(d) d/m + P_i(d-1) (m-d+1)/m.

#include <cstdint>
#include <vector>

namespace bloomkit::detail {

struct distinct_probes {
  std::vector<double> probability;  // [d] = P(D = d), d = 0..k
  double mean = 0;                  // E[D]

  // E[x^D]: the chance that every distinct bit of a key is set when each bit is set with
  // probability x, independently.
  double power_mean(double x) const noexcept;
};

// A filter of fewer than 2k bits with more probes than this gets the bound described above.
inline constexpr std::uint32_t max_sampled_hashes = 64;

distinct_probes native_distinct_probes(std::uint64_t m, std::uint32_t k);
distinct_probes independent_distinct_probes(std::uint64_t m, std::uint32_t k);

}  // namespace bloomkit::detail
