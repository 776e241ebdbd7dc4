#pragma once
// Internal: the batched paths of a window over its live slots (filters of one config), through
// the slot pipelines (filter_pipeline.hpp): a key is hashed and located once, and its lines in
// every slot are prefetched together, where asking each slot in turn walked the batch S + 1
// times. Blocked slots run the ISA kernels (blocked_kernels.hpp); classic ones the cell
// operations of their storage (cell_ops.hpp).

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

#include "../core/filter_pipeline.hpp"
#include "../storage/blocked_kernels.hpp"
#include "bloomkit/detail/filter_access.hpp"
#include "bloomkit/filter.hpp"
#include "filter_impl.hpp"

namespace bloomkit::detail {

template <class Sub>
struct slot_paths {
  // results[i]: whether some slot holds keys[i]; returns how many some slot holds.
  static std::size_t contains_many(std::span<const Sub* const> slots,
                                   std::span<const std::string_view> keys, bool* results) {
    if constexpr (Sub::blocked) {
      const std::vector<std::uint64_t*> words = words_of(slots);
      return kernels_of(slots).contains_many_in_slots(words.data(), words.size(), blocks_of(slots),
                                                      {keys.data(), nullptr, keys.size()}, results);
    } else {
      const std::vector<ops> each = ops_of(slots);
      return lookup_slots_pipeline(slot_ops<ops>{each.data(), each.size()}, keys.size(),
                                   hash_at(keys), results);
    }
  }

  // Inserts the keys, in order, into slots[0] and returns how many no slot held before; slots[0]
  // counts the keys that changed it. added (nullptr: not wanted): per key, whether it was new.
  static std::size_t insert_many(Sub& target, std::span<const Sub* const> slots,
                                 std::span<const std::string_view> keys, bool* added) {
    slot_insert_counts counts;
    if constexpr (Sub::blocked) {
      std::vector<std::uint64_t*> words = words_of(slots);
      words[0] = filter_access::writable_words(target);
      counts = kernels_of(slots).insert_many_in_slots(words.data(), words.size(), blocks_of(slots),
                                                      {keys.data(), nullptr, keys.size()}, added);
    } else {
      std::vector<ops> each = ops_of(slots);
      each[0].words = filter_access::writable_words(target);
      const std::size_t lag = target.byte_size() >= dram_filter_bytes ? slot_pipeline_lag : 0;
      counts = insert_slots_pipeline(slot_ops<ops>{each.data(), each.size()}, keys.size(),
                                     hash_at(keys), lag, added);
    }
    filter_access::add_inserted(target, counts.changed);
    return counts.fresh;
  }

 private:
  using ops = positional_ops_for<typename Sub::policy_type, typename Sub::storage_type>;

  static auto hash_at(std::span<const std::string_view> keys) {
    return [keys](std::size_t i) { return Sub::digest_of(keys[i]); };
  }
  // Lookups never write through these.
  static std::uint64_t* words_of(const Sub& f) {
    return const_cast<std::uint64_t*>(filter_access::storage(f).data());
  }
  static std::vector<std::uint64_t*> words_of(std::span<const Sub* const> slots) {
    std::vector<std::uint64_t*> words;
    words.reserve(slots.size());
    for (const Sub* f : slots) words.push_back(words_of(*f));
    return words;
  }
  static std::vector<ops> ops_of(std::span<const Sub* const> slots) {
    std::vector<ops> each;
    each.reserve(slots.size());
    for (const Sub* f : slots) each.push_back(ops{words_of(*f), f->cells(), f->hashes()});
    return each;
  }
  static const blocked_kernels& kernels_of(std::span<const Sub* const> slots) {
    return filter_access::kernels(*slots.front());
  }
  static std::uint64_t blocks_of(std::span<const Sub* const> slots) {
    return slots.front()->blocks();
  }
};

}  // namespace bloomkit::detail
