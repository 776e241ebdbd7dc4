#pragma once
// The counting Bloom filter: m 4-bit counters instead of m bits, so keys can be removed.
//
//   auto f = bloomkit::counting_bloom_filter::for_capacity(1'000'000, 0.01);
//   f.insert("session-42");
//   f.remove("session-42");              // true: its counters were decremented
//   f.remove("never-inserted");          // false (almost always): definitely absent, no change
//
// A key's k counters sit at exactly the positions where a classic bloom_filter with the same m
// and k sets its bits (native scheme, hashing.hpp), so to_bloom_filter() yields the classic
// filter of the same keys, bit for bit; that filter is 4 times smaller and can be saved, mapped
// or merged with classic filters.
//
// Saturation: a counter stops at 15. Past that its true count is unknown (it may stand for 15
// keys or for 40), so a saturated counter is never decremented: decrementing it could bring it
// to 0 while keys that incremented it are still present, a false negative. Sticky saturation
// costs only some accuracy (those counters never return to 0). A counter's load is about
// Poisson with mean kn/m, so at the classic optimum (kn/m = ln 2) it would pass 15 with
// probability 7e-17: saturation takes heavy repeats of keys or a badly overfilled filter.
//
// remove() must only be called for keys that were inserted (and not yet removed as often).
// Removing a key that was never inserted but tests positive (a false positive) decrements other
// keys' counters and can cause false negatives: that is inherent to counting filters. A key
// that is definitely absent is refused: remove() returns false and changes nothing.
//
// Storage: counter i is bits [4i, 4i + 4) of a bit_array of 4m bits (the low nibble of byte
// i / 2 for even i, the high nibble for odd i), so it shares the classic filter's 64-byte
// alignment, huge pages and zero-copy mapping of files.
//
// Thread safety: single writer. insert, remove, insert_many, merge and clear must not run
// concurrently with anything else on the same filter; any number of readers (contains,
// contains_many, the estimates) may run concurrently on a filter nobody writes, such as a
// mapped one.
//
// A filter that maps a file throws errc::io_error from its lookups (and merge, to_bloom_filter)
// once the file was truncated or overwritten in place, as bloom_filter does (bloom_filter.hpp);
// until then the lost counters read 15.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "bloomkit/bit_array.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/detail/key_bytes.hpp"
#include "bloomkit/hashing.hpp"
#include "bloomkit/sizing.hpp"

namespace bloomkit {

class counting_bloom_filter {
 public:
  using policy_type = xxh3_probe_policy;
  // A counter holds 0..15; at 15 it is saturated and stays there.
  static constexpr std::uint32_t max_count = 15;
  // 4 bits per counter in a bit_array of at most max_bits bits.
  static constexpr std::uint64_t max_counters = max_bits / 4;

  // m and k from the classic sizing (sizing.hpp, optimal_params) for n keys at false-positive
  // probability p: a key's counters sit where the classic filter's bits do, so a counter is
  // non-zero exactly where that filter's bit is set and the FPP is the classic one.
  static counting_bloom_filter for_capacity(std::uint64_t n, double p);

  // A filter of m counters and k probes; capacity and target FPP are derived as for the
  // classic filter (the n at which k is optimal for m, and exact_fpp there).
  counting_bloom_filter(std::uint64_t counters, std::uint32_t hashes);

  // A filter over existing storage of 4 * config.bits bits (used by loaders). Throws
  // errc::invalid_argument when the storage does not match or the config is out of range.
  counting_bloom_filter(const filter_config& config, bit_array storage, std::uint64_t inserted);

  // Increments the key's k counters (saturating at 15); returns whether the key was new (at
  // least one of its counters was 0). Every insert counts in inserted(), repeats too.
  bool insert(std::string_view key);
  // false: the key is not in the filter. true: it probably is.
  bool contains(std::string_view key) const;
  // Removes one occurrence of an inserted key: decrements each of its counters that is not
  // saturated and returns true. When the key is definitely absent (a counter is 0, or smaller
  // than the number of the key's probes that land on it), returns false and changes nothing.
  bool remove(std::string_view key);

  // Integral keys hash their little-endian bytes.
  template <std::integral T>
  bool insert(T key) {
    return insert(detail::key_bytes(key).view());
  }
  template <std::integral T>
  bool contains(T key) const {
    return contains(detail::key_bytes(key).view());
  }
  template <std::integral T>
  bool remove(T key) {
    return remove(detail::key_bytes(key).view());
  }

  // Batched paths: a block of keys is hashed and its counters' cache lines prefetched before
  // any is touched, so that the memory accesses of many keys overlap. insert_many returns the
  // number of new keys, contains_many the number present (results.size() must equal
  // keys.size()).
  std::size_t insert_many(std::span<const std::string_view> keys);
  std::size_t contains_many(std::span<const std::string_view> keys, std::span<bool> results) const;

  // Saturating counter addition: afterwards every counter is min(15, mine + theirs), so this
  // filter holds the multiset union of both. Throws errc::incompatible unless both have the
  // same counters, hashes and hash scheme.
  void merge(const counting_bloom_filter& other);
  void clear();

  // The classic filter of the same m, k, capacity and target FPP whose bit i is set exactly
  // when counter i is non-zero: the filter a bloom_filter would be after inserting the keys
  // this filter holds. Its inserted() is this filter's inserted().
  bloom_filter to_bloom_filter() const;

  // The value of counter i (0..15), i < counters().
  std::uint32_t counter(std::uint64_t index) const noexcept;
  std::uint64_t nonzero_counters() const noexcept;
  std::uint64_t saturated_counters() const noexcept;

  // Distinct keys estimated from the fraction X/m of non-zero counters: -m/k ln(1 - X/m).
  double estimated_count() const noexcept;
  // fpp_at_fill(m, k, X) with X the fraction of non-zero counters (the classic filter's figure
  // for its fill ratio): follows the counters, so a filter whose counters are all non-zero
  // reports 1, and removes lower it.
  double estimated_fpp() const noexcept { return fpp_at_fill(bits(), hashes(), fill_ratio()); }
  // Fraction of non-zero counters (the fill ratio of to_bloom_filter()).
  double fill_ratio() const noexcept {
    return static_cast<double>(nonzero_counters()) / static_cast<double>(bits());
  }

  // m: counters, which equals the bits of to_bloom_filter().
  std::uint64_t bits() const noexcept { return config_.bits; }
  std::uint64_t counters() const noexcept { return config_.bits; }
  std::uint32_t hashes() const noexcept { return config_.hashes; }
  std::uint64_t capacity() const noexcept { return config_.capacity; }
  double target_fpp() const noexcept { return config_.target_fpp; }
  // Inserts less successful removes (a multiset count: a key inserted twice counts twice).
  // After merge, the sum of both counts.
  std::uint64_t inserted() const noexcept { return inserted_; }
  static constexpr hash_scheme scheme() noexcept { return policy_type::scheme; }
  const filter_config& config() const noexcept { return config_; }
  // The counters as 4m bits (counter i is bits 4i..4i+3).
  const bit_array& storage() const noexcept { return counters_; }
  std::size_t byte_size() const noexcept { return counters_.byte_size(); }
  // True for a filter that maps a file: insert, remove, merge and clear throw errc::read_only.
  bool read_only() const noexcept { return counters_.read_only(); }

  // Same parameters, scheme and counters (the inserted count is not compared).
  friend bool operator==(const counting_bloom_filter& a, const counting_bloom_filter& b) noexcept {
    return a.config_.bits == b.config_.bits && a.config_.hashes == b.config_.hashes &&
           a.counters_ == b.counters_;
  }

 private:
  static constexpr std::size_t block_size = 32;  // keys hashed and prefetched together

  std::uint64_t* writable_words();
  std::uint32_t count_at(std::uint64_t index) const noexcept {
    return static_cast<std::uint32_t>((counters_.data()[index >> 4] >> ((index & 15) * 4)) & 15);
  }
  void prefetch(std::uint64_t index) const noexcept { counters_.prefetch(index * 4); }
  void prefetch_for_write(std::uint64_t index) const noexcept {
    counters_.prefetch_for_write(index * 4);
  }
  // Increment the counters of one key's probes; true if any was 0.
  static bool increment(std::uint64_t* words, probe_sequence probes, std::uint32_t k) noexcept;
  bool test(probe_sequence probes) const noexcept;

  filter_config config_;
  bit_array counters_;
  std::uint64_t inserted_ = 0;
};

}  // namespace bloomkit
