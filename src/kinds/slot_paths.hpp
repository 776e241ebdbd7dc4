#pragma once
// Internal: the batched paths of a window over its live slots (filters of one config), through
// the slot pipelines (filter_pipeline.hpp): a key is hashed and located once, and its lines in
// every slot are prefetched together, where asking each slot in turn walked the batch S + 1
// times. How a storage runs them is its ops' (contains_in_slots, insert_into_slots in
// storage_ops.hpp): blocked slots the ISA kernels, classic ones the cell operations.

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "../storage/storage_ops.hpp"
#include "bloomkit/detail/filter_access.hpp"
#include "bloomkit/filter.hpp"
#include "filter_impl.hpp"  // basic_filter::add_inserted

namespace bloomkit::detail {

template <class Sub>
struct slot_paths {
  // results[i]: whether some slot holds keys[i]; returns how many some slot holds.
  static std::size_t contains_many(std::span<const Sub* const> slots,
                                   std::span<const std::string_view> keys, bool* results) {
    const std::vector<std::uint64_t*> words = words_of(slots);
    const Sub& first = *slots.front();
    return ops::template contains_in_slots<probe>(batch(words, first, keys),
                                                  filter_access::storage_state(first), results);
  }

  // Inserts the keys, in order, into slots[0] and returns how many no slot held before; slots[0]
  // counts the keys that changed it. added (nullptr: not wanted): per key, whether it was new.
  static std::size_t insert_many(Sub& target, std::span<const Sub* const> slots,
                                 std::span<const std::string_view> keys, bool* added) {
    std::vector<std::uint64_t*> words = words_of(slots);
    words[0] = filter_access::writable_words(target);
    const slot_insert_counts counts = ops::template insert_into_slots<probe>(
        batch(words, target, keys), filter_access::storage_state(target), added);
    filter_access::add_inserted(target, counts.changed);
    return counts.fresh;
  }

 private:
  using ops = typename Sub::storage_type::ops;
  using probe = typename Sub::policy_type;

  static slot_batch batch(const std::vector<std::uint64_t*>& words, const Sub& first,
                          std::span<const std::string_view> keys) noexcept {
    return {words, first.config(), first.byte_size(), keys};
  }
  // Lookups never write through these.
  static std::vector<std::uint64_t*> words_of(std::span<const Sub* const> slots) {
    std::vector<std::uint64_t*> words;
    words.reserve(slots.size());
    for (const Sub* f : slots) {
      words.push_back(const_cast<std::uint64_t*>(filter_access::storage(*f).data()));
    }
    return words;
  }
};

}  // namespace bloomkit::detail
