#pragma once
// Internal: the hot paths of a cuckoo table (cuckoo_filter.hpp says the hashing and layout): a
// key's place in a table, a bucket read with one unaligned 128-bit load, and its slots tested
// all at once (SWAR: lanes of f bits, no gap between them).

#include <bit>
#include <cstdint>
#include <cstring>

#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit/detail/binary_fuse.hpp"
#include "bloomkit/detail/multiply_high.hpp"

namespace bloomkit {

__extension__ using cuckoo_lanes = unsigned __int128;

// Where a key goes in one table.
struct cuckoo_place {
  std::uint64_t first = 0;   // i1
  std::uint64_t second = 0;  // i2
  std::uint32_t fingerprint = 0;
};

// A table's geometry with the constants of its SWAR tests.
struct cuckoo_geometry {
  std::uint64_t buckets = 0;
  std::uint32_t bucket_size = 0;
  std::uint32_t bits = 0;         // f
  std::uint64_t bucket_bits = 0;  // b f
  cuckoo_lanes ones = 0;          // bit 0 of every lane
  cuckoo_lanes highs = 0;         // bit f - 1 of every lane
  std::uint64_t slot_mask = 0;    // 2^f - 1
  // Table 0 of its chain: m_0, f_0, and span = m / m_0 (E^L; 1 in table 0).
  std::uint64_t first_buckets = 0;
  std::uint32_t first_bits = 0;
  std::uint64_t span = 1;

  cuckoo_geometry() = default;
  cuckoo_geometry(std::uint64_t m, std::uint32_t b, std::uint32_t f, std::uint64_t m0,
                  std::uint32_t f0) noexcept
      : buckets(m),
        bucket_size(b),
        bits(f),
        bucket_bits(std::uint64_t{b} * f),
        slot_mask((std::uint64_t{1} << f) - 1),
        first_buckets(m0),
        first_bits(f0),
        span(m / m0) {
    for (std::uint32_t j = 0; j < b; ++j) ones |= cuckoo_lanes{1} << (j * f);
    highs = ones << (f - 1);
  }

  std::uint32_t fingerprint(std::uint64_t h) const noexcept {
    const auto top = static_cast<std::uint32_t>((h & 0xffffffffU) >> (32 - bits));
    return top > 1 ? top : 1;
  }
  // m_0 multiply-high(x, m_0)-wide steps, and in table L its digit x' mod E^L above them, so
  // that a position modulo an earlier table's m is the position there.
  std::uint64_t position(std::uint64_t x) const noexcept {
    const std::uint64_t low = detail::multiply_high(x, first_buckets);
    if (span == 1) return low;
    return low + first_buckets * (detail::fuse_mix(x) % span);
  }
  // The other bucket of a fingerprint in bucket i: (g(fp_0) - i) mod m, an involution.
  std::uint64_t alternate(std::uint64_t i, std::uint32_t fp) const noexcept {
    std::uint32_t first = fp >> (bits - first_bits);
    first = first > 1 ? first : 1;
    const std::uint64_t g = position(detail::fuse_mix(first));
    return g >= i ? g - i : g + buckets - i;
  }
  cuckoo_place place(std::uint64_t h) const noexcept {
    const std::uint32_t fp = fingerprint(h);
    const std::uint64_t first = position(h);
    return {first, alternate(first, fp), fp};
  }

  // Bucket i's slots as lanes (bits past b f are the next bucket's: the tests ignore them).
  static cuckoo_lanes load(const unsigned char* table, std::uint64_t bit) noexcept {
    std::uint64_t lo, hi;
    std::memcpy(&lo, table + bit / 8, 8);
    std::memcpy(&hi, table + bit / 8 + 8, 8);
    return ((cuckoo_lanes{hi} << 64) | lo) >> (bit % 8);
  }
  cuckoo_lanes bucket(const unsigned char* table, std::uint64_t i) const noexcept {
    return load(table, i * bucket_bits);
  }
  // The lanes of `lanes` equal to fp: bit f - 1 of the lowest such lane is set (exact for the
  // lowest; lanes above it may be marked spuriously by its borrow).
  cuckoo_lanes matches(cuckoo_lanes lanes, std::uint32_t fp) const noexcept {
    const cuckoo_lanes x = lanes ^ (ones * fp);
    return (x - ones) & ~x & highs;
  }
  bool holds(const unsigned char* table, std::uint64_t i, std::uint32_t fp) const noexcept {
    return matches(bucket(table, i), fp) != 0;
  }
  // The index of the lowest slot of bucket i holding fp (0 for an empty one), or b if none.
  std::uint32_t find(const unsigned char* table, std::uint64_t i, std::uint32_t fp) const noexcept {
    const cuckoo_lanes m = matches(bucket(table, i), fp);
    if (m == 0) return bucket_size;
    const auto lo = static_cast<std::uint64_t>(m);
    const int bit =
        lo != 0 ? std::countr_zero(lo) : 64 + std::countr_zero(static_cast<std::uint64_t>(m >> 64));
    return static_cast<std::uint32_t>(bit) / bits;
  }
  // Slots of bucket i holding fp.
  std::uint32_t count(const unsigned char* table, std::uint64_t i,
                      std::uint32_t fp) const noexcept {
    const cuckoo_lanes lanes = bucket(table, i);
    std::uint32_t n = 0;
    for (std::uint32_t j = 0; j < bucket_size; ++j) {
      n += static_cast<std::uint64_t>(lanes >> (j * bits) & slot_mask) == fp;
    }
    return n;
  }
  std::uint32_t get(const unsigned char* table, std::uint64_t i, std::uint32_t j) const noexcept {
    std::uint64_t word;
    const std::uint64_t bit = i * bucket_bits + std::uint64_t{j} * bits;
    std::memcpy(&word, table + bit / 8, 8);
    return static_cast<std::uint32_t>((word >> (bit % 8)) & slot_mask);
  }
  // Slot j of bucket i := fp (f + 7 <= 39 bits: one 64-bit read-modify-write).
  void set(unsigned char* table, std::uint64_t i, std::uint32_t j,
           std::uint32_t fp) const noexcept {
    std::uint64_t word;
    const std::uint64_t bit = i * bucket_bits + std::uint64_t{j} * bits;
    std::memcpy(&word, table + bit / 8, 8);
    const unsigned shift = bit % 8;
    word = (word & ~(slot_mask << shift)) | (std::uint64_t{fp} << shift);
    std::memcpy(table + bit / 8, &word, 8);
  }
  // Bucket i's first byte (for prefetches).
  const unsigned char* address(const unsigned char* table, std::uint64_t i) const noexcept {
    return table + i * bucket_bits / 8;
  }
};

// The words of a table as bytes (they are little-endian words: byte k is bits 8k..8k+7).
struct cuckoo_table_access {
  static const unsigned char* bytes(const cuckoo_table& t) noexcept {
    return reinterpret_cast<const unsigned char*>(t.words_.data());
  }
  static unsigned char* mutable_bytes(cuckoo_table& t) {
    return reinterpret_cast<unsigned char*>(t.words_.mutable_words().data());
  }
  static cuckoo_geometry geometry(const cuckoo_table& t) noexcept {
    return {t.buckets_, t.bucket_size_, t.fingerprint_bits_, t.first_buckets_, t.first_bits_};
  }
  static std::uint64_t& items(cuckoo_table& t) noexcept { return t.items_; }
};

}  // namespace bloomkit

namespace bloomkit {

// Stores fp in one of its buckets in table t, moving others' fingerprints to their alternates up
// to max_kicks times (victims chosen by the xorshift `rng`); when that fails, undoes the moves and
// returns false, t as it was (src/kinds/cuckoo_table.cpp).
bool cuckoo_store(cuckoo_table& t, const cuckoo_place& at, std::uint32_t max_kicks,
                  std::uint64_t& rng);
// Clears one slot of t holding at's fingerprint in its buckets (the second first); false if none.
bool cuckoo_erase(cuckoo_table& t, const cuckoo_place& at);

}  // namespace bloomkit
