// static_filter's batched lookups over core/filter_pipeline.hpp. A key reads three cells in three
// lines; its location is the three bytes their 64-bit loads start at and the cells' shifts in
// them, so the test reuses what the prefetch computed. A filter of one shard reads its table and
// seed from registers, not the shard table; a mapped file is checked once per batch. The
// pipeline's rule picks the distance from the filter's size (the plain loop in cache).

#include <cstring>

#include "../core/filter_pipeline.hpp"
#include "bloomkit/detail/result_slots.hpp"
#include "bloomkit/detail/word_access.hpp"
#include "bloomkit/static_filter.hpp"

namespace bloomkit {

namespace {

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

// The pipeline's cell operations: `shard_of(h)` picks a key's shard.
template <class ShardOf>
struct static_lookup_ops {
  using location = probe;
  static constexpr bool two_stage = false;
  const shard_reader& r;
  ShardOf shard_of;

  [[gnu::always_inline]] void locate(std::uint64_t h, location& p) const noexcept {
    r.locate(shard_of(h), h, p);
  }
  [[gnu::always_inline]] void prefetch_first(const location& p) const noexcept {
    shard_reader::prefetch(p);
  }
  bool test_first(const location& p) const noexcept { return r.test(p); }
};

// results[i] = whether hash_at(i) is present.
template <class HashAt, class ShardOf>
std::size_t lookup_loop(const shard_reader& r, std::size_t n, HashAt hash_at, ShardOf shard_of,
                        detail::touched_bytes touched, bool* results) {
  const static_lookup_ops<ShardOf> ops{r, shard_of};
  return detail::lookup_pipeline(ops, n, hash_at, touched, results);
}

template <class HashAt>
std::size_t lookup_all(const static_filter& f, std::size_t n, HashAt hash_at, bool* results) {
  const shard_reader r{f.shards().data(), f.shard_bits(), f.fingerprint_bits(),
                       (std::uint64_t{1} << f.fingerprint_bits()) - 1};
  const detail::touched_bytes touched{f.byte_size()};
  if (f.shard_bits() == 0) {
    const static_shard& only = f.shards().front();
    return lookup_loop(
        r, n, hash_at, [&](std::uint64_t) -> const static_shard& { return only; }, touched,
        results);
  }
  const std::uint32_t s = f.shard_bits();
  const static_shard* shards = f.shards().data();
  return lookup_loop(
      r, n, hash_at, [=](std::uint64_t h) -> const static_shard& { return shards[h >> (64 - s)]; },
      touched, results);
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
