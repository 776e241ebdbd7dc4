#pragma once
// The sharded layout of a Redis filter (hash scheme `sharded_scheme`, docs/REDIS.md).
//
// A filter of m bits is cut into `shard_count` equal shards of `shard_bits` bits, each a Redis
// string of its own, so the total size is not bounded by Redis's 2^32-bit string limit. All k
// probes of a key fall into ONE shard, so one BITFIELD command sets or tests a key atomically.
//
// For a key with XXH3-128 digest (h1, h2):
//   shard     = reduce_range((low32(h1) << 32) | low32(h2), shard_count)
//   probe i   = the native xxh3_128 probe i over shard_bits bits (hashing.hpp)
// The native probes take multiply-high of h1 + i*h2 + (i^3 - i)/6, which reads the high bits
// of the sum; the low 32 bits of h1 and h2 reach those only through carries, so the shard and
// the in-shard positions are (practically) independent. With one shard the layout is exactly
// the native classic filter over m bits: a native file of at most 2^32 bits is a 1-shard filter.
//
// Bit numbering: in-shard bit i is Redis bit offset i (BITFIELD u1 at #i, SETBIT i), which Redis
// stores MSB-first in byte i / 8; local bit arrays (bit_array.hpp) store it LSB-first. Transfers
// between the two reverse the bits of every byte (reverse_bits_in_bytes).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "bloomkit/hashing.hpp"
#include "bloomkit/sizing.hpp"

namespace bloomkit::redis {

// The hash scheme of this layout, in N:meta and in the files `pull` writes of filters of more
// than one shard (docs/FORMAT.md, scheme 20): xxh3_128 probes inside one of several equal
// shards, the shard chosen from the low halves of the digest. With one shard it is exactly
// xxh3_128 (and pulls as a native file).
inline constexpr hash_scheme sharded_scheme = hash_scheme::redis_sharded_xxh3;

// Shard sizes are 2^min_shard_bits_log2 .. 2^max_shard_bits_log2 bits (the upper bound is
// Redis's string limit, 512 MiB).
inline constexpr unsigned min_shard_bits_log2 = 10;
inline constexpr unsigned max_shard_bits_log2 = 32;
inline constexpr unsigned default_shard_bits_log2 = 27;  // 16 MiB shards

struct shard_layout {
  std::uint64_t shard_bits = 0;   // bits per shard
  std::uint64_t shard_count = 0;  // shards
  std::uint32_t hashes = 0;       // k

  // m bits and k hashes in shards of at most 2^max_bits_log2 bits: one shard of exactly m bits
  // when m fits, else the fewest equal shards, each a multiple of 64 bits (so a local mirror
  // holds them as whole words), together at least m bits. Throws errc::invalid_argument for a
  // max_bits_log2 outside [min_shard_bits_log2, max_shard_bits_log2] and validate_params' errors.
  static shard_layout for_bits(std::uint64_t bits, std::uint32_t hashes, unsigned max_bits_log2);
  // The layout create(n, p, B) gives: classic sizing (sizing.hpp, optimal_params), then
  // for_bits; with more than one shard, more bits when the uneven (binomial) loads of the shards
  // would take the exact FPP past p (exact_fpp_in_parts: small shards, 2^10 bits, hold ~100
  // keys each at p = 1%, whose loads vary by 10%).
  static shard_layout for_capacity(std::uint64_t capacity, double fpp, unsigned max_bits_log2);
  // The first inconsistency of a layout read from somewhere (Redis meta, a file header), or ""
  // when it is valid; the reader names its source in its own error.
  std::string inconsistency() const;

  std::uint64_t total_bits() const noexcept { return shard_bits * shard_count; }
  // Bytes of one shard's bits (what push and pull transfer).
  std::uint64_t shard_bytes() const noexcept { return (shard_bits + 7) / 8; }

  // The guard bit: the last bit of a shard's Redis string, past every bit a probe can reach (a
  // spare bit of the last byte, or one more byte when the bits fill whole bytes). Create sets
  // it; nothing else writes it. It reads 0 when the shard is missing, short, or was just made
  // by a write (BITFIELD SET creates a missing key): lookups read it in the same command as
  // their probes and refuse to answer without it (docs/REDIS.md, "Missing shards").
  std::uint64_t guard_bit() const noexcept { return guarded_bytes() * 8 - 1; }
  // Bytes of a shard's Redis string with its guard bit.
  std::uint64_t guarded_bytes() const noexcept { return shard_bits / 8 + 1; }
  // Whether the guard bit fits (Redis bit offsets stop at 2^32 - 1): not for shards of 2^32
  // bits, whose filters are checked by string length instead.
  bool has_guard_room() const noexcept { return guard_bit() < (std::uint64_t{1} << 32); }

  std::uint64_t shard_of(const digest128& d) const noexcept {
    if (shard_count == 1) return 0;
    const std::uint64_t low_bits = (d.low << 32) | (d.high & 0xffffffffu);
    return reduce_range(low_bits, shard_count);
  }
  // Writes the k in-shard offsets of the key to out[0..k).
  void offsets(const digest128& d, std::uint64_t* out) const noexcept {
    probe_sequence seq(d, shard_bits);
    for (std::uint32_t i = 0; i < hashes; ++i) out[i] = seq.next();
  }

  friend bool operator==(const shard_layout&, const shard_layout&) = default;
};

// Reverses the bit order inside every byte (Redis MSB-first <-> bit_array LSB-first).
void reverse_bits_in_bytes(std::span<unsigned char> bytes) noexcept;

}  // namespace bloomkit::redis
