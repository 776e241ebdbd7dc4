#pragma once
// The Guava-based Redis helper that Java services share a filter with (the "BloomFilterHelper"
// of many Spring tutorials): its sizing and its bit offsets, exactly (docs/INTEROP.md, "The
// Guava-based Redis helper"). The filter itself is one Redis string written with SETBIT:
// bloomkit::redis::guava_helper_filter (redis/guava_helper_filter.hpp) reads and writes it.
//
//   auto [bits, k] = bloomkit::guava_helper::optimal_params(1'000'000, 0.01);  // 9585058, 7
//   std::uint64_t at[7];
//   bloomkit::guava_helper::offsets("alice", guava_helper::funnel::string, bits, at);
//
// The helper hashes hash64 = Hashing.murmur3_128().hashObject(value, funnel).asLong() (h1 of
// murmur3 x64 128, seed 0, of the bytes the funnel feeds), then hash1 = (int) hash64, hash2 =
// (int) (hash64 >>> 32), and for i = 1..k: c = hash1 + i * hash2 in 32-bit two's complement,
// c = ~c when negative, offset c % bitSize: Guava's MURMUR128_MITZ_32 probes
// (guava::mitz_32_sequence) taken modulo the helper's own bitSize, which is not rounded up to 64
// as Guava's filter rounds it, so a MITZ_32 filter of the same (n, p) sets other bits.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "bloomkit/sizing.hpp"

namespace bloomkit::guava_helper {

// What the helper's Funnel feeds murmur3_128, over the key bytes bloomkit is given:
enum class funnel {
  string,        // into.putString(s, UTF_8): the key's UTF-8 bytes
  string_twice,  // putString(s, UTF_8) twice in one funnel (a widely copied configuration)
  long_integer,  // into.putLong(v): the key is the 8 little-endian bytes of v (long_key(v))
};
// "string", "string-twice", "long" (the CLI's --funnel names).
std::string_view to_string(funnel f) noexcept;
std::optional<funnel> parse_funnel(std::string_view name) noexcept;

// bitSize is a Java int; the helper's k is at most what anyone configures (Guava's own limit).
inline constexpr std::uint64_t max_bits = 0x7fffffff;
inline constexpr std::uint32_t max_hashes = 255;

// The helper's sizing, in Java's arithmetic: bitSize = (int) (-n * Math.log(p) / (Math.log(2) *
// Math.log(2))) (truncated, and saturated at max_bits as Java's (int) cast of a large double
// is: such a filter has a higher FPP than p), k = Math.max(1, (int) Math.round((double) bitSize
// / n * Math.log(2))). n is the helper's int expectedInsertions: 1 to 2^31 - 1. Throws
// errc::invalid_argument for n or p out of range or a bitSize of 0 (the helper would divide by
// zero), errc::too_large for k > max_hashes.
filter_params optimal_params(std::uint64_t n, double p);
// Throws errc::invalid_argument unless 1 <= bits <= max_bits and 1 <= hashes <= max_hashes.
void check_params(std::uint64_t bits, std::uint32_t hashes);

// The 8 bytes longFunnel feeds for v (little-endian), the key a funnel::long_integer filter takes.
std::string long_key(std::int64_t v);

// hash64 of a key: murmur3_128 asLong() of the bytes the funnel feeds. A long_integer key must
// be 8 bytes (errc::invalid_argument otherwise).
std::uint64_t hash64(std::string_view key, funnel f);
// The helper's murmurHashOffset: out.size() offsets (k) in [0, bits), in the helper's order.
void offsets(std::string_view key, funnel f, std::uint64_t bits, std::span<std::uint64_t> out);

}  // namespace bloomkit::guava_helper
