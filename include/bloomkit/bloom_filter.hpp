#pragma once
// The classic Bloom filter: m bits, k probes per key.
//
//   auto f = bloomkit::bloom_filter::for_capacity(1'000'000, 0.01);
//   f.insert("https://example.com/a");      // true: the key was new
//   f.contains("https://example.com/a");    // true: maybe present
//   f.contains("https://example.com/b");    // false: definitely absent (or, rarely, true)
//
// basic_bloom_filter is one template over a probe policy (hashing.hpp): the native policy is
// XXH3-128 with enhanced double hashing; interop schemes supply their own policies and reuse
// everything else.
//
// Thread safety: contains / contains_many / insert_concurrent / insert_many_concurrent may run
// concurrently with each other on one filter (lock-free: relaxed atomic loads and atomic
// fetch-or on 64-bit words). insert / insert_many are the faster single-writer path and must not
// run concurrently with anything else on the same filter; nor may merge, intersect or clear.
//
// A filter that maps a file (file.hpp) checks the file after its lookups: contains,
// contains_digest, contains_many (and merge / intersect reading it) throw errc::io_error naming
// the file once it was truncated or overwritten in place while mapped (mapped_file.hpp); the
// lost pages read as all-ones meanwhile, so no lookup ever answers a wrong "absent".

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "bloomkit/bit_array.hpp"
#include "bloomkit/detail/key_bytes.hpp"
#include "bloomkit/detail/result_slots.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/hashing.hpp"
#include "bloomkit/sizing.hpp"

namespace bloomkit {

// Everything that describes a filter besides its bits.
struct filter_config {
  std::uint64_t bits = 0;      // m
  std::uint32_t hashes = 0;    // k
  std::uint64_t capacity = 0;  // n the filter was sized for
  double target_fpp = 0;       // p the filter was sized for
};

template <class Policy>
class basic_bloom_filter {
 public:
  using policy_type = Policy;
  using digest_type = typename Policy::digest_type;

 private:
  // The batched paths read the i-th digest through a callable: hashing keys, or reading
  // digests the caller already has.
  static auto hashing(std::span<const std::string_view> keys) noexcept {
    return [keys](std::size_t i) noexcept { return Policy::hash(keys[i]); };
  }
  static auto reading(std::span<const digest_type> digests) noexcept {
    return [digests](std::size_t i) noexcept -> const digest_type& { return digests[i]; };
  }

 public:
  // A filter sized for n keys at false-positive probability p (sizing.hpp).
  static basic_bloom_filter for_capacity(std::uint64_t n, double p);

  // A filter of m bits and k probes. Its capacity is the n at which k is optimal for m,
  // and its target FPP the policy's FPP at that n (exact_fpp for the native scheme).
  basic_bloom_filter(std::uint64_t bits, std::uint32_t hashes);

  // A filter over existing storage (used by loaders). Throws errc::invalid_argument when the
  // storage does not hold config.bits bits or the config is out of range.
  basic_bloom_filter(const filter_config& config, bit_array storage, std::uint64_t inserted);

  // Adds a key; returns whether it was new (at least one of its bits was 0).
  bool insert(std::string_view key) { return add_digest<false>(Policy::hash(key)); }
  // insert() that may run concurrently with other concurrent inserts and lookups.
  bool insert_concurrent(std::string_view key) { return add_digest<true>(Policy::hash(key)); }
  // false: the key was never inserted. true: it probably was.
  bool contains(std::string_view key) const { return contains_digest(Policy::hash(key)); }

  // By digest: a key hashed once with digest_of() can be inserted into / looked up in several
  // filters of this scheme (of any sizes) without hashing it again, e.g. the sub-filters of a
  // scalable filter. insert_digest(digest_of(key)) is insert(key), and so on.
  static digest_type digest_of(std::string_view key) noexcept { return Policy::hash(key); }
  bool insert_digest(const digest_type& d) { return add_digest<false>(d); }
  bool contains_digest(const digest_type& d) const {
    const bool present = contains_digest_unchecked(d);
    bits_.check_source();
    return present;
  }
  // contains_digest without the check of a mapped file after it: for composites that look a key
  // up in several filters over one mapped file and check the file once
  // (storage().check_source()).
  bool contains_digest_unchecked(const digest_type& d) const noexcept;

  // Integral keys hash their little-endian bytes.
  template <std::integral T>
  bool insert(T key) {
    return insert(detail::key_bytes(key).view());
  }
  template <std::integral T>
  bool contains(T key) const {
    return contains(detail::key_bytes(key).view());
  }

  // Batched paths: keys are hashed and their cache lines prefetched well ahead of the probes
  // (a software pipeline over the keys), so that the memory accesses of many keys overlap.
  // Return the number of new / present keys.
  std::size_t insert_many(std::span<const std::string_view> keys) {
    return insert_batch<false>(keys.size(), hashing(keys));
  }
  std::size_t insert_many_concurrent(std::span<const std::string_view> keys) {
    return insert_batch<true>(keys.size(), hashing(keys));
  }
  std::size_t insert_many(std::span<const digest_type> digests) {
    return insert_batch<false>(digests.size(), reading(digests));
  }
  // results[i] is set to contains(keys[i]); results.size() must equal keys.size().
  std::size_t contains_many(std::span<const std::string_view> keys, std::span<bool> results) const {
    detail::require_result_slots(keys.size(), results.size());
    const std::size_t present = lookup_batch(keys.size(), hashing(keys), results);
    bits_.check_source();
    return present;
  }
  std::size_t contains_many(std::span<const digest_type> digests, std::span<bool> results) const {
    detail::require_result_slots(digests.size(), results.size());
    const std::size_t present = lookup_batch(digests.size(), reading(digests), results);
    bits_.check_source();
    return present;
  }

  // Union: afterwards this filter contains every key of either. Throws errc::incompatible
  // unless both have the same bits, hashes and hash scheme.
  void merge(const basic_bloom_filter& other);
  // Intersection of the bit arrays: contains every key present in both (and possibly keys
  // inserted into only one, whose bits the other happens to have set).
  void intersect(const basic_bloom_filter& other);
  void clear();

  // Number of distinct keys estimated from the fraction X/m of set bits:
  // -m/k ln(1 - X/m) (Swamidass & Baldwin, 2007).
  double estimated_count() const noexcept;
  // The false-positive probability the bits give now, from the fraction of set bits X: for the
  // native scheme fpp_at_fill(m, k, X) (X^k for large m), for a policy without figures X^k. It
  // follows the bits, not inserted(): a saturated filter (X = 1) reports 1.
  double estimated_fpp() const noexcept;
  // Fraction of bits set.
  double fill_ratio() const noexcept {
    return static_cast<double>(bits_.count()) / static_cast<double>(bits());
  }

  std::uint64_t bits() const noexcept { return config_.bits; }
  std::uint32_t hashes() const noexcept { return config_.hashes; }
  std::uint64_t capacity() const noexcept { return config_.capacity; }
  double target_fpp() const noexcept { return config_.target_fpp; }
  // Inserts that changed at least one bit (distinct keys, less the rare false positives).
  // After merge / intersect it is the estimated_count() of the result.
  std::uint64_t inserted() const noexcept { return __atomic_load_n(&inserted_, __ATOMIC_RELAXED); }
  static constexpr hash_scheme scheme() noexcept { return Policy::scheme; }
  const filter_config& config() const noexcept { return config_; }
  const bit_array& storage() const noexcept { return bits_; }
  std::size_t byte_size() const noexcept { return bits_.byte_size(); }
  // True for a filter that maps a file: inserts throw errc::read_only.
  bool read_only() const noexcept { return bits_.read_only(); }

  // Same parameters, scheme and bits (the inserted count is not compared).
  friend bool operator==(const basic_bloom_filter& a, const basic_bloom_filter& b) noexcept {
    return a.config_.bits == b.config_.bits && a.config_.hashes == b.config_.hashes &&
           a.bits_ == b.bits_;
  }

 private:
  static constexpr std::size_t block_size = 32;  // keys hashed and prefetched together
  // Filters of at least this size live in DRAM, where prefetching every line of a key before
  // testing any pays; below it (in cache) the plain loop is faster.
  static constexpr std::size_t large_filter_bytes = std::size_t{1} << 20;
  // Up to this many probes, the positions of a key are computed once into a fixed array and
  // reused by prefetch and test (the pipelined paths); more probes take the block-wise paths.
  static constexpr std::uint32_t max_stored_probes = 16;

  template <bool Atomic>
  bool add_digest(const digest_type& d);
  // Fills pos[0..k) with the key's probe positions; true when k <= max_stored_probes.
  bool store_probes(const digest_type& d, std::uint64_t* pos) const noexcept {
    if (config_.hashes > max_stored_probes) return false;
    auto seq = Policy::probes(d, config_.bits);
    for (std::uint32_t i = 0; i < config_.hashes; ++i) pos[i] = seq.next();
    return true;
  }
  template <bool Atomic>
  bool set_bit(std::uint64_t index) noexcept;
  // Set the key's k bits (from stored positions, or from its digest); true if any was 0.
  template <bool Atomic>
  bool set_probes(const std::uint64_t* pos) noexcept;
  template <bool Atomic>
  bool set_probes(const digest_type& d) noexcept;
  template <bool Atomic>
  void add_inserted(std::uint64_t n) noexcept;
  template <bool Atomic, class DigestAt>
  std::size_t insert_batch(std::size_t n, DigestAt digest_at);
  template <bool Atomic, class DigestAt>
  std::size_t insert_block_wise(std::size_t n, DigestAt digest_at);
  template <class DigestAt>
  std::size_t lookup_batch(std::size_t n, DigestAt digest_at, std::span<bool> results) const;
  template <class DigestAt>
  std::size_t contains_block_wise(std::size_t n, DigestAt digest_at,
                                  std::span<bool> results) const noexcept;
  void require_writable() const;
  void require_compatible(const basic_bloom_filter& other, const char* operation) const;
  std::uint64_t estimated_inserted() const noexcept;

  filter_config config_;
  bit_array bits_;
  std::uint64_t inserted_ = 0;
};

using bloom_filter = basic_bloom_filter<xxh3_probe_policy>;

}  // namespace bloomkit

#include "bloomkit/detail/bloom_filter_impl.hpp"

namespace bloomkit {
extern template class basic_bloom_filter<xxh3_probe_policy>;
}
