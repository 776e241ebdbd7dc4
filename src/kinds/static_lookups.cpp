// static_filter's batched lookups. A key reads three cells in three lines: its own loop rather
// than core/filter_pipeline.hpp's, so that
// - a key's three cells are found once, as the three bytes their 64-bit loads start at and the
//   shifts of the cells in them (the test reuses what the prefetch computed);
// - the lines of `lag` keys ahead are in flight: 3 * lag misses, a longer lag than the one-line
//   kinds' (measured in bench/static_variants --paired, bench/RESULTS.md);
// - a filter of one shard reads its table and seed from registers, not the shard table;
// - a filter small enough to stay in cache takes the plain loop (prefetches only cost there);
// - a mapped file is checked once per batch.

#include <cstring>

#include "bloomkit/detail/result_slots.hpp"
#include "bloomkit/detail/word_access.hpp"
#include "bloomkit/static_filter.hpp"

namespace bloomkit {

namespace {

// Keys of lookahead (3 lines each). bench/static_variants --paired, n = 1e7, b = 8, batched by
// hash: lag 16 12.5 ns, 32 11.9 ns, 64 12.6 ns per hit (issue 32 found 32-64 beat 16 in DRAM).
constexpr std::size_t lookup_lag = 32;
// Up to this size the plain loop: at n = 1e5 (113 kB) 4.6 against 5.2 ns pipelined, at 1e6
// (1.1 MB) the same 5.3-5.7 either way; past the 2 MB L2 the prefetches pay.
constexpr std::size_t in_cache_bytes = std::size_t{1} << 20;

// Where one key's cells are: the byte each cell's 64-bit load starts at and the cell's shift in
// it, and the value they XOR to when the key is present.
struct probe {
  const unsigned char* at[3];
  std::uint8_t shift[3];
  std::uint32_t fingerprint;
};

// The shards of a filter as its lookups read them.
struct shard_reader {
  const static_shard* shards;
  std::uint32_t shard_bits;
  std::uint32_t bits;
  std::uint64_t mask;

  [[gnu::always_inline]] void locate(const static_shard& shard, std::uint64_t h,
                                     probe& p) const noexcept {
    const auto cells = shard.cells_of(h);
    const unsigned char* bytes = shard.bytes().data();
    for (int j = 0; j < 3; ++j) {
      const std::uint64_t bit = cells[j] * bits;
      p.at[j] = bytes + (bit >> 3);
      p.shift[j] = static_cast<std::uint8_t>(bit & 7);
    }
    p.fingerprint = static_cast<std::uint32_t>(h & mask);
  }
  [[gnu::always_inline]] static void prefetch(const probe& p) noexcept {
    for (const unsigned char* at : p.at) detail::prefetch_read(at);
  }
  [[gnu::always_inline]] bool test(const probe& p) const noexcept {
    std::uint64_t w[3];
    for (int j = 0; j < 3; ++j) {
      std::memcpy(&w[j], p.at[j], sizeof w[j]);  // little-endian hosts only (DESIGN.md)
      w[j] >>= p.shift[j];
    }
    return ((w[0] ^ w[1] ^ w[2]) & mask) == p.fingerprint;
  }
};

// results[i] = whether hash_at(i) is present; `shard_of(h)` picks its shard.
template <class HashAt, class ShardOf>
std::size_t lookup_loop(const shard_reader& r, std::size_t n, HashAt hash_at, ShardOf shard_of,
                        bool* results, bool pipelined) {
  std::size_t present = 0;
  if (!pipelined) {
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t h = hash_at(i);
      probe p;
      r.locate(shard_of(h), h, p);
      const bool hit = r.test(p);
      results[i] = hit;
      present += hit;
    }
    return present;
  }
  constexpr std::size_t ring = 64;  // a power of two above the lag
  constexpr std::size_t lag = lookup_lag;
  static_assert(lag < ring);
  probe probes[ring];
  std::size_t i = 0;
  for (; i < n && i < lag; ++i) {
    const std::uint64_t h = hash_at(i);
    r.locate(shard_of(h), h, probes[i % ring]);
    r.prefetch(probes[i % ring]);
  }
  for (; i < n; ++i) {
    const std::uint64_t h = hash_at(i);
    probe& ahead = probes[i % ring];
    r.locate(shard_of(h), h, ahead);
    r.prefetch(ahead);
    const std::size_t j = i - lag;
    const bool hit = r.test(probes[j % ring]);
    results[j] = hit;
    present += hit;
  }
  for (std::size_t j = n > lag ? n - lag : 0; j < n; ++j) {
    const bool hit = r.test(probes[j % ring]);
    results[j] = hit;
    present += hit;
  }
  return present;
}

template <class HashAt>
std::size_t lookup_all(const static_filter& f, std::size_t n, HashAt hash_at, bool* results) {
  const shard_reader r{f.shards().data(), f.shard_bits(), f.fingerprint_bits(),
                       (std::uint64_t{1} << f.fingerprint_bits()) - 1};
  const bool pipelined = f.byte_size() > in_cache_bytes;
  if (f.shard_bits() == 0) {
    const static_shard& only = f.shards().front();
    return lookup_loop(
        r, n, hash_at, [&](std::uint64_t) -> const static_shard& { return only; }, results,
        pipelined);
  }
  const std::uint32_t s = f.shard_bits();
  const static_shard* shards = f.shards().data();
  return lookup_loop(
      r, n, hash_at, [=](std::uint64_t h) -> const static_shard& { return shards[h >> (64 - s)]; },
      results, pipelined);
}

}  // namespace

std::size_t static_filter::contains_many(std::span<const std::string_view> keys,
                                         std::span<bool> results) const {
  detail::require_result_slots(keys.size(), results.size());
  const std::size_t present = lookup_all(
      *this, keys.size(), [&](std::size_t i) { return xxh3_64(keys[i]); }, results.data());
  check_source();
  return present;
}

std::size_t static_filter::contains_many(std::span<const std::uint64_t> hashes,
                                         std::span<bool> results) const {
  detail::require_result_slots(hashes.size(), results.size());
  const std::size_t present = lookup_all(
      *this, hashes.size(), [&](std::size_t i) { return hashes[i]; }, results.data());
  check_source();
  return present;
}

}  // namespace bloomkit
