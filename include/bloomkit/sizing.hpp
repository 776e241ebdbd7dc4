#pragma once
// Sizing of classic Bloom filters.
//
// For n keys and a target false-positive probability p, the bit count that minimises memory is
//   m = ceil(-n ln p / (ln 2)^2)
// and the hash count that minimises the FPP for that m is k = max(1, round(m/n ln 2)).
// With k probes into m bits after n inserts, the probability that a given bit is still 0 is
// (1 - 1/m)^(kn) ~= e^(-kn/m), so a key never inserted tests positive with probability
//   fpp(m, k, n) = (1 - e^(-kn/m))^k.
// capacity(m, k, p) inverts that: the largest n with fpp(m, k, n) <= p.
//
// Every function validates its arguments and throws bloomkit::error naming the parameter.

#include <cstdint>

namespace bloomkit {

struct filter_params {
  std::uint64_t bits = 0;    // m
  std::uint32_t hashes = 0;  // k
  friend bool operator==(const filter_params&, const filter_params&) = default;
};

// Limits of what a filter may be: 2^46 bits (8 TiB) and 1024 probes per key. Anything larger
// is certainly a mistake (or cannot be allocated) and is refused with errc::too_large.
inline constexpr std::uint64_t max_bits = std::uint64_t{1} << 46;
inline constexpr std::uint32_t max_hashes = 1024;

// Throws errc::invalid_argument unless n >= 1.
void validate_capacity(std::uint64_t n);
// Throws errc::invalid_argument unless 0 < p < 1 and p is finite.
void validate_fpp(double p);
// Throws unless 1 <= m <= max_bits and 1 <= k <= max_hashes.
void validate_params(std::uint64_t m, std::uint32_t k);

// Optimal m and k for n keys at false-positive probability p.
filter_params optimal_params(std::uint64_t n, double p);
std::uint64_t optimal_bits(std::uint64_t n, double p);
std::uint32_t optimal_hashes(std::uint64_t m, std::uint64_t n);

// Expected false-positive probability of an (m, k) filter holding n distinct keys.
double expected_fpp(std::uint64_t m, std::uint32_t k, std::uint64_t n);

// The n at which k is the optimal hash count for m bits: max(1, round(m/k ln 2)). The capacity
// of a filter made from (m, k) alone (a filter read from another system's bytes, for one).
std::uint64_t natural_capacity(std::uint64_t m, std::uint32_t k);

// Distinct keys estimated from the number of set bits X of an (m, k) filter:
// -m/k ln(1 - X/m) (Swamidass & Baldwin, 2007); infinity when every bit is set.
double estimate_count(std::uint64_t m, std::uint32_t k, std::uint64_t set_bits) noexcept;

// The largest n for which expected_fpp(m, k, n) <= p (0 when even one key exceeds p).
std::uint64_t capacity_for(std::uint64_t m, std::uint32_t k, double p);

// --- Blocked (split-block) filters --------------------------------------------------------
// A blocked filter is an array of 256-bit blocks of eight 32-bit words; a key sets one bit in
// each word of one block. With n keys spread over b blocks, a block's load is Poisson with
// lambda = n / b (uniform block choice). A block holding i keys has each bit of a word still 0
// with probability (31/32)^i, so a key never inserted, which tests one bit per word of one block,
// is a false positive with probability
//   fpp(b, n) = sum_i Pois(i; n / b) * (1 - (31/32)^i)^8.
// The uneven loads make this larger than the classic (1 - e^(-8n/m))^8 at the same m: at
// 12 bits per key 0.542% against 0.314% (docs/VARIANTS.md has the table), so sizing a blocked
// filter with the classic formula would miss its target p. Measured FPPs match the mixture
// (tests/unit/blocked_bloom_filter_test.cpp).

inline constexpr std::uint64_t blocked_block_bits = 256;
inline constexpr std::uint32_t blocked_hashes = 8;
inline constexpr std::uint64_t max_blocks = max_bits / blocked_block_bits;

// Throws unless 1 <= blocks <= max_blocks.
void validate_blocks(std::uint64_t blocks);
// Expected FPP of a blocked filter of `blocks` blocks holding n distinct keys.
double blocked_expected_fpp(std::uint64_t blocks, std::uint64_t n);
// The fewest blocks for which blocked_expected_fpp(blocks, n) <= p.
std::uint64_t blocked_optimal_blocks(std::uint64_t n, double p);
// The n at which 8 bits per key is optimal for `blocks` blocks: round(256 b ln 2 / 8), at least 1
// (the capacity given to a filter made from a size alone).
std::uint64_t blocked_natural_capacity(std::uint64_t blocks);

// Bytes of the 64-bit word array that holds m bits.
constexpr std::uint64_t bytes_for_bits(std::uint64_t m) {
  return (m + 63) / 64 * 8;
}

}  // namespace bloomkit
