#pragma once
// go-zero's core/bloom filter (github.com/zeromicro/go-zero): its exact bit positions and the
// bytes of its Redis bitmap, so that bloomkit answers as a go-zero service does on the same key.
//
//   auto f = bloomkit::go_zero::from_redis(bytes_of_GET, 1 << 20, "redis key users");
//   f.contains("alice");
//
// go-zero always uses k = 14: position i (0 <= i < 14) of a key is murmur3 Sum64 (spaolacci/
// murmur3: h1 of murmur3 x64 128, seed 0) of the key followed by the byte i, modulo the filter's
// bit count (New(store, key, bits)). Its bits live in one Redis string written with SETBIT, whose
// bit order within a byte is most significant first: bit o is bit 7 - o % 8 of byte o / 8.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/file.hpp"

namespace bloomkit::go_zero {

inline constexpr std::uint32_t hashes = 14;

// go-zero has no sizing of its own (its callers pick the bits); for_capacity(n, p) gives the
// fewest bits at which 14 probes keep the textbook FPP at n keys at or below p, or, where the
// probes of one key collide too often for that (small n), the fewest bits at which the exact FPP
// of 14 independent probes is at or below p (independent_probes_fpp, sizing.hpp).
filter_params optimal_params(std::uint64_t n, double p);
// Throws errc::invalid_argument unless hashes == 14.
void check_params(std::uint64_t bits, std::uint32_t hashes);

// go-zero's filter with any k (docs/INTEROP.md, "go-zero with any k"): the widely proposed
// NewFilter(store, key, expectedInsertions, falseProbability) sizes bits and k as Guava does, in
// Go's float64 arithmetic: bits = uint(-n * math.Log(p) / (math.Log(2) * math.Log(2)))
// (truncated), k = uint(math.Max(1, math.Round(float64(bits) / float64(n) * math.Log(2)))).
// Positions are go-zero's for i = 0..k-1 (byte(i) wraps past 255, so k stops there). Throws
// errc::invalid_argument for n or p out of range or 0 bits, errc::too_large past max_redis_bits or
// max_hashes.
inline constexpr std::uint64_t max_redis_bits = std::uint64_t{1} << 32;  // Redis's bit offsets
inline constexpr std::uint32_t max_hashes = 255;
filter_params new_filter_params(std::uint64_t n, double p);
// Throws errc::invalid_argument unless 1 <= bits <= max_redis_bits and 1 <= k <= max_hashes.
void check_any_k_params(std::uint64_t bits, std::uint32_t k);

using digest = std::array<std::uint64_t, hashes>;  // Sum64(key ++ byte(i)), i = 0..13
digest sum64s(std::string_view key) noexcept;
// Sum64(key ++ byte(i)) for i = 0..out.size()-1 (at most max_hashes).
void sum64s(std::string_view key, std::span<std::uint64_t> out);
// The positions of a key in a filter of `bits` bits with out.size() hashes: Sum64s % bits.
void positions(std::string_view key, std::uint64_t bits, std::span<std::uint64_t> out);

// The i-th position before the reduction modulo m (check_params() keeps a filter at 14 probes).
constexpr std::uint64_t location(const digest& h, std::uint64_t i) noexcept {
  return h[i % hashes];
}
using sequence = indexed_probe_sequence<digest, location>;

struct policy : probe_policy<hash_scheme::go_zero, digest, sequence, sum64s> {
  static filter_params optimal_params(std::uint64_t n, double p) {
    return go_zero::optimal_params(n, p);
  }
  static void check_params(std::uint64_t bits, std::uint32_t k) { go_zero::check_params(bits, k); }
  // Its probes are independent hashes (sizing.hpp).
  static double fpp(std::uint64_t bits, std::uint32_t k, std::uint64_t n) {
    return independent_probes_fpp(bits, k, n);
  }
  static double fpp_at_fill(std::uint64_t bits, std::uint32_t k, double fill) noexcept {
    return independent_probes_fpp_at_fill(bits, k, fill);
  }
};

// A go-zero filter of m bits: filter(m, go_zero::hashes).
using filter = basic_bloom_filter<policy>;

// The Redis string go-zero's SETBIT calls leave for these bits: ceil(m / 8) bytes (go-zero's own
// string is shorter until a bit near the end is set; the missing bytes are zeros).
std::vector<unsigned char> to_redis(const filter& f);
// A filter of `bits` bits over the bytes of go-zero's Redis string (GET). A string shorter than
// ceil(bits / 8) bytes is zero-extended, as Redis reads it; a set bit at or past `bits` is
// errc::corrupt_file naming `source` (go-zero never sets one: wrong --bits?).
filter from_redis(std::span<const unsigned char> bytes, std::uint64_t bits,
                  const std::string& source);

}  // namespace bloomkit::go_zero

namespace bloomkit {

// bloomkit filter files holding these filters: save / load / map (file.hpp), kind classic, scheme
// go-zero, k = 14.
extern template class basic_filter<go_zero::policy, bit_storage>;

}  // namespace bloomkit
