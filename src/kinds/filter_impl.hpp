#pragma once
// Internal: the members of basic_filter (filter.hpp), instantiated in src/kinds/filter.cpp for the
// native policies and in src/compat for the peers' probe policies.

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "../core/filter_pipeline.hpp"
#include "../storage/blocked_kernels.hpp"
#include "../storage/cell_ops.hpp"
#include "../storage/counter_words.hpp"
#include "bloomkit/detail/result_slots.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/filter.hpp"
#include "filter_rules.hpp"

namespace bloomkit {

namespace detail {

// The cell operations of a positional storage (classic, counting) for probe policy P.
template <class P, class S>
using positional_ops_for =
    positional_ops<P, std::conditional_t<S::removable, nibble_cell, bit_cell>>;

// Filters of at least this size live in DRAM, where prefetching every line of a key before
// touching any pays; below it (in cache) the plain loops are faster.
inline constexpr std::size_t dram_filter_bytes = std::size_t{1} << 20;

}  // namespace detail

template <class Probe, storage_policy Storage>
basic_filter<Probe, Storage> basic_filter<Probe, Storage>::for_capacity(std::uint64_t n, double p) {
  return empty(detail::sized_config<Probe, Storage>(n, p));
}

template <class Probe, storage_policy Storage>
basic_filter<Probe, Storage> basic_filter<Probe, Storage>::empty(const filter_config& config) {
  return basic_filter(config, bit_array(config.cells * Storage::bits_per_cell), 0);
}

template <class Probe, storage_policy Storage>
basic_filter<Probe, Storage>::basic_filter(std::uint64_t cells, std::uint32_t hashes) requires(
    !std::same_as<Storage, split_block_storage>)
    : basic_filter(empty(detail::natural_config<Probe, Storage>(cells, hashes))) {}

template <class Probe, storage_policy Storage>
basic_filter<Probe, Storage>::basic_filter(std::uint64_t bits) requires(
    std::same_as<Storage, split_block_storage>)
    : basic_filter(empty(detail::blocked_config_for_blocks(detail::blocks_for_bits(bits)))) {}

template <class Probe, storage_policy Storage>
basic_filter<Probe, Storage> basic_filter<Probe, Storage>::with_blocks(
    std::uint64_t blocks) requires(std::same_as<Storage, split_block_storage>) {
  return empty(detail::blocked_config_for_blocks(blocks));
}

template <class Probe, storage_policy Storage>
basic_filter<Probe, Storage>::basic_filter(const filter_config& config, bit_array storage,
                                           std::uint64_t inserted)
    : config_(config), cells_(std::move(storage)), inserted_(inserted) {
  detail::check_config<Probe, Storage>(config);
  detail::check_storage_size<Storage>(config, cells_.size());
  if constexpr (blocked) kernels_ = &detail::default_blocked_kernels();
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
  std::uint64_t* words = writable_words();
  bool changed;
  if constexpr (blocked) {
    changed = kernels_->insert(words, blocks(), d, Atomic);
  } else {
    const detail::positional_ops_for<Probe, Storage> ops{words, config_.cells, config_.hashes};
    changed = ops.template insert_one<Atomic>(d, byte_size() >= detail::dram_filter_bytes);
  }
  // A counting insert counts although no counter was 0 (the key may be there twice).
  add_inserted<Atomic>(counting ? 1 : changed);
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
template <bool Atomic, class DigestAt>
std::size_t basic_filter<Probe, Storage>::insert_batch(std::size_t n, DigestAt digest_at,
                                                       bool* added) {
  std::uint64_t* words = writable_words();
  const detail::positional_ops_for<Probe, Storage> ops{words, config_.cells, config_.hashes};
  const std::size_t lag = byte_size() >= detail::dram_filter_bytes ? detail::pipeline_lag : 0;
  const std::size_t fresh = detail::insert_pipeline<Atomic>(ops, n, digest_at, lag, added);
  add_inserted<Atomic>(counting ? n : fresh);
  return fresh;
}

template <class Probe, storage_policy Storage>
template <bool Atomic>
std::size_t basic_filter<Probe, Storage>::insert_keys(std::span<const std::string_view> keys) {
  if constexpr (blocked) {
    const std::size_t fresh = kernels_->insert_many(
        writable_words(), blocks(), {keys.data(), nullptr, keys.size()}, Atomic, nullptr);
    add_inserted<Atomic>(fresh);
    return fresh;
  } else {
    return insert_batch<Atomic>(keys.size(),
                                [keys](std::size_t i) noexcept { return Probe::hash(keys[i]); });
  }
}

template <class Probe, storage_policy Storage>
void basic_filter<Probe, Storage>::digests_of(std::span<const std::string_view> keys,
                                              std::span<digest_type> digests) {
  detail::require_result_slots(keys.size(), digests.size(), "digests_of");
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if constexpr (blocked) {
      digests[i] = XXH3_64bits(keys[i].data(), keys[i].size());  // xxh3_split_block_policy
    } else {
      digests[i] = Probe::hash(keys[i]);
    }
  }
}

template <class Probe, storage_policy Storage>
std::size_t basic_filter<Probe, Storage>::insert_many(std::span<const std::string_view> keys) {
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
  if constexpr (blocked) {
    const std::size_t fresh = kernels_->insert_many(
        writable_words(), blocks(), {nullptr, digests.data(), digests.size()}, false, added);
    add_inserted<false>(fresh);
    return fresh;
  } else {
    return insert_batch<false>(
        digests.size(),
        [digests](std::size_t i) noexcept -> const digest_type& { return digests[i]; }, added);
  }
}

template <class Probe, storage_policy Storage>
std::size_t basic_filter<Probe, Storage>::insert_many_concurrent(
    std::span<const std::string_view> keys) requires Storage::concurrent_inserts {
  return insert_keys<true>(keys);
}

// ---------------------------------------------------------------------------------------------
// Lookups

template <class Probe, storage_policy Storage>
bool basic_filter<Probe, Storage>::contains_digest_unchecked(const digest_type& d) const noexcept {
  if constexpr (blocked) {
    return kernels_->contains(cells_.data(), blocks(), d);
  } else {
    const detail::positional_ops_for<Probe, Storage> ops{const_cast<std::uint64_t*>(cells_.data()),
                                                         config_.cells, config_.hashes};
    return ops.contains_one(d, byte_size() >= detail::dram_filter_bytes);
  }
}

template <class Probe, storage_policy Storage>
template <class DigestAt>
std::size_t basic_filter<Probe, Storage>::lookup_batch(std::size_t n, DigestAt digest_at,
                                                       bool* results) const {
  const detail::positional_ops_for<Probe, Storage> ops{const_cast<std::uint64_t*>(cells_.data()),
                                                       config_.cells, config_.hashes};
  const std::size_t present = detail::lookup_pipeline(ops, n, digest_at, results);
  cells_.check_source();
  return present;
}

template <class Probe, storage_policy Storage>
std::size_t basic_filter<Probe, Storage>::contains_many(std::span<const std::string_view> keys,
                                                        std::span<bool> results) const {
  detail::require_result_slots(keys.size(), results.size());
  if constexpr (blocked) {
    const std::size_t present = kernels_->contains_many(
        cells_.data(), blocks(), {keys.data(), nullptr, keys.size()}, results.data());
    cells_.check_source();
    return present;
  } else {
    return lookup_batch(
        keys.size(), [keys](std::size_t i) noexcept { return Probe::hash(keys[i]); },
        results.data());
  }
}

template <class Probe, storage_policy Storage>
std::size_t basic_filter<Probe, Storage>::contains_many(std::span<const digest_type> digests,
                                                        std::span<bool> results) const {
  detail::require_result_slots(digests.size(), results.size());
  if constexpr (blocked) {
    const std::size_t present = kernels_->contains_many(
        cells_.data(), blocks(), {nullptr, digests.data(), digests.size()}, results.data());
    cells_.check_source();
    return present;
  } else {
    return lookup_batch(
        digests.size(),
        [digests](std::size_t i) noexcept -> const digest_type& { return digests[i]; },
        results.data());
  }
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
  detail::combine_words(cells_, other.cells_, [](std::uint64_t a, std::uint64_t b) {
    return counting ? detail::saturating_add_nibbles(a, b) : a | b;
  });
  if constexpr (counting) {
    const std::uint64_t room = std::numeric_limits<std::uint64_t>::max() - inserted_;
    inserted_ = other.inserted_ > room ? std::numeric_limits<std::uint64_t>::max()
                                       : inserted_ + other.inserted_;
  } else {
    set_inserted_from_cells();
  }
}

template <class Probe, storage_policy Storage>
void basic_filter<Probe, Storage>::intersect(const basic_filter& other) {
  detail::require_writable(read_only());
  require_compatible(other, "intersect");
  detail::combine_words(cells_, other.cells_, [](std::uint64_t a, std::uint64_t b) {
    return counting ? detail::min_nibbles(a, b) : a & b;
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
  if constexpr (counting) {
    std::uint64_t total = 0;
    for (const std::uint64_t w : cells_.words()) {
      total += static_cast<std::uint64_t>(std::popcount(detail::nonzero_nibbles(w)));
    }
    return total;
  } else {
    return cells_.count();
  }
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
  if constexpr (blocked) {
    return detail::blocked_fpp_of(cells_.words());
  } else {
    return detail::policy_fpp_at_fill<Probe>(config_.cells, config_.hashes, fill_ratio());
  }
}

}  // namespace bloomkit

#include "filter_extras_impl.hpp"
