#pragma once
// Spark's BloomFilter probes (compat/spark.hpp): its murmur3_x86_32, the (h1, h2) pair of a key,
// the V1 and V2 probe sequences, Spark's sizing and limits, and the probe policies that make the
// classic filter a Spark filter.

#include <cstdint>
#include <string_view>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/hashing.hpp"
#include "bloomkit/sizing.hpp"

namespace bloomkit::spark {

// The version field of writeTo() (BloomFilter.Version).
enum class version : std::int32_t { v1 = 1, v2 = 2 };

// Spark's limits: numWords is a Java int (BitArray), k a positive int (bloomkit's max_hashes).
inline constexpr std::uint64_t max_words = 0x7fffffff;
// V1's 32-bit indexes reach bits 0 .. 2^31 - 1 only.
inline constexpr std::uint64_t v1_reachable_bits = std::uint64_t{1} << 31;

// Spark's Murmur3_x86_32.hashUnsafeBytes(bytes, seed): MurmurHash3_x86_32 over the aligned
// 4-byte little-endian blocks, then each of the 0-3 tail bytes sign-extended and mixed as a
// whole block, then fmix(h ^ length). Equal to the reference MurmurHash3_x86_32 when the length
// is a multiple of 4 (hashLong(v, seed) is this over v's 8 little-endian bytes).
std::int32_t murmur3_x86_32(std::string_view bytes, std::int32_t seed) noexcept;

// The two hashes of a key: h1 = murmur3_x86_32(key, seed), h2 = murmur3_x86_32(key, h1).
struct hash_pair {
  std::int32_t h1 = 0;
  std::int32_t h2 = 0;
  friend bool operator==(const hash_pair&, const hash_pair&) = default;
};
hash_pair hash_pair_of(std::string_view key, std::int32_t seed) noexcept;
// With seed 0: every V1 filter, and V2 filters of BloomFilter.create(n, p) / create(n, numBits).
inline hash_pair hash_pair_seed_0(std::string_view key) noexcept {
  return hash_pair_of(key, 0);
}

// V1 (BloomFilterImpl): probe i = 1..k is c = h1 + i*h2 (Java int: wraps modulo 2^32), ~c when
// negative, c % bits.
class v1_sequence {
 public:
  constexpr v1_sequence() noexcept = default;
  constexpr v1_sequence(hash_pair h, std::uint64_t bits) noexcept
      : h1_(static_cast<std::uint32_t>(h.h1)), h2_(static_cast<std::uint32_t>(h.h2)), bits_(bits) {}
  constexpr std::uint64_t next() noexcept {
    ++i_;
    auto c = static_cast<std::int32_t>(h1_ + i_ * h2_);
    if (c < 0) c = ~c;
    return static_cast<std::uint64_t>(c) % bits_;
  }

 private:
  std::uint32_t h1_ = 0;
  std::uint32_t h2_ = 0;
  std::uint64_t bits_ = 1;
  std::uint32_t i_ = 0;
};

// V2 (BloomFilterImplV2): c = (long) h1 * Integer.MAX_VALUE; each probe adds h2 (sign-extended,
// Java long: wraps modulo 2^64) before its index, ~c when negative, c % bits.
class v2_sequence {
 public:
  constexpr v2_sequence() noexcept = default;
  constexpr v2_sequence(hash_pair h, std::uint64_t bits) noexcept
      : c_(static_cast<std::uint64_t>(static_cast<std::int64_t>(h.h1) * 0x7fffffff)),
        step_(static_cast<std::uint64_t>(static_cast<std::int64_t>(h.h2))),
        bits_(bits) {}
  constexpr std::uint64_t next() noexcept {
    c_ += step_;
    auto x = static_cast<std::int64_t>(c_);
    if (x < 0) x = ~x;
    return static_cast<std::uint64_t>(x) % bits_;
  }

 private:
  std::uint64_t c_ = 0;
  std::uint64_t step_ = 0;
  std::uint64_t bits_ = 1;
};

// BloomFilter.create(n, p)'s sizing: numBits = (long) (-n ln p / (ln 2)^2) (optimalNumOfBits),
// then params_for_bits(n, numBits). Throws errc::invalid_argument for n = 0 or p outside (0, 1)
// (Spark refuses both), errc::too_large past Spark's or bloomkit's limits.
filter_params optimal_params(std::uint64_t n, double p);
// BloomFilter.create(n, numBits): k = max(1, (int) round(numBits / n * ln 2)) from the requested
// numBits, and 64 * ceil(numBits / 64) bits. Throws errc::invalid_argument for n or numBits 0.
filter_params params_for_bits(std::uint64_t n, std::uint64_t num_bits);
// Spark's limits: bits a positive multiple of 64, at most max_words words; k >= 1 (and bloomkit's
// max_hashes). Throws errc::invalid_argument otherwise.
void check_params(std::uint64_t bits, std::uint32_t hashes);

// Both versions size and limit filters as Spark's create() does.
struct spark_sizing {
  static filter_params optimal_params(std::uint64_t n, double p) {
    return spark::optimal_params(n, p);
  }
  static void check_params(std::uint64_t bits, std::uint32_t hashes) {
    spark::check_params(bits, hashes);
  }
};

struct v1_policy : probe_policy<hash_scheme::spark_v1, hash_pair, v1_sequence, hash_pair_seed_0>,
                   spark_sizing {
  static constexpr version format_version = version::v1;
  // The textbook figures over the bits V1 can reach, min(bits, 2^31): honest for V1 filters past
  // 2^31 bits (whose keys all land in the first 2^31), the textbook ones below.
  static double fpp(std::uint64_t bits, std::uint32_t hashes, std::uint64_t n);
  static double fpp_at_fill(std::uint64_t bits, std::uint32_t hashes, double fill) noexcept;
};

// Hashes with seed 0 when used by itself (basic_bloom_filter<v2_policy>); v2_filter
// (spark_v2_filter.hpp) hashes with its own seed.
struct v2_policy : probe_policy<hash_scheme::spark_v2, hash_pair, v2_sequence, hash_pair_seed_0>,
                   spark_sizing {
  static constexpr version format_version = version::v2;
};

}  // namespace bloomkit::spark
