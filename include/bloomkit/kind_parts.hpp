#pragma once
// What an owner of a filter of any kind asks of it past the common surface (the Redis module's
// value, src/module_value/module_filter.hpp), so that no front end tests concrete types. Derived
// from kind_traits (kinds.hpp) and generic members.

#include <string_view>

#include "bloomkit/kinds.hpp"

namespace bloomkit {

template <class Filter>
struct kind_parts {
  using traits = kind_traits<Filter>;
  // It can remove a key (BK.REMOVE).
  static constexpr bool removes = requires(Filter & f, std::string_view key) { f.remove(key); };
  // A chain of sub-filters that adds one past its capacity (scalable): a key's digest serves
  // every sub-filter, and an add may allocate.
  static constexpr bool is_chain = traits::grows;
  // The window's slots are sub-filters of their own (the older window layout).
  static constexpr bool has_slot_filters = requires(const Filter& f) { f.slots(); };
  // The sub-filters of a chain or of a window's slots, oldest first.
  static auto parts(const Filter& f) requires(is_chain || has_slot_filters) {
    if constexpr (is_chain) {
      return f.sub_filters();
    } else {
      return f.slots();
    }
  }

  // Sub-filters: a chain's, a window's slots, else 1.
  static std::uint64_t part_count(const Filter& f) {
    if constexpr (is_chain) {
      return f.sub_filter_count();
    } else if constexpr (traits::kind == filter_kind::window) {
      return f.slot_slices().size();
    } else {
      return 1;
    }
  }
  // A chain's growth factor (RedisBloom's EXPANSION); none for a filter that does not grow.
  static std::optional<std::uint32_t> growth(const Filter& f) {
    if constexpr (is_chain) {
      return f.growth();
    } else {
      return std::nullopt;
    }
  }
  // The bytes it holds as their allocator counts them (with each sub-filter's own object).
  static std::size_t allocated_bytes(const Filter& f) {
    if constexpr (is_chain || has_slot_filters) {
      std::size_t bytes = 0;
      for (const auto& part : parts(f)) bytes += sizeof part + part.storage().allocated_bytes();
      return bytes;
    } else if constexpr (requires { f.storage(); }) {
      return f.storage().allocated_bytes();
    } else {
      return f.byte_size();
    }
  }
  // The sizes in bytes of the sub-filters a chain would add to take `keys` more keys, all new
  // (an upper bound: what an add may allocate, checked before it changes anything). Empty for
  // the kinds that do not grow and past the sub-filters a chain cannot have.
  static std::vector<std::uint64_t> growth_allocations(const Filter& f, std::uint64_t keys) {
    std::vector<std::uint64_t> sizes;
    if constexpr (is_chain) {
      using cells = typename Filter::sub_filter_type::storage_type;
      const std::uint64_t inserted = f.inserted();
      std::uint64_t room = f.capacity();
      for (std::size_t index = f.sub_filter_count();
           room - std::min(room, inserted) < keys && index < Filter::max_sub_filters; ++index) {
        try {
          const filter_config next = Filter::sub_filter_config(f.params(), index);
          sizes.push_back(bit_array::word_count_for(next.cells * cells::bits_per_cell) *
                          sizeof(std::uint64_t));
          room += next.capacity;
        } catch (const error&) {
          break;  // a sub-filter that cannot exist: the add itself says so
        }
      }
    }
    return sizes;
  }
};

}  // namespace bloomkit
