#pragma once
// Guava's BloomFilter (com.google.common.hash, tested against Guava 31.1): read and write its
// writeTo() stream, size filters as Guava does, and answer exactly as mightContain() does.
//
//   std::ifstream in("users.guava", std::ios::binary);
//   auto any = bloomkit::guava::read(in, "users.guava");          // either strategy
//   auto& f = std::get<bloomkit::guava::mitz_64_filter>(any);
//   f.contains("alice");                  // Funnels.stringFunnel(UTF_8): the UTF-8 bytes
//   f.contains(std::int64_t{-42});        // Funnels.longFunnel(): 8 little-endian bytes
//
// A Guava filter is the classic filter (bloom_filter.hpp) with Guava's probe policy: murmur3_128
// (seed 0) of the funnelled bytes, k probes reduced with '%' modulo the bit size, which is always
// a multiple of 64. Two strategies (the stream's first byte is the ordinal):
//   MURMUR128_MITZ_32 (0): h = asLong() = h1; a = (int) h, b = (int) (h >>> 32); probe i = 1..k
//     is c = a + i*b in 32-bit two's complement, c = ~c when negative, then c % bits. Only the
//     first 2^31 bits of a larger filter can ever be set.
//   MURMUR128_MITZ_64 (1): c = h1; probe i = 0..k-1 is (c & Long.MAX_VALUE) % bits, c += h2.
// See docs/INTEROP.md for what is and is not compatible.

#include <cstdint>
#include <istream>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/compat/murmur3.hpp"
#include "bloomkit/file.hpp"

namespace bloomkit::guava {

// BloomFilterStrategies' ordinals, the first byte of the stream.
enum class strategy : std::uint8_t { murmur128_mitz_32 = 0, murmur128_mitz_64 = 1 };

// Guava's limits: k is written as one unsigned byte, the word count as a Java int.
inline constexpr std::uint32_t max_hashes = 255;
inline constexpr std::uint64_t max_words = 0x7fffffff;

// Guava's create(funnel, n, p) sizing: bits = (long) (-n ln p / (ln 2)^2), rounded up to a whole
// number of 64-bit words; k = max(1, round(bits / n * ln 2)) from the unrounded bits; n = 0 is
// taken as 1. Throws errc::invalid_argument for p outside (0, 1) or a size of 0 bits, and
// errc::too_large past Guava's (or bloomkit's) limits.
filter_params optimal_params(std::uint64_t n, double p);

// Guava's limits: bits a positive multiple of 64, at most max_words words; 1 <= k <= 255.
void check_params(std::uint64_t bits, std::uint32_t hashes);

struct mitz_32_sequence {
  constexpr mitz_32_sequence() noexcept = default;
  constexpr mitz_32_sequence(std::uint64_t h1, std::uint64_t bits) noexcept
      : a_(static_cast<std::uint32_t>(h1)), b_(static_cast<std::uint32_t>(h1 >> 32)), bits_(bits) {}
  constexpr std::uint64_t next() noexcept {
    ++i_;
    // Java int arithmetic: wraps modulo 2^32.
    auto c = static_cast<std::int32_t>(a_ + i_ * b_);
    if (c < 0) c = ~c;
    return static_cast<std::uint64_t>(c) % bits_;
  }

 private:
  std::uint32_t a_ = 0;
  std::uint32_t b_ = 0;
  std::uint64_t bits_ = 1;
  std::uint32_t i_ = 0;
};

struct mitz_64_sequence {
  constexpr mitz_64_sequence() noexcept = default;
  constexpr mitz_64_sequence(digest128 d, std::uint64_t bits) noexcept
      : c_(d.low), step_(d.high), bits_(bits) {}
  constexpr std::uint64_t next() noexcept {
    const std::uint64_t index = (c_ & 0x7fffffffffffffffULL) % bits_;
    c_ += step_;
    return index;
  }

 private:
  std::uint64_t c_ = 0;
  std::uint64_t step_ = 0;
  std::uint64_t bits_ = 1;
};

// MITZ_32 hashes with asLong() of the 128-bit murmur3: its low word, h1.
inline std::uint64_t murmur3_as_long(std::string_view key) noexcept {
  return compat::murmur3_x64_128(key).low;
}

// Both strategies size and limit filters as Guava's create() does.
struct guava_sizing {
  static filter_params optimal_params(std::uint64_t n, double p) {
    return guava::optimal_params(n, p);
  }
  static void check_params(std::uint64_t bits, std::uint32_t hashes) {
    guava::check_params(bits, hashes);
  }
};

struct mitz_32_policy : probe_policy<hash_scheme::guava_murmur128_mitz_32, std::uint64_t,
                                     mitz_32_sequence, murmur3_as_long>,
                        guava_sizing {
  static constexpr strategy ordinal = strategy::murmur128_mitz_32;
};

struct mitz_64_policy : probe_policy<hash_scheme::guava_murmur128_mitz_64, digest128,
                                     mitz_64_sequence, compat::murmur3_x64_128>,
                        guava_sizing {
  static constexpr strategy ordinal = strategy::murmur128_mitz_64;
};

// for_capacity(n, p) sizes as Guava's create(funnel, n, p) does.
using mitz_32_filter = basic_bloom_filter<mitz_32_policy>;
using mitz_64_filter = basic_bloom_filter<mitz_64_policy>;  // what BloomFilter.create() makes
using any_filter = std::variant<mitz_32_filter, mitz_64_filter>;

// Decodes a writeTo() stream: strategy ordinal (1 byte), k (1 unsigned byte), word count
// (big-endian int), the words (big-endian longs). Throws errc::corrupt_file naming `source` for a
// truncated or inconsistent stream or trailing bytes, errc::unsupported for an unknown strategy.
any_filter read(std::span<const unsigned char> bytes, const std::string& source);
// Reads one stream from `in` and stops after it, as BloomFilter.readFrom() does.
any_filter read(std::istream& in, const std::string& source);

// The writeTo() stream of the filter, byte for byte what Guava writes for the same bits.
std::vector<unsigned char> write(const mitz_32_filter& filter);
std::vector<unsigned char> write(const mitz_64_filter& filter);
void write(const mitz_32_filter& filter, std::ostream& out);
void write(const mitz_64_filter& filter, std::ostream& out);

}  // namespace bloomkit::guava

namespace bloomkit {

// bloomkit filter files holding these filters: save / load / map (file.hpp), kind classic,
// scheme guava-murmur128-mitz-32 / -64, and the key type (Guava's funnel) in the header's flags.
extern template class basic_filter<guava::mitz_32_policy, bit_storage>;
extern template class basic_filter<guava::mitz_64_policy, bit_storage>;

}  // namespace bloomkit
