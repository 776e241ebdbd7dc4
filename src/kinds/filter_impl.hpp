#pragma once
// Internal: the members of basic_filter (filter.hpp), instantiated in src/kinds/filter.cpp for the
// native policies and in src/compat for the peers' probe policies.

#include <string>
#include <utility>

#include "../storage/storage_ops.hpp"
#include "bloomkit/detail/result_slots.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/filter.hpp"
#include "filter_rules.hpp"

namespace bloomkit {

template <class Probe, storage_policy Storage>
basic_filter<Probe, Storage> basic_filter<Probe, Storage>::for_capacity(std::uint64_t n, double p,
                                                                        key_type keys) {
  filter_config config = detail::sized_config<Probe, Storage>(n, p);
  config.keys = keys;
  return empty(config);
}

template <class Probe, storage_policy Storage>
basic_filter<Probe, Storage> basic_filter<Probe, Storage>::empty(const filter_config& config) {
  return basic_filter(config, bit_array(config.cells * Storage::bits_per_cell), 0);
}

template <class Probe, storage_policy Storage>
basic_filter<Probe, Storage>::basic_filter(std::uint64_t cells,
                                           std::uint32_t hashes) requires(!blocked_layout<Storage>)
    : basic_filter(empty(detail::natural_config<Probe, Storage>(cells, hashes))) {}

template <class Probe, storage_policy Storage>
basic_filter<Probe, Storage>::basic_filter(std::uint64_t bits) requires blocked_layout<Storage>
    : basic_filter(empty(Storage::ops::config_for_bits(bits))) {}

template <class Probe, storage_policy Storage>
basic_filter<Probe, Storage> basic_filter<Probe, Storage>::with_blocks(
    std::uint64_t blocks) requires blocked_layout<Storage> {
  return empty(Storage::ops::config_for_blocks(blocks));
}

template <class Probe, storage_policy Storage>
basic_filter<Probe, Storage>::basic_filter(const filter_config& config, bit_array storage,
                                           std::uint64_t inserted)
    : config_(config), cells_(std::move(storage)), inserted_(inserted) {
  detail::check_config<Probe, Storage>(config);
  detail::check_storage_size<Storage>(config, cells_.size());
  Storage::ops::init(state_);
}

template <class Probe, storage_policy Storage>
auto basic_filter<Probe, Storage>::paths(std::uint64_t* words) const noexcept {
  return typename Storage::ops::template paths<Probe>(words, config_, byte_size(), state_);
}

// ---------------------------------------------------------------------------------------------
// Writes

template <class Probe, storage_policy Storage>
std::uint64_t* basic_filter<Probe, Storage>::writable_words() {
  detail::require_writable(read_only());
  return cells_.mutable_words().data();
}

template <class Probe, storage_policy Storage>
template <bool Atomic>
void basic_filter<Probe, Storage>::add_inserted(std::uint64_t n) noexcept {
  if constexpr (Atomic) {
    if (n != 0) std::atomic_ref<std::uint64_t>(inserted_).fetch_add(n, std::memory_order_relaxed);
  } else {
    inserted_ += n;
  }
}

template <class Probe, storage_policy Storage>
std::uint64_t basic_filter<Probe, Storage>::inserted() const noexcept {
  return std::atomic_ref<std::uint64_t>(const_cast<std::uint64_t&>(inserted_))
      .load(std::memory_order_relaxed);
}

template <class Probe, storage_policy Storage>
template <bool Atomic>
bool basic_filter<Probe, Storage>::add(const digest_type& d) {
  const bool changed = paths(writable_words()).template insert<Atomic>(d);
  add_inserted<Atomic>(Storage::ops::counted(1, changed));
  return changed;
}

template <class Probe, storage_policy Storage>
bool basic_filter<Probe, Storage>::add_plain(const digest_type& d) {
  return add<false>(d);
}

template <class Probe, storage_policy Storage>
bool basic_filter<Probe, Storage>::add_atomic(const digest_type& d) {
  return add<Storage::concurrent_inserts>(d);
}

template <class Probe, storage_policy Storage>
template <bool Atomic>
std::size_t basic_filter<Probe, Storage>::insert_keys(std::span<const std::string_view> keys) {
  const std::size_t fresh = paths(writable_words()).template insert_keys<Atomic>(keys, nullptr);
  add_inserted<Atomic>(Storage::ops::counted(keys.size(), fresh));
  return fresh;
}

template <class Probe, storage_policy Storage>
void basic_filter<Probe, Storage>::digests_of(std::span<const std::string_view> keys,
                                              std::span<digest_type> digests) {
  detail::require_result_slots(keys.size(), digests.size(), "digests_of");
  using paths_type = typename Storage::ops::template paths<Probe>;
  for (std::size_t i = 0; i < keys.size(); ++i) digests[i] = paths_type::hash(keys[i]);
}

template <class Probe, storage_policy Storage>
std::size_t basic_filter<Probe, Storage>::insert_many(std::span<const std::string_view> keys) {
  require_keys(key_type::string);
  return insert_keys<false>(keys);
}

template <class Probe, storage_policy Storage>
std::size_t basic_filter<Probe, Storage>::insert_many(std::span<const digest_type> digests) {
  return insert_digests(digests, nullptr);
}

template <class Probe, storage_policy Storage>
std::size_t basic_filter<Probe, Storage>::insert_many(std::span<const digest_type> digests,
                                                      std::span<bool> added) {
  detail::require_result_slots(digests.size(), added.size());
  return insert_digests(digests, added.data());
}

template <class Probe, storage_policy Storage>
std::size_t basic_filter<Probe, Storage>::insert_digests(std::span<const digest_type> digests,
                                                         bool* added) {
  const std::size_t fresh = paths(writable_words()).insert_digests(digests, added);
  add_inserted<false>(Storage::ops::counted(digests.size(), fresh));
  return fresh;
}

template <class Probe, storage_policy Storage>
std::size_t basic_filter<Probe, Storage>::insert_many_concurrent(
    std::span<const std::string_view> keys) requires Storage::concurrent_inserts {
  require_keys(key_type::string);
  return insert_keys<true>(keys);
}

// ---------------------------------------------------------------------------------------------
// Lookups (never write through the words they are given)

template <class Probe, storage_policy Storage>
bool basic_filter<Probe, Storage>::contains_digest_unchecked(const digest_type& d) const noexcept {
  return paths(const_cast<std::uint64_t*>(cells_.data())).contains(d);
}

template <class Probe, storage_policy Storage>
std::size_t basic_filter<Probe, Storage>::contains_many(std::span<const std::string_view> keys,
                                                        std::span<bool> results) const {
  require_keys(key_type::string);
  detail::require_result_slots(keys.size(), results.size());
  const std::size_t present =
      paths(const_cast<std::uint64_t*>(cells_.data())).contains_keys(keys, results.data());
  cells_.check_source();
  return present;
}

template <class Probe, storage_policy Storage>
std::size_t basic_filter<Probe, Storage>::contains_many(std::span<const digest_type> digests,
                                                        std::span<bool> results) const {
  detail::require_result_slots(digests.size(), results.size());
  const std::size_t present =
      paths(const_cast<std::uint64_t*>(cells_.data())).contains_digests(digests, results.data());
  cells_.check_source();
  return present;
}

// ---------------------------------------------------------------------------------------------
// Integer keys (the probe policy's integer scheme; only its policies make such filters)

template <class Probe, storage_policy Storage>
hash_scheme basic_filter<Probe, Storage>::file_scheme() const noexcept {
  if constexpr (integer_probe_policy<Probe>) {
    if (config_.keys == key_type::int64) return Probe::integer_scheme;
  }
  return Probe::scheme;
}

template <class Probe, storage_policy Storage>
bool basic_filter<Probe, Storage>::insert_integer(std::uint64_t key) {
  require_keys(key_type::int64);
  if constexpr (integer_probe_policy<Probe>) return insert_digest(Probe::hash_integer(key));
  return false;
}

template <class Probe, storage_policy Storage>
bool basic_filter<Probe, Storage>::contains_integer(std::uint64_t key) const {
  require_keys(key_type::int64);
  if constexpr (integer_probe_policy<Probe>) return contains_digest(Probe::hash_integer(key));
  return false;
}

template <class Probe, storage_policy Storage>
template <bool Atomic>
std::size_t basic_filter<Probe, Storage>::add_integers(std::span<const std::uint64_t> keys) {
  require_keys(key_type::int64);
  if constexpr (integer_probe_policy<Probe>) {
    const std::size_t fresh =
        paths(writable_words()).template insert_integers<Atomic>(keys, nullptr);
    add_inserted<Atomic>(Storage::ops::counted(keys.size(), fresh));
    return fresh;
  }
  return 0;
}

template <class Probe, storage_policy Storage>
std::size_t basic_filter<Probe, Storage>::insert_integer_span(std::span<const std::uint64_t> keys) {
  return add_integers<false>(keys);
}

template <class Probe, storage_policy Storage>
std::size_t basic_filter<Probe, Storage>::insert_integer_span_concurrent(
    std::span<const std::uint64_t> keys) {
  return add_integers<Storage::concurrent_inserts>(keys);
}

template <class Probe, storage_policy Storage>
bool basic_filter<Probe, Storage>::insert_integer_concurrent(
    std::uint64_t key) requires Storage::concurrent_inserts {
  require_keys(key_type::int64);
  if constexpr (integer_probe_policy<Probe>) return add_atomic(Probe::hash_integer(key));
  return false;
}

template <class Probe, storage_policy Storage>
std::size_t basic_filter<Probe, Storage>::contains_integer_span(std::span<const std::uint64_t> keys,
                                                                bool* results) const {
  require_keys(key_type::int64);
  if constexpr (integer_probe_policy<Probe>) {
    const std::size_t present =
        paths(const_cast<std::uint64_t*>(cells_.data())).contains_integers(keys, results);
    cells_.check_source();
    return present;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// Whole-filter operations

template <class Probe, storage_policy Storage>
void basic_filter<Probe, Storage>::require_compatible(const basic_filter& other,
                                                      const char* operation) const {
  detail::require_same_geometry<Storage>(config_, other.config_, operation);
}

template <class Probe, storage_policy Storage>
void basic_filter<Probe, Storage>::merge(const basic_filter& other) {
  detail::require_writable(read_only());
  require_compatible(other, "merge");
  detail::combine_words(cells_, other.cells_, [](std::uint64_t a, std::uint64_t b) noexcept {
    return Storage::ops::merge_word(a, b);
  });
  inserted_ = Storage::ops::inserted_after_merge(inserted_, other.inserted_, [this]() noexcept {
    return detail::count_from_estimate(estimated_count(), config_.cells);
  });
}

template <class Probe, storage_policy Storage>
void basic_filter<Probe, Storage>::intersect(const basic_filter& other) {
  detail::require_writable(read_only());
  require_compatible(other, "intersect");
  detail::combine_words(cells_, other.cells_, [](std::uint64_t a, std::uint64_t b) noexcept {
    return Storage::ops::intersect_word(a, b);
  });
  set_inserted_from_cells();
}

template <class Probe, storage_policy Storage>
void basic_filter<Probe, Storage>::clear() {
  detail::require_writable(read_only());
  cells_.clear();
  inserted_ = 0;
}

template <class Probe, storage_policy Storage>
void basic_filter<Probe, Storage>::set_inserted_from_cells() noexcept {
  inserted_ = detail::count_from_estimate(estimated_count(), config_.cells);
}

template <class Probe, storage_policy Storage>
std::uint64_t basic_filter<Probe, Storage>::nonzero_cells() const noexcept {
  return Storage::ops::nonzero_cells(cells_);
}

template <class Probe, storage_policy Storage>
double basic_filter<Probe, Storage>::fill_ratio() const noexcept {
  return static_cast<double>(nonzero_cells()) / static_cast<double>(config_.cells);
}

template <class Probe, storage_policy Storage>
double basic_filter<Probe, Storage>::estimated_count() const noexcept {
  return estimate_count(config_.cells, config_.hashes, nonzero_cells());
}

template <class Probe, storage_policy Storage>
double basic_filter<Probe, Storage>::estimated_fpp() const noexcept {
  return Storage::ops::template estimated_fpp<Probe>(cells_, config_);
}

}  // namespace bloomkit

#include "filter_extras_impl.hpp"
