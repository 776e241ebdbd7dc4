#pragma once
// The scalable Bloom filter (Almeida, Baquero, Preguiça & Hutchison, 2007): a chain of filters
// that grows as keys arrive, so n need not be known in advance. basic_scalable_filter<SubFilter>
// is a composition over any filter of one storage policy (filter.hpp):
//
//   scalable_bloom_filter          = basic_scalable_filter<bloom_filter>          (classic chain)
//   scalable_blocked_bloom_filter  = basic_scalable_filter<blocked_bloom_filter>  (one cache line
//                                    per key and sub-filter: lookups about 3x faster in DRAM)
//
//   bloomkit::scalable_bloom_filter f(1'000, 0.01);   // starts small...
//   for (auto& key : stream) f.insert(key);            // ...grows by a factor 2 when full
//   f.estimated_fpp();                                 // <= 0.01 however many keys arrived
//
// Sub-filter i (i = 0, 1, ...) is a SubFilter for n_i = n0 * s^i keys at
// p_i = p (1 - r) r^i, where n0 is the initial capacity, p the target FPP, s the growth factor
// and r the tightening ratio. The tightening starts at the first sub-filter, so the compound FPP
// of any number of sub-filters, each filled at most to its capacity, is
//   1 - prod(1 - p_i) <= sum p_i < p (1 - r) / (1 - r) = p.
// That holds only if every sub-filter meets its own p_i exactly, so a classic one takes
// exact_params(n_i, p_i) (sizing.hpp): the fewest bits whose exact FPP at n_i is <= p_i, with k
// chosen for them; a blocked one takes blocked_optimal_blocks(n_i, p_i), its own formula.
// The native probes give every filter a floor of about n/m^2 on its FPP (two keys whose digests
// nearly agree probe the same bits), so meeting p_i takes m_i >= sqrt(n_i / p_i): bits per key
// of at least sqrt(1 / (n_i p_i)), and n_i p_i = n0 p (1 - r) (s r)^i. With s r >= 1 that stays
// bounded; with s r < 1 it grows without limit, so such a chain is refused (check_growth): s
// must be at least 1/r (2 with the default r = 0.5) -- except s = 1, RedisBloom's EXPANSION 1.
// Linear growth (s = 1): every sub-filter holds n0 keys at p (1 - r) r^i, the halving
// RedisBloom's links use with r = 0.5, so the bound holds for any number of sub-filters; the
// cost is per link. Its bits per key rise by about 1.44 log2(1/r) per link (1.44 with r = 0.5,
// as RedisBloom's do, and k by about one) while the textbook size dominates, then past the
// floor by a factor of sqrt(1/r) per link (with r = 0.5: n0 = 100 at p = 1% from about the
// 10th link, n0 = 10^4 from about the 17th; sub-filter 59 of n0 = 100 would need 10^11 bits).
// A chain of s = 1 holds at most max_sub_filters * n0 keys, and memory limits (a ceiling, a
// host's maxmemory) refuse a link before its size becomes absurd; for an unknown number of
// keys take s >= 2.
// The textbook sizes would not do for the first, small sub-filters: with n0 = 1 and p = 1%, six
// full sub-filters gave 6.3% (measured; now 0.63%), and 12.9% with growth 1, where every
// sub-filter is that small (now 0.62%).
//
// insert() first asks every sub-filter; a key found anywhere is not inserted again (so a
// sub-filter's inserted() is exactly the keys it took). New keys go to the newest sub-filter; a
// new one is added when the newest holds its capacity. With a memory ceiling, a sub-filter that
// would take the total past it is not added: insert() of a new key throws errc::too_large and
// the filter stays as it was, answering lookups (and inserts of keys it holds).
//
// Lookups test the newest sub-filter first: it is the largest and holds most keys (with s = 2,
// half of them), so most hits end after one sub-filter; misses test them all.
//
// Thread safety: single writer. insert, insert_many and clear must not run concurrently with
// anything else on the same filter; any number of readers may run concurrently on a filter
// nobody writes, such as a mapped one.
//
// A filter that maps a file throws errc::io_error from its lookups once the file was truncated or
// overwritten in place, as bloom_filter does (bloom_filter.hpp).

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/detail/key_bytes.hpp"
#include "bloomkit/filter.hpp"

namespace bloomkit {

namespace detail {
struct filter_access;
}

struct scalable_config {
  std::uint64_t initial_capacity = 0;  // n0, >= 1
  double target_fpp = 0;               // p, in (0, 1): bound on the compound FPP
  std::uint32_t growth = 2;            // s, 1..32768: sub-filter i holds n0 * s^i keys
  double tightening = 0.5;             // r, in (0, 1): sub-filter i has FPP p (1 - r) r^i
  std::uint64_t memory_ceiling = 0;    // bytes of bits over all sub-filters; 0 = no ceiling
  friend bool operator==(const scalable_config&, const scalable_config&) = default;
};
using scalable_params = scalable_config;  // the former name

template <class SubFilter>
class basic_scalable_filter : public detail::integral_keys<basic_scalable_filter<SubFilter>> {
 public:
  using sub_filter_type = SubFilter;
  using policy_type = typename SubFilter::policy_type;
  using digest_type = typename SubFilter::digest_type;
  // RedisBloom's EXPANSION range; n0 s^i past 2^63 keys is refused per sub-filter.
  static constexpr std::uint32_t max_growth = 32768;
  static constexpr std::size_t max_sub_filters = 256;

  // Throws errc::invalid_argument naming the parameter when one is out of range, and
  // errc::too_large when the first sub-filter alone exceeds the memory ceiling.
  explicit basic_scalable_filter(const scalable_config& params);
  basic_scalable_filter(std::uint64_t initial_capacity, double target_fpp, std::uint32_t growth = 2,
                        double tightening = 0.5, std::uint64_t memory_ceiling = 0)
      : basic_scalable_filter(
            scalable_config{initial_capacity, target_fpp, growth, tightening, memory_ceiling}) {}

  // Throws errc::invalid_argument naming the parameter unless params are in range.
  static void validate(const scalable_config& params);
  // Throws errc::invalid_argument unless growth * tightening >= 1 or growth is 1: with s r < 1
  // the targets p_i shrink faster than the capacities n_i grow, and no size keeps the bound for
  // long (see above); linear growth is let through for RedisBloom's EXPANSION 1, at the cost
  // described above. A new filter must pass it; a chain loaded from a file that does not keeps
  // answering and taking keys while its newest sub-filter has room, but adds no sub-filter.
  static void check_growth(const scalable_config& params);
  // Parameters of sub-filter `index`: capacity n0 s^i, target FPP p (1 - r) r^i, and the
  // sizing of SubFilter described above. Throws errc::too_large when it cannot exist (capacity past
  // 2^63, FPP underflow, more than max_bits bits or max_hashes hashes, index >= max_sub_filters).
  static filter_config sub_filter_config(const scalable_config& params, std::size_t index);
  // Capacity and target FPP of sub-filter `index` (bits and hashes 0); throws as above.
  static filter_config sub_filter_target(const scalable_config& params, std::size_t index);
  // Throws errc::invalid_argument describing the first problem unless `configs` (with their
  // inserted counts) form a valid chain: 1..max_sub_filters sub-filters; sub-filter i with
  // capacity n0 s^i and target FPP p (1 - r) r^i (to 1e-9 relative), and cells and hashes
  // valid for SubFilter whose FPP at that capacity is within its target (classic: the exact or,
  // for files written before exact sizing, the textbook FPP; blocked: blocked_expected_fpp); all
  // but the newest full, the newest at most full; the total within the memory ceiling. (m and k are
  // not compared with sub_filter_config(): its floating-point sizing may differ in the last bit
  // between C libraries, and any m, k that keep the bound keep the guarantee.)
  static void check_chain(const scalable_config& params, std::span<const filter_config> configs,
                          std::span<const std::uint64_t> inserted);

  // Adds a key unless some sub-filter (probably) holds it; returns whether it was added.
  bool insert(std::string_view key);
  // false: the key was never inserted. true: it probably was.
  bool contains(std::string_view key) const;
  // Integral keys hash their little-endian bytes.
  using detail::integral_keys<basic_scalable_filter>::insert;
  using detail::integral_keys<basic_scalable_filter>::contains;

  // Batched paths over the sub-filters' batched paths; the same results as a loop of insert /
  // contains. insert_many returns the number of keys added; if growing throws (the memory
  // ceiling), the keys before the one that needed room have been added. contains_many returns
  // the number present; results.size() must equal keys.size().
  std::size_t insert_many(std::span<const std::string_view> keys);
  std::size_t contains_many(std::span<const std::string_view> keys, std::span<bool> results) const;

  // By digest (digest_of: the sub-filters' hash), for callers that hash a key once and need
  // per-key answers: added[i] says whether key i was added, as a loop of insert() would say (a
  // repeat later in the batch is not). added.size() and results.size() must equal
  // digests.size().
  static digest_type digest_of(std::string_view key) noexcept { return SubFilter::digest_of(key); }
  static void digests_of(std::span<const std::string_view> keys, std::span<digest_type> digests) {
    SubFilter::digests_of(keys, digests);
  }
  std::size_t insert_many(std::span<const digest_type> digests, std::span<bool> added);
  std::size_t contains_many(std::span<const digest_type> digests, std::span<bool> results) const;

  // Not defined: a union of the sub-filters would hold more keys than their capacities and
  // break the FPP bound (and an intersection of chains of different lengths has no meaning).
  // Always throw errc::unsupported; insert the other filter's keys instead.
  void merge(const basic_scalable_filter& other);
  void intersect(const basic_scalable_filter& other);
  // Back to one empty sub-filter.
  void clear();

  // Keys added (exact: the sum of the sub-filters' inserted()).
  std::uint64_t inserted() const noexcept;
  // Compound FPP 1 - prod(1 - fpp_i), fpp_i the sub-filters' estimated_fpp().
  double estimated_fpp() const noexcept;
  // Sum of the sub-filters' estimated_count().
  double estimated_count() const noexcept;
  // Fraction of set bits over all sub-filters.
  double fill_ratio() const noexcept;
  // Keys the current sub-filters hold before the next is added (sum of their capacities).
  std::uint64_t capacity() const noexcept;
  // Cells (bits) and bytes of all sub-filters together.
  std::uint64_t cells() const noexcept;
  std::size_t byte_size() const noexcept;
  // Hashes per key of the newest sub-filter, the one taking keys (each has its own).
  std::uint32_t hashes() const noexcept { return sub_filters_.back().hashes(); }
  std::size_t sub_filter_count() const noexcept { return sub_filters_.size(); }
  // Oldest (index 0, the smallest) first.
  std::span<const SubFilter> sub_filters() const noexcept { return sub_filters_; }

  const scalable_config& params() const noexcept { return params_; }
  std::uint64_t initial_capacity() const noexcept { return params_.initial_capacity; }
  double target_fpp() const noexcept { return params_.target_fpp; }
  std::uint32_t growth() const noexcept { return params_.growth; }
  double tightening() const noexcept { return params_.tightening; }
  std::uint64_t memory_ceiling() const noexcept { return params_.memory_ceiling; }
  static constexpr hash_scheme scheme() noexcept { return policy_type::scheme; }
  // True for a filter that maps a file: insert, insert_many and clear throw errc::read_only.
  bool read_only() const noexcept { return sub_filters_.front().read_only(); }
  // For a filter that maps a file: throws errc::io_error when a mapped file the sub-filters read
  // has changed (bit_array::check_source); one check, whatever the sub-filter count.
  void check_sources() const;

  // Same parameters (memory ceiling included) and sub-filters, bit for bit.
  friend bool operator==(const basic_scalable_filter& a, const basic_scalable_filter& b) noexcept {
    return a.params_ == b.params_ && a.sub_filters_ == b.sub_filters_;
  }

 private:
  friend struct detail::filter_access;
  // A filter from existing sub-filters (loaders: detail/filter_access.hpp). Throws
  // errc::invalid_argument unless they are what check_chain() accepts.
  basic_scalable_filter(const scalable_config& params, std::vector<SubFilter> sub_filters);

  bool contains_digest(const digest_type& digest) const;
  // The batched insert: candidates are the keys' digests; added (empty: not wanted) as above.
  std::size_t insert_candidates(std::vector<digest_type> candidates, std::span<bool> added);
  bool newest_is_full() const noexcept {
    return sub_filters_.back().inserted() >= sub_filters_.back().capacity();
  }
  // Appends the next sub-filter; throws (changing nothing) when it cannot exist or would pass
  // the memory ceiling.
  void grow();
  // Sets source_ and sources_differ_ from the sub-filters.
  void find_sources() noexcept;

  scalable_config params_;
  std::vector<SubFilter> sub_filters_;
  // The mapped file every sub-filter reads (nullptr when they own their bits), unless they read
  // different ones (a filter built from views of several files): then sources_differ_.
  const mapped_file* source_ = nullptr;
  bool sources_differ_ = false;
};

using scalable_bloom_filter = basic_scalable_filter<bloom_filter>;
using scalable_blocked_bloom_filter = basic_scalable_filter<blocked_bloom_filter>;

// Instantiated once, in the library (src/kinds/scalable_filter.cpp).
extern template class basic_scalable_filter<bloom_filter>;
extern template class basic_scalable_filter<blocked_bloom_filter>;

static_assert(filter_like<scalable_bloom_filter>);
static_assert(filter_like<scalable_blocked_bloom_filter>);

}  // namespace bloomkit
