#pragma once
// Sizing of classic Bloom filters.
//
// The textbook figures. For n keys and a target false-positive probability p, the bit count
// that minimises memory is
//   m = ceil(-n ln p / (ln 2)^2)
// and the hash count that minimises the FPP for that m is k = max(1, round(m/n ln 2)).
// With k probes into m bits after n inserts, the probability that a given bit is still 0 is
// (1 - 1/m)^(kn) ~= e^(-kn/m), so a key never inserted tests positive with probability
//   fpp(m, k, n) = (1 - e^(-kn/m))^k                                   (expected_fpp)
// capacity(m, k, p) inverts that: the largest n with fpp(m, k, n) <= p.
//
// The exact figure of the native scheme (exact_fpp). The textbook formula assumes that a key's
// k probes are k distinct, independent bits. The native probes (hashing.hpp: enhanced double
// hashing, multiply-high) are k consecutive points u, u + v, u + 2v, ... of a rotation of the
// circle cut into m bits, and for a step v near a fraction a/j (j < k) they bunch up: a key
// whose probes fall on D < k distinct bits is a false positive as soon as those D bits are set.
// P(D < k) is about 1.2 k/m (src/core/distinct_probes.hpp derives the distribution of D), so small
// filters miss their target: at p = 1% the textbook sizes give 5.9% for n = 1, 1.5% for
// n = 10, 1.25% for n = 20 (measured). With f = 1 - (1 - E[D]/m)^n the chance that a given bit
// is set after n keys,
//   exact_fpp(m, k, n) = sum_d P(D = d) f^d  +  n / m^2   (the second term for k >= 3).
// The first term treats the bits a probe reads as set independently with probability f (for
// random sets of bits that over-states the truth: occupancy is negatively associated). The
// second covers what it leaves out: two keys whose (h1, h2) agree to within about one bit in
// both start and step probe nearly the same bits, so one inserted key covers a probe with
// probability of order 1/m^2 (with k <= 2 the bits u and u + v of a key are independent and
// there is no such term). Measured (2e7 - 1e9 probes a point, on random digests through the real
// probe sequence):
//   - at the sizes the first term alone would pick (n = 1..300, p = 0.1 .. 1e-5) the true FPP
//     exceeds it by 0.2 - 0.5 n/m^2 where p <= 1e-3 (up to 1.15 p), and is below it
//     where p >= 1e-2 (by up to 27%) and for n = 1000 at p = 1e-5;
//   - at the sizes optimal_params picks (n = 1, 3, 10, 30, 100, 300; p = 0.1, 0.01, 0.001) the
//     true FPP is 0.66 (n = 1) to 0.998 (n = 300) times exact_fpp, never above it.
// So exact_fpp is an upper bound, tight for all but the smallest filters. For large filters it
// tends to the textbook figure plus about (0.1 .. 0.4)/m: 0.7% more at n = 1000, p = 1%. Where p
// is tiny, the 1/m tail of bunched probes and the n/m^2 term dominate even large filters: the
// textbook size for n = 1000 at p = 1e-5 gives 1.73e-5 (measured), for n = 1e6 at p = 1e-9 about
// 3e-9.
//
// optimal_params(n, p) keeps the textbook (m, k) when its exact FPP at n is within 1% of the
// textbook figure (k is rounded, so that figure itself may exceed p a little: at most 0.75% for
// p <= 1%, 1.7% for p <= 10%, 11.5% for p near 0.85 where k = 1); so large filters keep their
// sizes. Otherwise it takes exact_params(n, p): the fewest bits, over every k up to the
// textbook k + 2, whose exact FPP at n is at most p. (Table in docs/VARIANTS.md.)
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

// How far above the textbook figure the exact FPP of a textbook size may be for sizing to keep it.
inline constexpr double textbook_slack = 1.01;

// m and k for n keys at false-positive probability p: the textbook pair when its exact FPP
// is within textbook_slack of its textbook figure, else exact_params(n, p) (see above).
filter_params optimal_params(std::uint64_t n, double p);
// The fewest bits m (and its k, the smaller k on a tie), over k up to the textbook k + 2, with
// exact_fpp(m, k, n) <= p. Throws errc::too_large when no m up to max_bits will do.
filter_params exact_params(std::uint64_t n, double p);
// The textbook m and k.
std::uint64_t optimal_bits(std::uint64_t n, double p);
std::uint32_t optimal_hashes(std::uint64_t m, std::uint64_t n);

// The textbook false-positive probability of an (m, k) filter holding n distinct keys.
double expected_fpp(std::uint64_t m, std::uint32_t k, std::uint64_t n);
// The false-positive probability of a native (xxh3-128) filter of m bits and k probes holding
// n distinct keys, exactly enough for small m (see above).
double exact_fpp(std::uint64_t m, std::uint32_t k, std::uint64_t n);
// The false-positive probability of a native filter whose bits are set in the fraction `fill`
// (its fill ratio): sum_d P(D = d) fill^d, which is fill^k for large m. 1 for a saturated
// filter, 0 for an empty one.
double fpp_at_fill(std::uint64_t m, std::uint32_t k, double fill) noexcept;
// The same figures for a scheme whose k probes are independent uniform hashes (go-zero), for
// which P(D = d) is that of k independent draws and sum_d P(D = d) f^d with f = 1 - (1 -
// 1/m)^(kn) is an upper bound on the exact FPP (occupancy is negatively associated).
double independent_probes_fpp(std::uint64_t m, std::uint32_t k, std::uint64_t n);
double independent_probes_fpp_at_fill(std::uint64_t m, std::uint32_t k, double fill) noexcept;

// A native filter cut into `parts` equal parts of part_bits bits, each key in one part chosen
// uniformly, each part probed as a filter of its own (the Redis sharded layout): the exact FPP
// with n keys, averaged over the binomial loads of the parts.
double exact_fpp_in_parts(std::uint64_t part_bits, std::uint32_t k, std::uint64_t parts,
                          std::uint64_t n);

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
// each word of one block. With n keys spread over b blocks, a block's load is binomial,
// Bin(n, 1/b) (uniform block choice; Poisson with lambda = n / b for large b). A block holding
// i keys has each bit of a word still 0 with probability (31/32)^i, so a key never inserted,
// which tests one bit per word of one block, is a false positive with probability
//   fpp(b, n) = sum_i Bin(i; n, 1/b) * (1 - (31/32)^i)^8.
// (A key's 8 bits are in 8 different words, so they never coincide, unlike the classic probes.)
// The uneven loads make this larger than the classic (1 - e^(-8n/m))^8 at the same m: at
// 12 bits per key 0.542% against 0.314% (docs/VARIANTS.md has the table), so sizing a blocked
// filter with the classic formula would miss its target p. The binomial is exact for any b:
// the Poisson mixture used before over-stated tiny filters (one block holding n keys has load
// n, not Pois(n)). Measured FPPs match the mixture (tests/unit/blocked_bloom_filter_test.cpp).

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

// --- Blocked layouts at every p -------------------------------------------------------------
// One 256-bit block and 8 bits per key costs 1.25x the classic filter's bits at p = 0.1, 1.10x
// at 1e-2, 1.37x at 1e-4 and 2.25x at 1e-6: too few bits per key for high p, too few keys per
// block (their loads too uneven) for low p. A blocked filter's k (its hashes) therefore names one
// of these layouts (docs/FORMAT.md), all hashed from the XXH3-64 digest:
//   k = 8          the split block above (every file written before the other layouts);
//   k = 1..7       one 512-bit line (a whole cache line) per key, k bits in it;
//   k = 16         two 512-bit lines per key, 8 bits in each (both lines prefetched together).
// A line's bits are those of a word-blocked filter's 512-bit word (below): one in each of its
// b bits-per-line fields of floor(512 / b) bits. With L lines and j lines per key, a line takes
// Bin(j n, 1/L) key visits and with i of them a key's bits in it are set with probability
//   f(i) = (1 - (1 - 1/F)^i)^b,  F = floor(512 / b);
// a stranger's j lines are independent, so it is a false positive with probability
//   j = 1:  E f            j = 2:  (1 - 1/L) (E f)^2 + E[f^2] / L
// (the second term: both of its lines are one). Loads of different lines are negatively
// correlated, which only lowers the truth below these figures.
// blocked_params chooses the layout: the first of split block, one line, two lines (fastest
// first) whose fewest bits are at most blocked_classic_ratio times the classic filter's
// (optimal_params) for the same n and p; if none is, the one of fewest bits. So the split block
// stays wherever it holds the ratio (p from about 1.5e-3 to 0.045, p = 1e-2 among them: the
// sizes and speed it always had). Small filters, whose classic size is below
// blocked_small_filter_bits (4 KiB), keep the split block at every p: there a 256- or 512-bit
// unit is a large part of the filter, and their files and module images stay what they were.
// Tables: docs/VARIANTS.md.

inline constexpr std::uint64_t blocked_line_bits = 512;
inline constexpr std::uint32_t blocked_line_hashes_max = 7;  // one line: k = 1..7
inline constexpr std::uint32_t blocked_two_line_hashes = 16;
inline constexpr double blocked_classic_ratio = 1.15;
inline constexpr std::uint64_t blocked_small_filter_bits = std::uint64_t{1} << 15;

// What a blocked filter's k means.
struct blocked_shape {
  std::uint64_t unit_bits = blocked_block_bits;  // 256 (split block) or 512 (line)
  std::uint32_t units_per_key = 1;               // 1 or 2
  std::uint32_t bits_per_unit = blocked_hashes;  // k / units_per_key
  friend bool operator==(const blocked_shape&, const blocked_shape&) = default;
};
// Whether k names a blocked layout (1..8 or 16).
bool is_blocked_hashes(std::uint32_t k) noexcept;
// The layout of k; throws errc::invalid_argument naming k unless is_blocked_hashes(k).
blocked_shape blocked_shape_of(std::uint32_t k);
// "split-block" (k = 8), "one-line" (k < 8), "two-line" (k = 16).
const char* blocked_layout_name(std::uint32_t k) noexcept;
// Expected FPP of a blocked filter of `bits` bits (a multiple of its unit) and layout k holding
// n distinct keys (k = 8: blocked_expected_fpp).
double blocked_fpp(std::uint64_t bits, std::uint32_t k, std::uint64_t n);
// The layout (k) and size (bits) of a blocked filter for n keys at p, as above.
filter_params blocked_params(std::uint64_t n, double p);

// --- Word-blocked filters -----------------------------------------------------------------
// A word-blocked filter is an array of w-bit words (8 <= w <= 512); a key sets k bits of one
// word, one in each of k fields of F = floor(w / k) bits (src/storage/word_mask.hpp). Window
// filters use them: one word per slice holds a key, so a key's words of every slice sit in one or
// two cache lines (in process) or are read with one BITFIELD GET per slice (Redis). With i keys in
// a word a given bit of a field is still 0 with probability (1 - 1/F)^i, the fields fill
// independently, so a key never inserted is a false positive with probability
//   fpp(i) = (1 - (1 - 1/F)^i)^k
// and over b words holding n keys fpp = sum_i Bin(i; n, 1/b) fpp(i).

struct word_filter_params {
  std::uint64_t words = 0;
  std::uint32_t hashes = 0;  // k, 1..max_word_hashes
  friend bool operator==(const word_filter_params&, const word_filter_params&) = default;
};
inline constexpr std::uint32_t max_word_hashes = 16;

// Throws errc::invalid_argument unless 8 <= word_bits <= 512, 1 <= k <= max_word_hashes and
// words >= 1.
void validate_word_filter(std::uint32_t word_bits, std::uint32_t k, std::uint64_t words);
// The FPP above of `words` words of word_bits bits with k bits per key, holding n keys.
double word_filter_fpp(std::uint32_t word_bits, std::uint32_t k, std::uint64_t words,
                       std::uint64_t n);
// The fewest words (and its k, 1..min(max_word_hashes, word_bits), the smaller on a tie) with
// word_filter_fpp <= p at n keys; some 0.3 ms, and the last answers are remembered. Throws
// errc::too_large when more than max_bits bits would be needed.
word_filter_params word_filter_sizing(std::uint32_t word_bits, std::uint64_t n, double p);

// Bytes of the 64-bit word array that holds m bits.
constexpr std::uint64_t bytes_for_bits(std::uint64_t m) {
  return (m + 63) / 64 * 8;
}

}  // namespace bloomkit
