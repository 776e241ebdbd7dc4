#pragma once
// basic_filter<Probe, Storage>: every in-process filter is this one template over two policies,
// the probe policy (hashing.hpp: how a key is hashed and where it goes) and the storage policy
// (storage.hpp: what each cell holds). The public names are aliases:
//
//   bloom_filter           = basic_filter<xxh3_probe_policy, bit_storage>           (classic)
//   blocked_bloom_filter   = basic_filter<xxh3_split_block_policy, split_block_storage>
//   counting_bloom_filter  = basic_filter<xxh3_probe_policy, counter_storage>       (+ remove)
//   guava::mitz_64_filter, bits_and_blooms::filter, go_zero::filter, ...: the classic filter
//   with the peers' probe policies (compat/*.hpp).
//
//   auto f = bloomkit::bloom_filter::for_capacity(1'000'000, 0.01);
//   f.insert("https://example.com/a");      // true: the key was new
//   f.contains("https://example.com/a");    // true: maybe present
//   f.contains("https://example.com/b");    // false: definitely absent (or, rarely, true)
//
// Batched paths (insert_many, contains_many) run one software pipeline for every storage: each
// key is hashed and its cache lines prefetched well before its cells are touched, so the memory
// accesses of many keys overlap (src/core/filter_pipeline.hpp).
//
// Thread safety: contains / contains_many and, where the storage allows it (classic, blocked),
// insert_concurrent / insert_many_concurrent (and for integer keys insert_integer_concurrent /
// insert_integers_concurrent) may run concurrently with each other on one filter
// (lock-free: relaxed atomic loads and atomic fetch-or on 64-bit words, std::atomic_ref; the
// blocked filter's AVX2 lookups load a whole block at once, src/storage/isa_kernels_avx2.cpp
// says why that is safe).
//
// Single keys: where the kind has one (the blocked filter's split blocks,
// detail/single_key.hpp), insert / contains hash, locate and test in the caller's code, with no
// call into the library; the other kinds and layouts call it.
// insert / insert_many / remove are the faster single-writer path and must not run concurrently
// with anything else on the same filter; nor may merge, intersect, clear or set_simd.
//
// A filter that maps a file (file.hpp) is read-only: every write (insert, remove, merge,
// intersect, clear) throws errc::read_only with one message. Its lookups (and merge / intersect
// reading it) throw errc::io_error naming the file once it was truncated or overwritten in place
// while mapped (mapped_file.hpp); the lost pages read as all-ones meanwhile, so no lookup ever
// answers a wrong "absent".

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

#include "bloomkit/bit_array.hpp"
#include "bloomkit/detail/key_bytes.hpp"
#include "bloomkit/detail/result_slots.hpp"
#include "bloomkit/detail/single_key.hpp"
#include "bloomkit/detail/widened_keys.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/hashing.hpp"
#include "bloomkit/key_type.hpp"
#include "bloomkit/sizing.hpp"
#include "bloomkit/storage.hpp"

namespace bloomkit {

// Everything that describes a filter besides its cells.
struct filter_config {
  std::uint64_t cells = 0;     // m: bits (classic, blocked) or counters (counting)
  std::uint32_t hashes = 0;    // k: cells per key
  std::uint64_t capacity = 0;  // n the filter was sized for
  double target_fpp = 0;       // p the filter was sized for
  // What its keys are: integer keys (key_type::int64) hash by the probe policy's integer scheme.
  key_type keys = key_type::string;
  friend bool operator==(const filter_config&, const filter_config&) = default;
};

namespace detail {
struct filter_access;
// Throws errc::invalid_argument: a key of the other type than the filter's `keys`.
[[noreturn]] void refuse_key_type(key_type keys);
}  // namespace detail

template <class Probe, storage_policy Storage>
class basic_filter : public detail::integral_keys<basic_filter<Probe, Storage>> {
 public:
  using policy_type = Probe;
  using storage_type = Storage;
  using digest_type = typename Probe::digest_type;
  // How every member works is the storage's own (Storage::ops, storage.hpp): nothing here asks
  // which storage it has. Capabilities stay as requirements, because they decide which members
  // a kind has at all (a call a kind cannot answer fails to compile rather than at run time):
  // Storage::removable (remove, counters), Storage::concurrent_inserts, bits_per_cell == 1
  // (bits()), blocked_layout<Storage> (sized in bits or blocks, blocks(), the ISA choice).
  static constexpr bool blocked = blocked_layout<Storage>;
  static constexpr bool counting = Storage::removable;

  // A filter sized for n keys at false-positive probability p: the probe policy's own sizing if
  // it has one (the peers'), the blocked formula for split blocks, else optimal_params
  // (sizing.hpp).
  // `keys`: key_type::int64 makes a filter of integer keys (below), if the policy has an integer
  // scheme (the native ones); errc::invalid_argument otherwise.
  static basic_filter for_capacity(std::uint64_t n, double p, key_type keys = key_type::string);
  // A filter of m cells and k probes. Its capacity is the n at which k is optimal for m, and its
  // target FPP the policy's FPP at that n (exact_fpp for the native scheme).
  basic_filter(std::uint64_t cells, std::uint32_t hashes) requires(!blocked_layout<Storage>);
  // A blocked filter of at least `bits` bits, rounded up to whole 256-bit blocks (bits() tells).
  explicit basic_filter(std::uint64_t bits) requires blocked_layout<Storage>;
  // A blocked filter of `blocks` blocks. Its capacity is the n at which 8 bits per key is
  // optimal (blocked_natural_capacity) and its target FPP the expected FPP at that n.
  static basic_filter with_blocks(std::uint64_t blocks) requires blocked_layout<Storage>;

  // Adds a key; returns whether it was new (at least one of its cells was 0).
  // A filter of integer keys refuses string keys (errc::invalid_argument), on every path.
  bool insert(std::string_view key) {
    require_keys(key_type::string);
    return insert_digest(single_key::hash(key));
  }
  // insert() that may run concurrently with other concurrent inserts and lookups.
  bool insert_concurrent(std::string_view key) requires Storage::concurrent_inserts {
    require_keys(key_type::string);
    return add_atomic(Probe::hash(key));
  }
  // false: the key was never inserted. true: it probably was.
  bool contains(std::string_view key) const {
    require_keys(key_type::string);
    return contains_digest(single_key::hash(key));
  }
  // Counting: removes one occurrence of an inserted key: decrements each of its counters that
  // is not saturated and returns true. When the key is definitely absent (a counter is 0, or
  // smaller than the number of the key's probes that land on it), returns false and changes
  // nothing. Removing a key never inserted that tests positive decrements other keys' counters.
  bool remove(std::string_view key) requires Storage::removable;

  // Integral keys: a filter of integer keys hashes their 64-bit value by its integer scheme
  // (widen_key, key_type.hpp); a filter of byte strings hashes their little-endian bytes.
  using detail::integral_keys<basic_filter>::insert;
  using detail::integral_keys<basic_filter>::contains;
  using detail::integral_keys<basic_filter>::remove;

  // By digest: a key hashed once with digest_of() can be inserted into / looked up in several
  // filters of this scheme (of any sizes) without hashing it again, e.g. the sub-filters of a
  // scalable filter. insert_digest(digest_of(key)) is insert(key), and so on.
  static digest_type digest_of(std::string_view key) noexcept { return Probe::hash(key); }
  // digests[i] = digest_of(keys[i]), the hash inlined in the loop (blocked: XXH3 without a call
  // per key). digests.size() must equal keys.size().
  static void digests_of(std::span<const std::string_view> keys, std::span<digest_type> digests);
  bool insert_digest(const digest_type& d) {
    if (!single_key::handles(config_.hashes) || read_only()) return add_plain(d);
    const bool changed = single_key::insert(const_cast<std::uint64_t*>(cells_.data()), cells(), d);
    inserted_ += changed ? 1 : 0;
    return changed;
  }
  bool contains_digest(const digest_type& d) const {
    const bool present = single_key::handles(config_.hashes)
                             ? single_key::contains(cells_.data(), cells(), d)
                             : contains_digest_unchecked(d);
    cells_.check_source();
    return present;
  }
  // contains_digest without the check of a mapped file after it: for composites that look a key
  // up in several filters over one mapped file and check the file once.
  bool contains_digest_unchecked(const digest_type& d) const noexcept;

  // Batched paths. Return the number of new / present keys; results[i] is set to
  // contains(keys[i]) and results.size() must equal keys.size().
  std::size_t insert_many(std::span<const std::string_view> keys);
  std::size_t insert_many(std::span<const digest_type> digests);
  // insert_many that also sets added[i] to whether digest i was new (insert_digest's result):
  // the keys go in in order, so a repeat later in the batch is not new. added.size() must equal
  // digests.size().
  std::size_t insert_many(std::span<const digest_type> digests, std::span<bool> added);
  std::size_t insert_many_concurrent(
      std::span<const std::string_view> keys) requires Storage::concurrent_inserts;
  std::size_t contains_many(std::span<const std::string_view> keys, std::span<bool> results) const;
  std::size_t contains_many(std::span<const digest_type> digests, std::span<bool> results) const;

  // Integer keys (a filter made with key_type::int64; scheme integer_scheme() in files). Each
  // key is widen_key(key). The batches run the pipeline of the string keys, hashing inline.
  // A filter of byte-string keys refuses them (errc::invalid_argument): its integral insert /
  // contains take an integer as its bytes instead. Same results as insert_many / contains_many.
  bool insert_integer(std::uint64_t key);
  bool contains_integer(std::uint64_t key) const;
  bool remove_integer(std::uint64_t key) requires Storage::removable;
  template <integer_key T>
  std::size_t insert_integers(std::span<const T> keys);
  template <integer_key T>
  std::size_t contains_integers(std::span<const T> keys, std::span<bool> results) const;
  // insert_integer / insert_integers that may run concurrently with other concurrent inserts and
  // lookups (as insert_concurrent / insert_many_concurrent).
  bool insert_integer_concurrent(std::uint64_t key) requires Storage::concurrent_inserts;
  template <integer_key T>
  std::size_t insert_integers_concurrent(
      std::span<const T> keys) requires Storage::concurrent_inserts;
  // The key type it takes, and the scheme its files record (integer_scheme for integer keys).
  key_type keys() const noexcept { return config_.keys; }
  hash_scheme file_scheme() const noexcept;

  // Union (set filters: bitwise or; counting: saturating counter addition, the multiset union)
  // and intersection (and; counting: the smaller counter). Throw errc::incompatible unless both
  // have the same cells and hashes.
  void merge(const basic_filter& other);
  void intersect(const basic_filter& other);
  void clear();

  // Distinct keys estimated from the fraction X/m of non-zero cells: -m/k ln(1 - X/m)
  // (Swamidass & Baldwin, 2007; for blocked filters k = 8: a key sets one bit in 8 words).
  double estimated_count() const noexcept;
  // The false-positive probability the cells give now: classic and counting fpp_at_fill(m, k,
  // X) of the probe policy (X^k without figures), blocked the mean over blocks of the product
  // over its eight words of (set bits / 32). Follows the cells, not inserted(): 1 when every
  // cell is set.
  double estimated_fpp() const noexcept;
  // Fraction of non-zero cells.
  double fill_ratio() const noexcept;

  // m: the cells (bits, or counters).
  std::uint64_t cells() const noexcept { return config_.cells; }
  // The bits of a classic or blocked filter (= cells()).
  std::uint64_t bits() const noexcept requires(Storage::bits_per_cell == 1) {
    return config_.cells;
  }
  std::uint32_t hashes() const noexcept { return config_.hashes; }
  std::uint64_t capacity() const noexcept { return config_.capacity; }
  double target_fpp() const noexcept { return config_.target_fpp; }
  // Inserts that changed the filter (set a bit; or, counting, incremented a counter: every
  // insert but of a key whose counters are all saturated), less successful removes. After merge
  // of set filters and after intersect it is the estimated_count() of the result (m when every
  // cell is set); after merge of counting filters the sum of both.
  std::uint64_t inserted() const noexcept;
  static constexpr hash_scheme scheme() noexcept { return Probe::scheme; }
  const filter_config& config() const noexcept { return config_; }
  // The cells as they lie in memory and in files (counting: counter i is bits 4i..4i+3).
  const bit_array& storage() const noexcept { return cells_; }
  std::size_t byte_size() const noexcept { return cells_.byte_size(); }
  // True for a filter that maps a file: every write throws errc::read_only.
  bool read_only() const noexcept { return cells_.read_only(); }

  // Blocked: 256-bit blocks; the AVX2 path (when this CPU and build have it) or the portable
  // one, which set and test the same bits. set_simd is for tests and benchmarks.
  static constexpr std::uint64_t block_bits = blocked_block_bits;
  static constexpr std::uint32_t hashes_per_key = blocked_hashes;
  std::uint64_t blocks() const noexcept requires blocked_layout<Storage> {
    return config_.cells / block_bits;
  }
  static bool simd_supported() noexcept requires blocked_layout<Storage>;
  bool simd() const noexcept requires blocked_layout<Storage>;
  bool set_simd(bool enable) noexcept requires blocked_layout<Storage>;

  // Counting: counter values and the classic filter of the same keys.
  static constexpr std::uint32_t max_count = counter_storage::max_count;
  static constexpr std::uint64_t max_counters = counter_storage::max_cells;
  std::uint64_t counters() const noexcept requires Storage::removable { return config_.cells; }
  // The value of counter i (0..15), i < counters().
  std::uint32_t counter(std::uint64_t index) const noexcept requires Storage::removable;
  std::uint64_t nonzero_counters() const noexcept requires Storage::removable;
  std::uint64_t saturated_counters() const noexcept requires Storage::removable;
  // The classic filter of the same m, k, capacity and target FPP whose bit i is set exactly when
  // counter i is non-zero (its keys' bits, bit for bit); its inserted() is this inserted().
  basic_filter<Probe, bit_storage> to_bloom_filter() const requires Storage::removable;

  // Same parameters, scheme and cells (the inserted count is not compared).
  friend bool operator==(const basic_filter& a, const basic_filter& b) noexcept {
    return a.config_.cells == b.config_.cells && a.config_.hashes == b.config_.hashes &&
           a.config_.keys == b.config_.keys && a.cells_ == b.cells_;
  }

 private:
  friend struct detail::filter_access;
  // The single-key paths compiled into the caller, where the kind has them (detail/single_key.hpp).
  using single_key = detail::single_key<Probe, Storage>;
  // A filter over existing storage (loaders: detail/filter_access.hpp). Throws
  // errc::invalid_argument when the storage does not hold the config's cells or the config is
  // out of range for the policies.
  basic_filter(const filter_config& config, bit_array storage, std::uint64_t inserted);
  // An empty filter of a checked config (its storage allocated after the checks).
  static basic_filter empty(const filter_config& config);

  // The storage's hot paths over `words` (Storage::ops::paths).
  auto paths(std::uint64_t* words) const noexcept;
  bool add_plain(const digest_type& d);
  bool add_atomic(const digest_type& d);
  template <bool Atomic>
  bool add(const digest_type& d);
  std::size_t insert_digests(std::span<const digest_type> digests, bool* added);
  // A member template: an explicit instantiation of a storage that cannot remove leaves it out.
  template <class S = Storage>
  bool remove_digest(const digest_type& d);
  std::size_t insert_integer_span(std::span<const std::uint64_t> keys);
  std::size_t insert_integer_span_concurrent(std::span<const std::uint64_t> keys);
  template <bool Atomic>
  std::size_t add_integers(std::span<const std::uint64_t> keys);
  std::size_t contains_integer_span(std::span<const std::uint64_t> keys, bool* results) const;
  void require_keys(key_type keys) const {
    if (config_.keys != keys) [[unlikely]]
      detail::refuse_key_type(config_.keys);
  }
  template <bool Atomic>
  std::size_t insert_keys(std::span<const std::string_view> keys);
  template <bool Atomic>
  void add_inserted(std::uint64_t n) noexcept;
  std::uint64_t* writable_words();
  void require_compatible(const basic_filter& other, const char* operation) const;
  void set_inserted_from_cells() noexcept;
  std::uint64_t nonzero_cells() const noexcept;

  filter_config config_;
  bit_array cells_;
  std::uint64_t inserted_ = 0;
  // What this filter keeps for its storage (blocked: the ISA kernels it runs). Not
  // [[no_unique_address]]: every filter keeps the size it had (memory reports count it).
  typename Storage::state state_;
};

template <class Probe>
using basic_bloom_filter = basic_filter<Probe, bit_storage>;
using bloom_filter = basic_filter<xxh3_probe_policy, bit_storage>;
using blocked_bloom_filter = basic_filter<xxh3_split_block_policy, split_block_storage>;
using counting_bloom_filter = basic_filter<xxh3_probe_policy, counter_storage>;

template <class Probe, storage_policy Storage>
template <integer_key T>
std::size_t basic_filter<Probe, Storage>::insert_integers(std::span<const T> keys) {
  return detail::over_widened_keys(keys, [this](std::span<const std::uint64_t> chunk, std::size_t) {
    return insert_integer_span(chunk);
  });
}

template <class Probe, storage_policy Storage>
template <integer_key T>
std::size_t basic_filter<Probe, Storage>::insert_integers_concurrent(
    std::span<const T> keys) requires Storage::concurrent_inserts {
  return detail::over_widened_keys(keys, [this](std::span<const std::uint64_t> chunk, std::size_t) {
    return insert_integer_span_concurrent(chunk);
  });
}

template <class Probe, storage_policy Storage>
template <integer_key T>
std::size_t basic_filter<Probe, Storage>::contains_integers(std::span<const T> keys,
                                                            std::span<bool> results) const {
  detail::require_result_slots(keys.size(), results.size(), "contains_integers");
  return detail::over_widened_keys(
      keys, [this, results](std::span<const std::uint64_t> chunk, std::size_t at) {
        return contains_integer_span(chunk, results.data() + at);
      });
}

// The surface every filter kind has (any_filter's alternatives, the scalable filter).
template <class F>
concept filter_like = requires(F& f, const F& cf, std::string_view key,
                               std::span<const std::string_view> keys, std::span<bool> results) {
  { f.insert(key) } -> std::same_as<bool>;
  { cf.contains(key) } -> std::same_as<bool>;
  { f.insert_many(keys) } -> std::same_as<std::size_t>;
  { cf.contains_many(keys, results) } -> std::same_as<std::size_t>;
  f.merge(cf);
  f.intersect(cf);
  f.clear();
  { cf.cells() } -> std::same_as<std::uint64_t>;
  { cf.hashes() } -> std::same_as<std::uint32_t>;
  { cf.capacity() } -> std::same_as<std::uint64_t>;
  { cf.target_fpp() } -> std::same_as<double>;
  { cf.inserted() } -> std::same_as<std::uint64_t>;
  { cf.estimated_count() } -> std::same_as<double>;
  { cf.estimated_fpp() } -> std::same_as<double>;
  { cf.fill_ratio() } -> std::same_as<double>;
  { cf.byte_size() } -> std::same_as<std::size_t>;
  { cf.read_only() } -> std::same_as<bool>;
  { F::scheme() } -> std::same_as<hash_scheme>;
};

// Instantiated once, in the library (src/kinds/filter.cpp; the peers' policies in src/compat).
extern template class basic_filter<xxh3_probe_policy, bit_storage>;
extern template class basic_filter<xxh3_split_block_policy, split_block_storage>;
extern template class basic_filter<xxh3_probe_policy, counter_storage>;

static_assert(filter_like<bloom_filter>);
static_assert(filter_like<blocked_bloom_filter>);
static_assert(filter_like<counting_bloom_filter>);

}  // namespace bloomkit
