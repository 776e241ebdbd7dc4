#pragma once
// bloomkit::static_filter: the smallest filter of a set built once, then only queried. A 3-wise
// binary fuse filter (Graf & Lemire 2022) of b-bit fingerprints: log2(1/p) bits per key plus
// 12.5% (against a Bloom filter's 1.44 log2(1/p)), FPP 2^-b, three cell reads per lookup.
//
//   std::vector<std::string_view> keys = ...;            // duplicates allowed
//   auto f = bloomkit::static_filter::build(keys, 0.001); // b = 10: FPP 2^-10
//   f.contains("https://example.com/a");                   // true for every key of the set
//
// It takes no inserts: insert, remove and merge throw (errc::invalid_argument, naming the kind).
//
// The contract of the layers built on it (the sharded builder, the Redis layouts, the CLI):
// - A key is its hash h = xxh3_64(key) (hashing.hpp); equal hashes are one key.
// - A filter is 2^s shards (s = shard_bits, 0..32); h is in shard shard_of(h, s): its top s bits.
//   shard_bits_for(n) is the smallest s with n / 2^s <= max_shard_keys, so a shard's build holds
//   at most static_shard::build_memory(n / 2^s) bytes (about 32 bytes per key, 150 MB for a
//   shard of 2^22 keys).
// - A shard is one binary fuse table (detail/binary_fuse.hpp says its hashing) with its own
//   seed: a shard that cannot be built with one seed is retried with another, alone.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/detail/binary_fuse.hpp"
#include "bloomkit/hashing.hpp"
#include "bloomkit/mapped_file.hpp"

namespace bloomkit {

// One binary fuse table: its cells and their hashing. Immutable; copies share the bytes (its own,
// or a mapped file's).
class static_shard {
 public:
  static constexpr std::uint32_t max_fingerprint_bits = 32;
  // Seeds a build tries before it gives up (a set of distinct hashes fails a seed with a
  // probability well under 1/2, even for tiny sets).
  static constexpr int max_attempts = 64;

  // The shard of the distinct hashes in `hashes` (duplicates are dropped), with seed `seed`, or
  // nullopt if this seed does not solve it. `hashes` is the working buffer: on return it holds the
  // same set, its first keys() values the distinct hashes in some order. Throws
  // errc::invalid_argument for fingerprint_bits outside 1..32, errc::too_large past 2^31 keys.
  static std::optional<static_shard> try_build(std::span<std::uint64_t> hashes,
                                               std::uint32_t fingerprint_bits, std::uint64_t seed);
  // try_build with the seeds first_seed, then next_seed(...) of it, until one solves it; throws
  // errc::invalid_argument after max_attempts seeds (only a hash function far from random gets
  // there).
  static static_shard build(std::span<std::uint64_t> hashes, std::uint32_t fingerprint_bits,
                            std::uint64_t first_seed);
  // The seed tried after `seed`.
  static std::uint64_t next_seed(std::uint64_t seed) noexcept;

  // Bytes a build of n distinct keys holds at its peak, its n input hashes and its table
  // included.
  static std::uint64_t build_memory(std::uint64_t n) noexcept;
  // Bytes of the table of n keys (cells packed, plus 8 bytes of padding).
  static std::uint64_t bytes_for(std::uint64_t n, std::uint32_t fingerprint_bits) noexcept;

  // A shard of existing bytes (a file's: `owner` keeps them alive), after the file codec checked
  // them: bytes.size() == detail::fuse_table_bytes(geometry.cells(), fingerprint_bits).
  static static_shard view(std::shared_ptr<const void> owner, std::span<const unsigned char> bytes,
                           detail::fuse_geometry geometry, std::uint32_t fingerprint_bits,
                           std::uint64_t seed, std::uint64_t keys);

  // Whether h is in the shard (a shard of a mapped file: its filter's lookups check the file).
  [[gnu::always_inline]] bool contains(std::uint64_t h) const noexcept {
    const auto at = cells_of(h);
    return (detail::load_cell(bytes_, at[0], bits_) ^ detail::load_cell(bytes_, at[1], bits_) ^
            detail::load_cell(bytes_, at[2], bits_)) == detail::fuse_fingerprint(h, bits_);
  }
  // The cell indices of h (cell i is bits i*b .. i*b + b - 1 of bytes(), low bit first; the
  // Redis layout stores these bytes bit-reversed so that BITFIELD GET u<b> at i*b reads cell i).
  [[gnu::always_inline]] std::array<std::uint64_t, 3> cells_of(std::uint64_t h) const noexcept {
    return detail::fuse_key_cells(h, seed_, geometry_);
  }
  // The value h's three cells XOR to when h is in the shard.
  std::uint32_t fingerprint(std::uint64_t h) const noexcept {
    return detail::fuse_fingerprint(h, bits_);
  }
  // Cell i's value.
  std::uint32_t cell(std::uint64_t i) const noexcept { return detail::load_cell(bytes_, i, bits_); }

  std::uint64_t keys() const noexcept { return keys_; }
  std::uint64_t seed() const noexcept { return seed_; }
  std::uint32_t fingerprint_bits() const noexcept { return bits_; }
  detail::fuse_geometry geometry() const noexcept { return geometry_; }
  std::uint64_t cells() const noexcept { return geometry_.cells(); }
  // The table's bytes: the packed cells, then zero padding (detail::fuse_table_bytes).
  std::span<const unsigned char> bytes() const noexcept { return {bytes_, size_}; }

  friend bool operator==(const static_shard& a, const static_shard& b) noexcept;

 private:
  static_shard() = default;

  std::shared_ptr<const void> owner_;
  const unsigned char* bytes_ = nullptr;
  std::size_t size_ = 0;
  detail::fuse_geometry geometry_{};
  std::uint32_t bits_ = 1;
  std::uint64_t seed_ = 0;
  std::uint64_t keys_ = 0;
};

// What every insert path of a static filter answers (errc::invalid_argument), front ends included.
inline constexpr std::string_view static_filter_takes_no_inserts =
    "a static filter is built once from its whole key set: it takes no inserts, removes or "
    "merges (build a new one: bloomkit build --kind static)";

class static_filter {
 public:
  // A shard's expected keys at most: its build's working set stays under
  // static_shard::build_memory(max_shard_keys) (about 150 MB).
  static constexpr std::uint64_t max_shard_keys = std::uint64_t{1} << 22;
  static constexpr std::uint32_t max_shard_bits = 32;

  // b: the smallest with 2^-b <= fpp. Throws errc::invalid_argument unless 0 < fpp < 1 and
  // 2^-32 <= fpp.
  static std::uint32_t fingerprint_bits_for(double fpp);
  // s: the smallest with n / 2^s <= max_shard_keys.
  static std::uint32_t shard_bits_for(std::uint64_t n) noexcept;
  static std::uint32_t shard_of(std::uint64_t h, std::uint32_t shard_bits) noexcept {
    return shard_bits == 0 ? 0 : static_cast<std::uint32_t>(h >> (64 - shard_bits));
  }
  // The first seed tried for shard `index` (a build is deterministic: the same set gives the
  // same bytes).
  static std::uint64_t first_seed(std::uint32_t index) noexcept;

  // The filter of `keys` (duplicates allowed, empty allowed), shards built on `threads` threads:
  // shard_bits_for(distinct keys) of them, as static_builder makes, so repeats never change the
  // bytes (when they change the count, the shards are built a second time).
  static static_filter build(std::span<const std::string_view> keys, double fpp,
                             unsigned threads = 1);
  // The same from key hashes (xxh3_64 of each key).
  static static_filter build_from_hashes(std::vector<std::uint64_t> hashes, double fpp,
                                         unsigned threads = 1);
  // A filter of built shards, shard i holding the hashes with shard_of(h, shard_bits) == i (what
  // a sharded builder assembles; the shards are moved in, not copied). Throws
  // errc::invalid_argument if the count is not 2^shard_bits or a shard's fingerprint bits differ.
  static static_filter from_shards(double fpp, std::uint32_t fingerprint_bits,
                                   std::uint32_t shard_bits, std::vector<static_shard> shards);

  // The bits of the filter of n distinct keys at fpp (its slots' bits; the sizing calculator's
  // answer), and the bytes of its shards' tables (byte_size()), its keys spread evenly.
  static std::uint64_t bits_for(std::uint64_t n, double fpp);
  static std::uint64_t bytes_for(std::uint64_t n, double fpp);

  static constexpr hash_scheme scheme() noexcept { return hash_scheme::xxh3_64_binary_fuse; }

  // Lookups of a filter that maps a file throw errc::io_error naming it when it changed under the
  // mapping (mapped_file.hpp): a cut file's cells read all-ones, which is no answer.
  bool contains(std::string_view key) const { return contains_hash(xxh3_64(key)); }
  bool contains_hash(std::uint64_t h) const {
    const bool present = shards_[shard_of(h, shard_bits_)].contains(h);
    if (source_ != nullptr) source_->check();
    return present;
  }
  // results[i] = contains(keys[i]); returns how many are present. Past the cache, software-
  // pipelined: the three cells of a key are prefetched 32 keys ahead
  // (src/kinds/static_lookups.cpp).
  std::size_t contains_many(std::span<const std::string_view> keys, std::span<bool> results) const;
  std::size_t contains_many(std::span<const std::uint64_t> hashes, std::span<bool> results) const;

  // No inserts, removes, merges, intersections or clears: each throws errc::invalid_argument with
  // static_filter_takes_no_inserts.
  [[noreturn]] bool insert(std::string_view key);
  [[noreturn]] std::size_t insert_many(std::span<const std::string_view> keys);
  [[noreturn]] bool remove(std::string_view key);
  [[noreturn]] void merge(const static_filter& other);
  [[noreturn]] void intersect(const static_filter& other);
  [[noreturn]] void clear();

  // Distinct keys of the set.
  std::uint64_t size() const noexcept { return keys_; }
  std::uint32_t fingerprint_bits() const noexcept { return fingerprint_bits_; }
  std::uint32_t shard_bits() const noexcept { return shard_bits_; }
  const std::vector<static_shard>& shards() const noexcept { return shards_; }
  // Fingerprint slots (cells of the binary fuse tables) over all shards, and their bits
  // (slots * b).
  std::uint64_t fingerprint_slots() const noexcept { return slots_; }
  std::uint64_t bits() const noexcept { return slots_ * fingerprint_bits_; }
  // bits() / size(); 0 for an empty set.
  double bits_per_key() const noexcept;
  // Keys per cell: the fill the construction reached (the paper's 1 / size factor).
  double load() const noexcept;
  double target_fpp() const noexcept { return target_fpp_; }
  // 2^-b: the FPP of a key not in the set.
  double fpp() const noexcept;
  // Bytes of the shards' tables.
  std::size_t byte_size() const noexcept;

  // The common surface of bloomkit's filters (filter.hpp's filter_like), in the static kind's
  // terms: cells() is bits(), hashes() the 3 cells per key, capacity(), inserted() and
  // estimated_count() the distinct keys, fill_ratio() load(), estimated_fpp() fpp().
  std::uint64_t cells() const noexcept { return bits(); }
  static constexpr std::uint32_t hashes() noexcept { return 3; }
  std::uint64_t capacity() const noexcept { return keys_; }
  std::uint64_t inserted() const noexcept { return keys_; }
  double estimated_count() const noexcept { return static_cast<double>(keys_); }
  double fill_ratio() const noexcept { return load(); }
  double estimated_fpp() const noexcept { return fpp(); }
  // Whether it views a mapped file (it never takes inserts either way).
  bool read_only() const noexcept { return source_ != nullptr; }
  // Throws errc::io_error naming the mapped file when it changed under the mapping; nothing for
  // a filter in memory.
  void check_source() const {
    if (source_ != nullptr) source_->check();
  }
  // Same parameters, and every shard the same seed, geometry, keys and bytes.
  friend bool operator==(const static_filter& a, const static_filter& b) noexcept;

  // The filter of `shards` viewing `file`'s bytes (the file codec's map).
  static static_filter over_file(double fpp, std::uint32_t fingerprint_bits,
                                 std::uint32_t shard_bits, std::vector<static_shard> shards,
                                 const mapped_file* file);

 private:
  static_filter() = default;

  std::vector<static_shard> shards_;
  double target_fpp_ = 0;
  std::uint32_t fingerprint_bits_ = 1;
  std::uint32_t shard_bits_ = 0;
  std::uint64_t keys_ = 0;
  std::uint64_t slots_ = 0;
  const mapped_file* source_ = nullptr;  // the mapped file its shards view (they keep it alive)
};

}  // namespace bloomkit
