#pragma once
// The native hash schemes as docs/FORMAT.md states them, written from the document alone (only
// libxxhash, nothing of bloomkit): the oracle of the golden vectors (tests/data/golden). The
// library computes the same positions its own way; the golden test checks that both agree with
// the committed vectors, so a change to either side is caught.

#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace bloomkit::golden {

// Scheme 1 (xxh3-128): h1 = low, h2 = high 64 bits of XXH3-128 (seed 0) of the key bytes.
struct digest_pair {
  std::uint64_t h1 = 0;
  std::uint64_t h2 = 0;
};

inline digest_pair xxh3_128_of(std::string_view key) {
  const XXH128_hash_t h = XXH3_128bits(key.data(), key.size());
  return {h.low64, h.high64};
}

// floor(x * range / 2^64).
inline std::uint64_t multiply_high(std::uint64_t x, std::uint64_t range) {
  __extension__ using u128 = unsigned __int128;
  return static_cast<std::uint64_t>((static_cast<u128>(x) * range) >> 64);
}

// Scheme 1: g_i = h1 + i*h2 + (i^3 - i)/6 mod 2^64, before the range reduction. (In a filter of
// m bits the cubic term moves floor(g_i * m / 2^64) only when it crosses a multiple of 2^64 / m:
// rarely, so the vectors also hold the g_i themselves.)
inline std::vector<std::uint64_t> xxh3_128_probe_values(digest_pair d, std::uint32_t k) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t i = 0; i < k; ++i) out.push_back(d.h1 + i * d.h2 + (i * i * i - i) / 6);
  return out;
}

// Scheme 1: probe i sets bit floor(g_i * m / 2^64). Counting filters (kind 3) use the same
// indices as counter indices.
inline std::vector<std::uint64_t> xxh3_128_positions(digest_pair d, std::uint64_t m,
                                                     std::uint32_t k) {
  std::vector<std::uint64_t> out;
  for (auto g : xxh3_128_probe_values(d, k)) out.push_back(multiply_high(g, m));
  return out;
}

// Scheme 2 (xxh3-64-split-block): h = XXH3-64 (seed 0); block floor(h * B / 2^64) of B = m / 256;
// in word w of it, bit floor(((h mod 2^32) * salt_w mod 2^32) / 2^27).
inline constexpr std::array<std::uint32_t, 8> split_block_salts = {
    0x47b6137bU, 0x44974d91U, 0x8824ad5bU, 0xa2b7289dU,
    0x705495c7U, 0x2df1424bU, 0x9efc4947U, 0x5c6bfb31U};

inline std::uint64_t xxh3_64_of(std::string_view key) {
  return XXH3_64bits(key.data(), key.size());
}

inline std::uint64_t split_block_of(std::uint64_t h, std::uint64_t m) {
  return multiply_high(h, m / 256);
}

// The eight filter bit indices, word 0 first: 256 * block + 32 * w + bit_w.
inline std::vector<std::uint64_t> split_block_positions(std::uint64_t h, std::uint64_t m) {
  const std::uint64_t block = split_block_of(h, m);
  const auto h32 = static_cast<std::uint32_t>(h);
  std::vector<std::uint64_t> out;
  for (std::uint64_t w = 0; w < 8; ++w) {
    const std::uint32_t bit = static_cast<std::uint32_t>(h32 * split_block_salts[w]) >> 27;
    out.push_back(256 * block + 32 * w + bit);
  }
  return out;
}

// Scheme 20 (redis-sharded-xxh3): c shards of s = m / c bits; shard floor(v * c / 2^64) with
// v = (h1 mod 2^32) * 2^32 + (h2 mod 2^32); probe i at j*s + the scheme-1 probe i over s bits.
inline std::uint64_t shard_of(digest_pair d, std::uint64_t shards) {
  const std::uint64_t v = (d.h1 << 32) | (d.h2 & 0xffffffffU);
  return multiply_high(v, shards);
}

inline std::vector<std::uint64_t> sharded_positions(digest_pair d, std::uint64_t m, std::uint32_t k,
                                                    std::uint64_t shards) {
  const std::uint64_t s = m / shards;
  const std::uint64_t j = shard_of(d, shards);
  std::vector<std::uint64_t> out = xxh3_128_positions(d, s, k);
  for (auto& p : out) p += j * s;
  return out;
}

// Scheme 3 (xxh3-128-window-groups), a window of S slices: groups of G = 64 ceil(14 (S + 1) / 64)
// bytes, slot j's word at byte j wb, wb = min(32, floor(G / (S + 1))), w = 8 wb bits; B = m / (8 G)
// groups. A key's group is floor(h2 * B / 2^64); its bits: one in each of k fields of
// F = floor(w / k) bits, field j's from the 16-bit chunk j % 4 of v_{j / 4} (v_0 = h1, v_{i+1} =
// splitmix64's step of v_i): bit j F + floor(c F / 2^16). Returned as bit indices of the group
// array (bit p of a word at byte b is bit 8 b + p), for the word of slot `slot`, field by field.
inline std::vector<std::uint64_t> window_group_positions(digest_pair d, std::uint64_t m,
                                                         std::uint64_t slices, std::uint32_t k,
                                                         std::uint64_t slot = 0) {
  const std::uint64_t group_bytes = 64 * ((14 * (slices + 1) + 63) / 64);
  const std::uint64_t word_bytes = std::min<std::uint64_t>(32, group_bytes / (slices + 1));
  const std::uint64_t groups = m / (8 * group_bytes);
  const std::uint64_t first = 8 * (multiply_high(d.h2, groups) * group_bytes + slot * word_bytes);
  const std::uint64_t field = 8 * word_bytes / k;
  std::vector<std::uint64_t> bits;
  std::uint64_t v = d.h1;
  for (std::uint32_t j = 0; j < k; ++j) {
    if (j > 0 && j % 4 == 0) {
      // splitmix64: Steele, Lea and Flood, "Fast splittable pseudorandom number generators".
      v += 0x9E3779B97F4A7C15ULL;
      v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9ULL;
      v = (v ^ (v >> 27)) * 0x94D049BB133111EBULL;
      v ^= v >> 31;
    }
    const std::uint64_t chunk = (v >> (16 * (j % 4))) & 0xFFFF;
    bits.push_back(first + j * field + (chunk * field >> 16));
  }
  return bits;
}

// Scheme 4 (xxh3-64-binary-fuse), kind 7: whether the static filter file `file` (its bytes) holds
// a key. h = XXH3-64; shard j = the top s bits of h (0 when s = 0); in shard j's entry (seed z,
// segment length L, segment count C, table offset o), x = fmix64(h + z) (murmur3's finalizer);
// cells c_i = (floor(x * C / 2^64) + i) * L + ((x >> 18 i) mod L); cell c is the b-bit
// little-endian value at bit c * b of the table; present when c_0 ^ c_1 ^ c_2 = h mod 2^b.
inline bool static_contains(const std::vector<unsigned char>& file, std::string_view key) {
  const auto u64 = [&](std::size_t at) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | file.at(at + i);
    return v;
  };
  const std::uint64_t b = u64(88), s = u64(96), payload = u64(64);
  const std::uint64_t h = XXH3_64bits(key.data(), key.size());
  const std::uint64_t shard = s == 0 ? 0 : h >> (64 - s);
  const std::size_t entry = payload + 40 * shard;
  const std::uint64_t seed = u64(entry), length = u64(entry + 16) & 0xffffffffU;
  const std::uint64_t segments = u64(entry + 16) >> 32, table = payload + u64(entry + 32);
  std::uint64_t x = h + seed;
  x = (x ^ (x >> 33)) * 0xff51afd7ed558ccdULL;
  x = (x ^ (x >> 33)) * 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  std::uint64_t xor_of_cells = 0;
  for (std::uint64_t i = 0; i < 3; ++i) {
    const std::uint64_t cell =
        (multiply_high(x, segments) + i) * length + ((x >> (18 * i)) % length);
    std::uint64_t value = 0;
    for (std::uint64_t bit = 0; bit < b; ++bit) {
      const std::uint64_t at = cell * b + bit;
      value |= static_cast<std::uint64_t>((file.at(table + at / 8) >> (at % 8)) & 1) << bit;
    }
    xor_of_cells ^= value;
  }
  return xor_of_cells == (h & ((std::uint64_t{1} << b) - 1));
}

// Whether the cuckoo filter file `file` (kind 8) holds `key`, by docs/FORMAT.md's lookup: read
// bit by bit from the bytes, with none of the library's code.
inline bool cuckoo_contains(const std::vector<unsigned char>& file, std::string_view key) {
  const auto u64 = [&](std::size_t at) {
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | file.at(at + i);
    return v;
  };
  const auto fmix64 = [](std::uint64_t x) {
    x = (x ^ (x >> 33)) * 0xff51afd7ed558ccdULL;
    x = (x ^ (x >> 33)) * 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
  };
  const std::uint64_t b = u64(88), tables = u64(112), payload = u64(64);
  const std::uint64_t h = XXH3_64bits(key.data(), key.size());
  const std::uint64_t m0 = u64(payload), f0 = u64(payload + 8) & 0xffffffffU;
  for (std::uint64_t j = 0; j < tables; ++j) {
    const std::size_t entry = payload + 40 * j;
    const std::uint64_t m = u64(entry), f = u64(entry + 8) & 0xffffffffU;
    const std::uint64_t table = payload + u64(entry + 32);
    const auto pos = [&](std::uint64_t x) {
      return multiply_high(x, m0) + m0 * (fmix64(x) % (m / m0));
    };
    const std::uint64_t fp = std::max<std::uint64_t>(1, (h & 0xffffffffU) >> (32 - f));
    const std::uint64_t first = std::max<std::uint64_t>(1, fp >> (f - f0));
    const std::uint64_t i1 = pos(h), i2 = (pos(fmix64(first)) + m - i1) % m;
    for (const std::uint64_t bucket : {i1, i2}) {
      for (std::uint64_t slot = 0; slot < b; ++slot) {
        std::uint64_t value = 0;
        for (std::uint64_t bit = 0; bit < f; ++bit) {
          const std::uint64_t at = (bucket * b + slot) * f + bit;
          value |= static_cast<std::uint64_t>((file.at(table + at / 8) >> (at % 8)) & 1) << bit;
        }
        if (value == fp) return true;
      }
    }
  }
  return false;
}

}  // namespace bloomkit::golden
