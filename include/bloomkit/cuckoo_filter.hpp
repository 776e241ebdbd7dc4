#pragma once
// bloomkit::cuckoo_filter: a filter that removes keys at about a quarter of the counting filter's
// memory (0.28x at p = 1e-2, 0.24x at 1e-3 and 1e-4). A cuckoo filter (Fan, Andersen, Kaminsky &
// Mitzenmacher 2014) keeps one f-bit fingerprint per inserted key in one of its two candidate
// buckets of b slots each.
//
//   auto f = bloomkit::cuckoo_filter::for_capacity(1'000'000, 0.01);  // b = 4, f = 10
//   f.insert("session-42");           // true: stored (false only when the table is full)
//   f.contains("session-42");         // true
//   f.remove("session-42");           // true: one copy of its fingerprint removed
//   f.remove("never-inserted");       // false (almost always): its fingerprint is absent
//
// Hashing (hash_scheme::xxh3_64_cuckoo): h = XXH3-64 of the key. In a table of m buckets (any m,
// not a power of two) with f-bit fingerprints:
//   fingerprint  fp = max(1, (h mod 2^32) >> (32 - f))   (never 0: 0 marks an empty slot)
//   bucket       i1 = multiply-high(h, m)
//   alternate    i2 = (g - i1) mod m,  g = multiply-high(fmix64(fp), m)
// i2's rule is an involution for every m: the alternate of i2 is i1, so a fingerprint moves
// between its two buckets knowing only where it is. In a chain (below), table L has
// m_L = m_0 E^L buckets and wider fingerprints; its fp's first f_0 bits, and its buckets modulo
// m_0 and each earlier table's m, are the key's fingerprint and buckets in the earlier tables
// (docs/FORMAT.md, "Kind 8", gives the formulas): a key that matches another key's fingerprint
// in a newer table matches it in every older one, so removing an inserted key from the newest
// table that matches it never leaves another inserted key without a matching fingerprint.
//
// Layout: bucket i is bits [i b f, (i + 1) b f) of the table, slot j its bits [j f, (j + 1) f),
// little-endian, packed with no gap; 16 zero bytes pad the end so one 128-bit unaligned load
// reads any bucket (b f <= 120).
//
// Sizing (sizing_for; src/kinds/cuckoo_sizing.cpp states the rule and its measured accuracy):
// the bucket size b of least bits per key f / load, f the smallest width whose FPP at the load
// the table is sized for is at most p. At p = 1e-2 and n = 10^6: b = 4, f = 10, 10.7 bits per
// key (small tables may take b = 2: their slack costs b = 4 more).
//
// Repeats: every insert stores one more copy of the key's fingerprint (at most 2b copies fit in
// its two buckets), so one remove undoes one insert and count(key) says how many copies there are.
//
// Full table: an insert that finds both buckets full moves fingerprints to their alternates
// (cuckoo kicks), at most max_kicks times. When that fails the moves are undone, so no stored
// fingerprint is ever lost, and the insert answers false (insert_many stops there). With an
// expansion E > 0 the filter grows instead: a chain of tables (RedisBloom's EXPANSION), table L
// holding E^L times the first table's keys in E^L times its buckets at FPP p 2^-(L+1) (one more
// fingerprint bit per table), so the chain's compound FPP stays under sum p 2^-(L+1) < p, as the
// scalable filter keeps it. New keys go to the newest table; contains, count and remove look at
// every table.
//
// Only delete what you added: remove() of a key that was never inserted but whose fingerprint
// is present (a false positive) removes another key's fingerprint, a false negative for that
// key. A key whose fingerprint is absent is refused: remove() returns false and changes nothing.
//
// Thread safety: const members (contains, contains_many, count, the figures) may run concurrently
// with each other. insert, remove, their batched forms and clear need exclusive access: no other
// call may run on the same filter meanwhile. There is no concurrent insert path.
//
// A filter that maps a file (file.hpp) is read-only: insert, remove and clear throw
// errc::read_only; its lookups throw errc::io_error naming the file once it changed under the
// mapping (mapped_file.hpp).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/bit_array.hpp"
#include "bloomkit/detail/key_bytes.hpp"
#include "bloomkit/hashing.hpp"

namespace bloomkit {

// What a cuckoo filter is created with.
struct cuckoo_options {
  std::uint64_t capacity = 0;     // n: keys the first table holds (at least 1)
  double target_fpp = 0.01;       // p: FPP of the whole chain at its capacity, in (0, 1)
  std::uint32_t bucket_size = 0;  // b in 2..8; 0: the one of least memory for p (sizing_for;
                                  // options() then says the b chosen)
  std::uint32_t expansion = 0;    // E: 0 never grows (a full table refuses inserts); else table
                                  // L + 1 holds E times table L's keys
  std::uint32_t max_kicks = 500;  // moves an insert tries before the table counts as full, 1..2^16
  friend bool operator==(const cuckoo_options&, const cuckoo_options&) = default;
};

// The geometry of one table sized for `capacity` keys at FPP `target_fpp`.
struct cuckoo_sizing {
  std::uint32_t bucket_size = 0;       // b
  std::uint32_t fingerprint_bits = 0;  // f
  std::uint64_t buckets = 0;           // m
  double load = 0;                     // the load it is sized for: capacity <= load * m * b
  friend bool operator==(const cuckoo_sizing&, const cuckoo_sizing&) = default;
};

// One table of a cuckoo filter: m buckets of b f-bit fingerprints (layout above), in owned
// memory or viewing a mapped file.
class cuckoo_table {
 public:
  cuckoo_table() = default;
  // An empty table of `sizing` holding up to `capacity` keys at its design load; in a chain,
  // `first` is the geometry of its table 0 (the hashing above), which must divide its buckets.
  // Throws errc::invalid_argument for a geometry out of range, errc::too_large when it cannot
  // be allocated.
  cuckoo_table(const cuckoo_sizing& sizing, std::uint64_t capacity,
               const cuckoo_sizing* first = nullptr);
  // A table over existing words (a file's, checked by the codec; a view is read-only) with
  // `items` fingerprints stored.
  cuckoo_table(const cuckoo_sizing& sizing, std::uint64_t capacity, bit_array words,
               std::uint64_t items, const cuckoo_sizing* first = nullptr);

  // Bytes of a table of m buckets of b f-bit slots: the packed slots in whole words, then 16
  // bytes of padding.
  static std::uint64_t bytes_for(std::uint64_t buckets, std::uint32_t bucket_size,
                                 std::uint32_t fingerprint_bits) noexcept;

  std::uint64_t buckets() const noexcept { return buckets_; }
  std::uint32_t bucket_size() const noexcept { return bucket_size_; }
  std::uint32_t fingerprint_bits() const noexcept { return fingerprint_bits_; }
  std::uint64_t slots() const noexcept { return buckets_ * bucket_size_; }
  std::uint64_t capacity() const noexcept { return capacity_; }
  double design_load() const noexcept { return design_load_; }
  // Fingerprints stored.
  std::uint64_t items() const noexcept { return items_; }
  double load_factor() const noexcept;
  // FPP of a key it does not hold at its present load: 1 - (1 - q)^(2 b load), q the chance of a
  // fingerprint match (cuckoo_filter::fingerprint_match).
  double estimated_fpp() const noexcept;
  // The table's words: the packed slots, then zero padding (bytes_for).
  const bit_array& words() const noexcept { return words_; }
  // Slot j of bucket i (0: empty).
  std::uint32_t slot(std::uint64_t bucket, std::uint32_t j) const noexcept;

 private:
  friend class cuckoo_filter;
  friend struct cuckoo_table_access;  // the hot paths (src/kinds/cuckoo_buckets.hpp)

  bit_array words_;
  std::uint64_t buckets_ = 0;
  std::uint64_t capacity_ = 0;
  std::uint64_t items_ = 0;
  double design_load_ = 0;
  std::uint32_t bucket_size_ = 0;
  std::uint32_t fingerprint_bits_ = 0;
  std::uint64_t first_buckets_ = 0;  // m_0 of its chain (its own m in table 0)
  std::uint32_t first_bits_ = 0;     // f_0 of its chain
};

class cuckoo_filter : public detail::integral_keys<cuckoo_filter> {
 public:
  using digest_type = std::uint64_t;                   // XXH3-64 of the key
  static constexpr bool counting = true;               // remove() (and its integral-key form)
  static constexpr std::uint32_t min_bucket_size = 2;  // b = 1 fills to 26..58%: refused
  static constexpr std::uint32_t max_bucket_size = 8;
  static constexpr std::uint32_t min_fingerprint_bits = 2;
  static constexpr std::uint32_t max_fingerprint_bits = 32;
  static constexpr std::uint32_t max_bucket_bits = 120;  // b * f
  static constexpr std::uint32_t max_kicks_limit = 1u << 16;
  static constexpr std::size_t max_tables = 32;

  // A filter of one table for n keys at FPP p, never growing. Throws errc::invalid_argument
  // unless n >= 1 and p is in (0, 1) and reachable with 32-bit fingerprints.
  static cuckoo_filter for_capacity(std::uint64_t n, double p);
  // A filter of `options` (throws errc::invalid_argument naming the option out of range).
  explicit cuckoo_filter(const cuckoo_options& options);

  // The table of n keys at FPP p (bucket_size 0: the least memory); throws as for_capacity.
  static cuckoo_sizing sizing_for(std::uint64_t n, double p, std::uint32_t bucket_size = 0);
  // The probability that an absent key's f-bit fingerprint equals a stored one: 1 and 0 of the
  // top bits both make 1, so (2^f + 2) / 4^f.
  static double fingerprint_match(std::uint32_t fingerprint_bits) noexcept;
  // The load a table of b slots per bucket is sized for (the load its inserts reach).
  static double design_load(std::uint32_t bucket_size);
  // Capacity and FPP of table `index` of a chain of `options` (index 0: n and p of a filter
  // that never grows), and its geometry (options.bucket_size must be set: table 0's b); throws
  // errc::invalid_argument past the last table a chain can have, errc::too_large past 2^62 keys.
  static std::uint64_t table_capacity(const cuckoo_options& options, std::size_t index);
  static double table_fpp(const cuckoo_options& options, std::size_t index);
  static cuckoo_sizing table_sizing(const cuckoo_options& options, std::size_t index);

  static constexpr hash_scheme scheme() noexcept { return hash_scheme::xxh3_64_cuckoo; }
  static digest_type digest_of(std::string_view key) noexcept { return xxh3_64(key); }

  // Stores one copy of the key's fingerprint; false when it does not fit (the table is full and
  // the chain cannot grow): nothing changed.
  bool insert(std::string_view key) { return insert_digest(digest_of(key)); }
  bool insert_digest(digest_type h);
  // false: the key was never inserted (or was removed). true: it probably is present.
  bool contains(std::string_view key) const { return contains_digest(digest_of(key)); }
  bool contains_digest(digest_type h) const;
  // Removes one copy of the key's fingerprint (from the newest table holding one): true; false
  // and no change when no table holds it.
  bool remove(std::string_view key) { return remove_digest(digest_of(key)); }
  bool remove_digest(digest_type h);
  // Copies of the key's fingerprint in its candidate buckets over all tables (the times it was
  // inserted, plus any other key's equal fingerprints there).
  std::uint64_t count(std::string_view key) const { return count_digest(digest_of(key)); }
  std::uint64_t count_digest(digest_type h) const;

  using detail::integral_keys<cuckoo_filter>::insert;
  using detail::integral_keys<cuckoo_filter>::contains;
  using detail::integral_keys<cuckoo_filter>::remove;

  // Batched paths, in order, the buckets of keys ahead prefetched (src/kinds/cuckoo_batches.cpp).
  // insert_many stores keys[0], keys[1], ... and stops at the first that does not fit: it returns
  // how many were stored (keys.size() unless full; the rest are not in the filter).
  std::size_t insert_many(std::span<const std::string_view> keys);
  std::size_t insert_many(std::span<const digest_type> digests);
  // results[i] = contains(keys[i]); returns how many are present.
  std::size_t contains_many(std::span<const std::string_view> keys, std::span<bool> results) const;
  std::size_t contains_many(std::span<const digest_type> digests, std::span<bool> results) const;
  // Removes each key as remove() does; removed[i] (when not empty) says whether key i was; returns
  // how many were.
  std::size_t remove_many(std::span<const std::string_view> keys, std::span<bool> removed = {});
  std::size_t remove_many(std::span<const digest_type> digests, std::span<bool> removed = {});

  // Merge and intersection are not defined on fingerprints of different tables: both throw
  // errc::invalid_argument.
  [[noreturn]] void merge(const cuckoo_filter& other);
  [[noreturn]] void intersect(const cuckoo_filter& other);
  // Empties it, back to its first table.
  void clear();

  const std::vector<cuckoo_table>& tables() const noexcept { return tables_; }
  const cuckoo_options& options() const noexcept { return options_; }
  std::uint32_t bucket_size() const noexcept { return tables_.front().bucket_size(); }
  // f of the first table (table L has its own: tables()[L].fingerprint_bits()).
  std::uint32_t fingerprint_bits() const noexcept { return tables_.front().fingerprint_bits(); }
  std::uint32_t expansion() const noexcept { return options_.expansion; }
  std::uint32_t max_kicks() const noexcept { return options_.max_kicks; }
  // Fingerprints stored over all tables (inserts less removes).
  std::uint64_t items() const noexcept;
  // Slots over all tables, and items() / slot_count().
  std::uint64_t slot_count() const noexcept;
  double load_factor() const noexcept;
  std::size_t size_in_bytes() const noexcept { return byte_size(); }

  // The common surface of bloomkit's filters (filter.hpp's filter_like), in the cuckoo kind's
  // terms: cells() is the slots' bits, hashes() the 2 candidate buckets, capacity() the tables'
  // keys at their design load, inserted() and estimated_count() items(), fill_ratio()
  // load_factor(), estimated_fpp() 1 - prod(1 - each table's estimated_fpp()).
  std::uint64_t cells() const noexcept;
  static constexpr std::uint32_t hashes() noexcept { return 2; }
  std::uint64_t capacity() const noexcept;
  double target_fpp() const noexcept { return options_.target_fpp; }
  std::uint64_t inserted() const noexcept { return items(); }
  double estimated_count() const noexcept { return static_cast<double>(items()); }
  double fill_ratio() const noexcept { return load_factor(); }
  double estimated_fpp() const noexcept;
  // Bytes of the tables (bytes_for each).
  std::size_t byte_size() const noexcept;
  bool read_only() const noexcept { return tables_.front().words().read_only(); }
  // Throws errc::io_error naming the mapped file when it changed under the mapping.
  void check_source() const { tables_.front().words().check_source(); }

  // Same options and tables, slot for slot.
  friend bool operator==(const cuckoo_filter& a, const cuckoo_filter& b) noexcept;

  // A filter of existing tables (the file codec's, checked: table L must be table L of a chain
  // of `options`). Throws errc::invalid_argument when they are not.
  static cuckoo_filter from_tables(const cuckoo_options& options, std::vector<cuckoo_table> tables);

 private:
  cuckoo_filter() = default;
  bool grow();
  void require_writable() const;

  cuckoo_options options_;
  std::vector<cuckoo_table> tables_;
  std::uint64_t kick_state_ = 0x9e3779b97f4a7c15ULL;  // the kicks' xorshift (victim choice)
};

}  // namespace bloomkit
