#pragma once
// Key hashing and probe sequences.
//
// Native scheme (hash_scheme::xxh3_128): XXH3-128 of the key bytes gives two 64-bit halves
// h1 (low) and h2 (high). Probe i is the enhanced double hash
//   g(i) = h1 + i*h2 + (i^3 - i)/6   (mod 2^64)
// (Dillinger & Manolios, 2004), mapped to [0, m) by multiply-high: (g * m) >> 64, which spreads
// the full 64-bit range over m without the bias or cost of '%'.
// The cubic term was designed for reduction modulo m, where it keeps probes apart when h2 shares
// a factor with m. Under multiply-high it does not: it moves probe i by (i^3 - i)/6 * m / 2^64
// bits, less than one bit unless m k^3 > 6 * 2^64 (never for m <= 2^40 and k <= 64), so two
// probes i < j share a bit about when (j - i) h2 mod 2^64 is within 2^64 / m of 0, whatever
// the cubic term (src/core/distinct_probes.hpp counts exactly that; HashingTest
// CubicTermDoesNotSeparateProbesUnderMultiplyHigh shows it). It stays because the probes, and
// so the bits of every file, are defined with it.
// The iterative form: x = h1, y = h2; each step x += y, y += i.

#include <concepts>
#include <cstdint>
#include <string_view>

#include "bloomkit/detail/multiply_high.hpp"
#include "bloomkit/sizing.hpp"

namespace bloomkit {

// A hash scheme is recorded in files and Redis metadata; a value never changes meaning.
enum class hash_scheme : std::uint32_t {
  xxh3_128 = 1,  // XXH3-128, enhanced double hashing, multiply-high range reduction
  // XXH3-64; block = multiply-high of the digest, 8 bits from its low 32 bits by salted
  // multiplies (blocked_bloom_filter.hpp)
  xxh3_64_split_block = 2,
  // Window filters of grouped words (window_filter.hpp): XXH3-128; group = multiply-high of the
  // high half, k bits of one word from the low half (detail::word_mask).
  xxh3_128_window_groups = 3,
  // Static filters (static_filter.hpp): XXH3-64 h of the key; shard = the top s bits of h; in a
  // shard of seed z, x = murmur3's fmix64(h + z), and the three cells of a 3-wise binary fuse
  // table: segment multiply-high(x, segments), offsets x, x >> 18, x >> 36
  // (detail/binary_fuse.hpp); fingerprint the low b bits of h.
  xxh3_64_binary_fuse = 4,
  // Cuckoo filters (cuckoo_filter.hpp): XXH3-64 h of the key; in a table of m buckets and f-bit
  // fingerprints, fp = 1 + multiply-high(low 32 bits of h, 2^f - 1), bucket multiply-high(h, m),
  // alternate (multiply-high(fmix64(fp), m) - bucket) mod m.
  xxh3_64_cuckoo = 5,
  // Integer keys (key_type::int64; key_type.hpp widens every integer type to 64 bits): the
  // digests are SplitMix64's outputs seeded with the key x (splitmix64_digest below), a
  // bijection of 64 bits, so distinct keys never share a digest.
  // Blocked: digest h = splitmix64_digest(x), then the split-block (or line) rule of scheme 2.
  splitmix64_split_block = 6,
  // Classic and counting: low = splitmix64_digest(x), high = splitmix64_digest(x + golden), then
  // the enhanced double hashing of scheme 1.
  splitmix64_128 = 7,
  // 8 and 9 are reserved for integer schemes.
  // Interop schemes: other systems' probes, reproduced exactly (compat/*.hpp, docs/INTEROP.md).
  guava_murmur128_mitz_32 = 10,  // Guava BloomFilterStrategies.MURMUR128_MITZ_32
  guava_murmur128_mitz_64 = 11,  // Guava BloomFilterStrategies.MURMUR128_MITZ_64
  bits_and_blooms_v3 = 12,       // github.com/bits-and-blooms/bloom/v3
  go_zero = 13,                  // go-zero core/bloom (k = 14)
  // RedisBloom's scalable chain (compat/redisbloom.hpp): MurmurHash64A pairs, or MurmurHash2
  // pairs for chains without its 64-bit option; (a + i*b) modulo or masked per link.
  redisbloom = 14,
  // The same chain hashed as bloomkit's module keys (type bkbloom--) are: a = low and b = high
  // (made odd) half of XXH3-128; (a + i*b) modulo each link's bits.
  redisbloom_xxh3 = 15,
  // Apache Spark's BloomFilter (compat/spark.hpp): h1 = Spark's murmur3_x86_32 (seed), h2 = the
  // same seeded with h1. V1: seed 0, (h1 + i*h2) in 32 bits, i = 1..k; V2: the header's seed,
  // h1 * (2^31 - 1) + i*h2 in 64 bits, i = 1..k; ~c when negative, then c % bits.
  spark_v1 = 16,
  spark_v2 = 17,
  // Files pulled from a sharded Redis filter; the Redis layer defines it (redis/shard_layout.hpp).
  redis_sharded_xxh3 = 20,
};

std::string_view to_string(hash_scheme scheme) noexcept;
bool is_known(hash_scheme scheme) noexcept;

struct digest128 {
  std::uint64_t low = 0;
  std::uint64_t high = 0;
  friend bool operator==(const digest128&, const digest128&) = default;
};

// XXH3-128 (seed 0) of the key bytes.
digest128 xxh3_128(std::string_view key) noexcept;
// XXH3-64 (seed 0) of the key bytes.
std::uint64_t xxh3_64(std::string_view key) noexcept;

// Whether `scheme` hashes integer keys (key_type::int64) by their value.
constexpr bool is_integer_scheme(hash_scheme scheme) noexcept {
  return scheme == hash_scheme::splitmix64_split_block || scheme == hash_scheme::splitmix64_128;
}

// The integer schemes' mixer: the output function of SplitMix64 (Steele, Lea & Flood, 2014;
// Stafford's "Mix13" constants), two multiplies and three xor-shifts, a bijection of 64 bits
// whose output bits each flip with probability close to 1/2 when one input bit flips (better
// avalanche than murmur3's fmix64 at the same cost).
inline constexpr std::uint64_t splitmix64_golden = 0x9e3779b97f4a7c15;
constexpr std::uint64_t splitmix64_mix(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
  z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
  return z ^ (z >> 31);
}
// The first output of SplitMix64 seeded with x: mix(x + golden) (0 is no fixed point).
constexpr std::uint64_t splitmix64_digest(std::uint64_t x) noexcept {
  return splitmix64_mix(x + splitmix64_golden);
}
// The digest of integer key x under splitmix64_128: SplitMix64's first two outputs from seed x.
constexpr digest128 splitmix64_digest128(std::uint64_t x) noexcept {
  return {splitmix64_digest(x), splitmix64_digest(x + splitmix64_golden)};
}

// Maps a uniform 64-bit value to [0, range) by multiply-high (Lemire, 2016).
constexpr std::uint64_t reduce_range(std::uint64_t x, std::uint64_t range) noexcept {
  return detail::multiply_high(x, range);
}

// Walks the bit indices of one key in a filter of `bits` bits.
class probe_sequence {
 public:
  constexpr probe_sequence() noexcept = default;
  constexpr probe_sequence(digest128 d, std::uint64_t bits) noexcept
      : x_(d.low), y_(d.high), bits_(bits) {}
  // The next bit index in [0, bits).
  constexpr std::uint64_t next() noexcept {
    const std::uint64_t index = reduce_range(x_, bits_);
    x_ += y_;
    y_ += ++step_;
    return index;
  }

 private:
  std::uint64_t x_ = 0;
  std::uint64_t y_ = 0;
  std::uint64_t bits_ = 0;
  std::uint64_t step_ = 0;
};

// The probes of schemes whose i-th bit is Location(digest, i) % bits (the peers' Go filters).
template <class Digest, std::uint64_t (*Location)(const Digest&, std::uint64_t) noexcept>
class indexed_probe_sequence {
 public:
  constexpr indexed_probe_sequence() noexcept = default;
  constexpr indexed_probe_sequence(const Digest& h, std::uint64_t bits) noexcept
      : h_(h), bits_(bits) {}
  constexpr std::uint64_t next() noexcept { return Location(h_, i_++) % bits_; }

 private:
  Digest h_{};
  std::uint64_t bits_ = 1;
  std::uint64_t i_ = 0;
};

// What every probe policy has: its scheme, its digest of a key, and the probe sequence of a
// digest in a filter of `bits` bits. Policies derive from it and add their own sizing and limits.
template <hash_scheme Scheme, class Digest, class Sequence,
          Digest (*Hash)(std::string_view) noexcept>
struct probe_policy {
  static constexpr hash_scheme scheme = Scheme;
  using digest_type = Digest;
  using sequence_type = Sequence;
  static digest_type hash(std::string_view key) noexcept { return Hash(key); }
  static constexpr sequence_type probes(const digest_type& d, std::uint64_t bits) noexcept {
    return sequence_type(d, bits);
  }
};

// The probe policy of the native scheme. A policy gives the classic filter its digest and its
// probe sequence; interop schemes plug in their own policies. A policy may also have
//   static filter_params optimal_params(std::uint64_t n, double p);  // its own sizing
//   static void check_params(std::uint64_t bits, std::uint32_t hashes);  // its own limits
//   static double fpp(std::uint64_t bits, std::uint32_t hashes, std::uint64_t n);  // FPP at n
//   static double fpp_at_fill(std::uint64_t bits, std::uint32_t hashes, double fill) noexcept;
// which basic_bloom_filter then uses in for_capacity(), its constructors and estimated_fpp()
// (without fpp figures it takes the textbook ones: expected_fpp and fill^k, sizing.hpp).
struct xxh3_probe_policy
    : probe_policy<hash_scheme::xxh3_128, digest128, probe_sequence, xxh3_128> {
  // Integer keys (key_type::int64): the same probes from the integer scheme's digest. A policy
  // without these (the peers') takes integers only as their bytes.
  static constexpr hash_scheme integer_scheme = hash_scheme::splitmix64_128;
  static constexpr digest128 hash_integer(std::uint64_t x) noexcept {
    return splitmix64_digest128(x);
  }
  // The exact figures of these probes, whose positions can coincide in small filters.
  static double fpp(std::uint64_t bits, std::uint32_t hashes, std::uint64_t n) {
    return exact_fpp(bits, hashes, n);
  }
  static double fpp_at_fill(std::uint64_t bits, std::uint32_t hashes, double fill) noexcept {
    return bloomkit::fpp_at_fill(bits, hashes, fill);
  }
};

// The probe policy of the blocked filter (hash_scheme::xxh3_64_split_block): the digest is
// XXH3-64 of the key; the split-block storage (storage.hpp) takes its block and its eight bits
// from it.
struct xxh3_split_block_policy {
  static constexpr hash_scheme scheme = hash_scheme::xxh3_64_split_block;
  using digest_type = std::uint64_t;
  static digest_type hash(std::string_view key) noexcept { return xxh3_64(key); }
  static constexpr hash_scheme integer_scheme = hash_scheme::splitmix64_split_block;
  static constexpr digest_type hash_integer(std::uint64_t x) noexcept {
    return splitmix64_digest(x);
  }
};

// Whether Probe has an integer scheme (integer_scheme, hash_integer).
template <class Probe>
concept integer_probe_policy = requires(std::uint64_t x) {
  { Probe::hash_integer(x) } -> std::same_as<typename Probe::digest_type>;
  Probe::integer_scheme;
};

}  // namespace bloomkit
