// How a cuckoo filter is sized: each table's bucket size, fingerprint width and buckets, and the
// capacity and FPP of each table of a chain.
//
// The rule. A table of m buckets of b slots sized for n keys is loaded to at most the design load
// a_b (under the load b-slot buckets reach with 500 kicks before an insert fails, Fan et al.
// 2014; measured below): m = ceil(n / (b a_b)) + slack, the slack 2 sqrt(n / b) + 1 buckets for
// the uneven fill of small tables. A key not in the table matches one of the 2 b a_b stored
// fingerprints of its two buckets, each with probability q = (2^f + 2) / 4^f (fingerprints are
// never 0: fingerprint_match), so
//   FPP(f, b) = 1 - (1 - q)^(2 b a_b),
// and f is the smallest width with FPP(f, b) <= p. Of b in {2, 4, 8} the one of fewest bits
// (m b f) wins; a user may set any b in 2..8 (b = 1 is refused: its tables filled to only 26..58%
// before an insert failed).
//   p       b  f   bits/key (n = 10^6)   counting filter   ratio   FPP measured at capacity
//   1e-2    4  10  10.68                 38.34             0.279   7.3e-3
//   1e-3    4  13  13.88                 57.51             0.241   9.1e-4
//   1e-4    4  17  18.15                 76.68             0.237   5.4e-5
// (bits per key: the table's bytes, slack and padding included, over n; FPP: 2 x 10^6 absent
// keys, load 0.937 at capacity; CuckooFpp tests check 2 x 10^4 keys at each p.) The FPP stays
// under p and above p / 2: f is rounded up, and the load at capacity is under a_b.
//
// A chain (expansion E > 0): table L holds n E^L keys in m_0 E^L buckets (the hashing of chains
// needs the multiple: cuckoo_filter.hpp) at FPP p 2^-(L+1), so that the compound FPP
// 1 - prod(1 - p_L) <= sum p_L < p however long the chain; each table keeps the first's b, and
// its f grows by one bit per table (less where the rounding of f had room to spare).

#include <cmath>
#include <limits>
#include <string>

#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit/error.hpp"

namespace bloomkit {

namespace {

void require_sizing(bool ok, const std::string& what) {
  if (!ok) throw error(errc::invalid_argument, what);
}

// FPP of a table of b-slot buckets at its design load with f-bit fingerprints.
double table_fpp_at(std::uint32_t f, std::uint32_t b) {
  const double q = cuckoo_filter::fingerprint_match(f);
  return -std::expm1(2.0 * b * cuckoo_filter::design_load(b) * std::log1p(-q));
}

// The table of b-slot buckets for n keys at p, or f = 0 when no width of at most 32 bits (and
// 120 bits a bucket) reaches p.
cuckoo_sizing sizing_with(std::uint64_t n, double p, std::uint32_t b) {
  cuckoo_sizing s;
  s.bucket_size = b;
  s.load = cuckoo_filter::design_load(b);
  const double buckets = std::ceil(static_cast<double>(n) / (b * s.load)) +
                         std::ceil(2.0 * std::sqrt(static_cast<double>(n) / b)) + 1.0;
  require_sizing(buckets < 0x1p56, "a cuckoo table of " + std::to_string(n) + " keys is too large");
  s.buckets = static_cast<std::uint64_t>(buckets);
  for (std::uint32_t f = cuckoo_filter::min_fingerprint_bits;
       f <= cuckoo_filter::max_fingerprint_bits && b * f <= cuckoo_filter::max_bucket_bits; ++f) {
    if (table_fpp_at(f, b) <= p) {
      s.fingerprint_bits = f;
      break;
    }
  }
  return s;
}

}  // namespace

double cuckoo_filter::fingerprint_match(std::uint32_t fingerprint_bits) noexcept {
  const int f = static_cast<int>(fingerprint_bits);
  return std::ldexp(std::ldexp(1.0, f) + 2.0, -2 * f);
}

double cuckoo_filter::design_load(std::uint32_t bucket_size) {
  // Under the loads b = 2, 4, 8 reached before an insert failed (0.87, 0.957, 0.99 at 10^5 keys;
  // 0.854, 0.959, 0.986 the worst of 100 tables of 1000 keys); b = 3, 5..7 between them.
  static constexpr double loads[] = {0, 0, 0.84, 0.9, 0.94, 0.95, 0.96, 0.96, 0.97};
  require_sizing(bucket_size >= min_bucket_size && bucket_size <= max_bucket_size,
                 "bucket size " + std::to_string(bucket_size) + " is not in 2..8");
  return loads[bucket_size];
}

cuckoo_sizing cuckoo_filter::sizing_for(std::uint64_t n, double p, std::uint32_t bucket_size) {
  require_sizing(n >= 1, "a cuckoo filter needs a capacity of at least 1 key");
  require_sizing(p > 0 && p < 1, "fpp " + std::to_string(p) + " is not in (0, 1)");
  if (bucket_size != 0) {
    const cuckoo_sizing s = sizing_with(n, p, bucket_size);
    require_sizing(s.fingerprint_bits != 0, "fpp " + std::to_string(p) + " needs more than " +
                                                std::to_string(max_bucket_bits / bucket_size) +
                                                "-bit fingerprints in buckets of " +
                                                std::to_string(bucket_size));
    return s;
  }
  cuckoo_sizing best;
  double best_bits = std::numeric_limits<double>::infinity();
  for (const std::uint32_t b : {4u, 2u, 8u}) {
    const cuckoo_sizing s = sizing_with(n, p, b);
    const double bits = static_cast<double>(s.buckets) * b * s.fingerprint_bits;
    if (s.fingerprint_bits != 0 && bits < best_bits) {
      best = s;
      best_bits = bits;
    }
  }
  require_sizing(best.fingerprint_bits != 0,
                 "fpp " + std::to_string(p) + " needs fingerprints of more than 32 bits");
  return best;
}

std::uint64_t cuckoo_filter::table_capacity(const cuckoo_options& o, std::size_t index) {
  if (index == 0) return o.capacity;
  require_sizing(o.expansion != 0 && index < max_tables,
                 "a cuckoo filter of expansion " + std::to_string(o.expansion) + " has no table " +
                     std::to_string(index));
  std::uint64_t capacity = o.capacity;
  for (std::size_t i = 0; i < index; ++i) {
    if (capacity > (std::uint64_t{1} << 62) / o.expansion) {
      throw error(errc::too_large, "table " + std::to_string(index) +
                                       " of a cuckoo filter would hold more than 2^62 keys");
    }
    capacity *= o.expansion;
  }
  return capacity;
}

double cuckoo_filter::table_fpp(const cuckoo_options& o, std::size_t index) {
  if (o.expansion == 0) return o.target_fpp;
  return std::ldexp(o.target_fpp, -static_cast<int>(index + 1));
}

cuckoo_sizing cuckoo_filter::table_sizing(const cuckoo_options& o, std::size_t index) {
  const std::uint64_t capacity = table_capacity(o, index);
  cuckoo_sizing s = sizing_for(capacity, table_fpp(o, index), o.bucket_size);
  if (index > 0) {  // E^L times table 0's buckets (the hashing of chains, cuckoo_filter.hpp)
    s.buckets =
        sizing_for(o.capacity, table_fpp(o, 0), o.bucket_size).buckets * (capacity / o.capacity);
  }
  return s;
}

}  // namespace bloomkit
