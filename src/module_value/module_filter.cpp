// The value of a module key (module_filter.hpp).

#include "module_filter.hpp"

#include <algorithm>
#include <type_traits>
#include <vector>

#include "bloomkit/bit_array.hpp"
#include "bloomkit/error.hpp"

namespace bloomkit::redis_module {

namespace {

template <class Filter>
constexpr bool is_scalable = std::is_same_v<Filter, scalable_blocked_bloom_filter>;
template <class Filter>
constexpr bool is_window = std::is_same_v<Filter, blocked_window_filter>;
template <class Filter>
constexpr bool is_counting = std::is_same_v<Filter, counting_bloom_filter>;

// A set filter or chain hashes each key once: one batched insert reports per key whether it
// was new, in order, so a key repeated within one command is new once, as in RedisBloom.
template <class Filter>
std::vector<typename Filter::digest_type> digests_of(std::span<const std::string_view> keys) {
  std::vector<typename Filter::digest_type> digests(keys.size());
  Filter::digests_of(keys, digests);
  return digests;
}

// A NONSCALING filter without room for every key of the command goes one key at a time, to stop
// before the first new key it has no room for.
template <class Filter>
std::size_t add_until_full(Filter& f, std::span<const std::string_view> keys,
                           std::span<bool> added) {
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (f.inserted() >= f.capacity() && !f.contains(keys[i])) return i;
    added[i] = f.insert(keys[i]);
  }
  return keys.size();
}

template <class Filter>
std::size_t add_set_keys(Filter& f, bool nonscaling, std::span<const std::string_view> keys,
                         std::span<bool> added) {
  if constexpr (!is_scalable<Filter>) {
    if (nonscaling && f.capacity() - std::min(f.inserted(), f.capacity()) < keys.size()) {
      return add_until_full(f, keys, added);
    }
  }
  f.insert_many(digests_of<Filter>(keys), added);
  return keys.size();
}

}  // namespace

module_filter make_bf_filter(double error_rate, std::uint64_t capacity, std::uint32_t expansion,
                             bool nonscaling) {
  if (nonscaling) {
    return {blocked_bloom_filter::for_capacity(capacity, error_rate), true};
  }
  scalable_config params;
  params.initial_capacity = capacity;
  params.target_fpp = error_rate;
  params.growth = expansion;
  return {scalable_blocked_bloom_filter(params), false};
}

std::size_t add_keys(module_filter& f, std::span<const std::string_view> keys,
                     std::span<bool> added) {
  return std::visit(
      [&]<class Filter>(Filter& filter) -> std::size_t {
        if constexpr (is_window<Filter>) {
          // A window refreshes a key it holds (the key moves to the current slice).
          filter.insert_many(keys, added);
          return keys.size();
        } else if constexpr (is_counting<Filter>) {
          // A counting filter counts every insert, so that one BK.REMOVE undoes one add.
          for (std::size_t i = 0; i < keys.size(); ++i) added[i] = filter.insert(keys[i]);
          return keys.size();
        } else {
          return add_set_keys(filter, f.nonscaling, keys, added);
        }
      },
      f.filter);
}

void find_keys(const module_filter& f, std::span<const std::string_view> keys,
               std::span<bool> present) {
  std::visit(
      [&]<class Filter>(const Filter& filter) {
        if constexpr (is_scalable<Filter>) {
          // Its digests serve every sub-filter: a key is hashed once however long the chain.
          filter.contains_many(digests_of<Filter>(keys), present);
        } else {
          filter.contains_many(keys, present);
        }
      },
      f.filter);
}

std::uint64_t capacity_of(const module_filter& f) {
  return std::visit([](const auto& filter) { return filter.capacity(); }, f.filter);
}

std::uint64_t items_of(const module_filter& f) {
  return std::visit([](const auto& filter) -> std::uint64_t { return filter.inserted(); },
                    f.filter);
}

std::uint64_t filter_count_of(const module_filter& f) {
  return std::visit(
      []<class Filter>(const Filter& filter) -> std::uint64_t {
        if constexpr (is_scalable<Filter>) {
          return filter.sub_filter_count();
        } else if constexpr (is_window<Filter>) {
          return filter.slots().size();
        } else {
          return 1;
        }
      },
      f.filter);
}

std::optional<std::uint64_t> expansion_of(const module_filter& f) {
  if (const auto* chain = std::get_if<scalable_blocked_bloom_filter>(&f.filter)) {
    return chain->growth();
  }
  return std::nullopt;
}

std::size_t memory_of(const module_filter& f) {
  return sizeof(module_filter) +
         std::visit(
             []<class Filter>(const Filter& filter) -> std::size_t {
               if constexpr (is_scalable<Filter> || is_window<Filter>) {
                 std::size_t bytes = 0;
                 if constexpr (is_scalable<Filter>) {
                   for (const auto& part : filter.sub_filters()) {
                     bytes += sizeof part + part.storage().allocated_bytes();
                   }
                 } else {
                   for (const auto& part : filter.slots()) {
                     bytes += sizeof part + part.storage().allocated_bytes();
                   }
                 }
                 return bytes;
               } else {
                 return filter.storage().allocated_bytes();
               }
             },
             f.filter);
}

std::vector<std::uint64_t> growth_allocations(const module_filter& f, std::uint64_t keys) {
  std::vector<std::uint64_t> sizes;
  const auto* chain = std::get_if<scalable_blocked_bloom_filter>(&f.filter);
  if (chain == nullptr || f.nonscaling) return sizes;
  const std::uint64_t inserted = chain->inserted();
  std::uint64_t room = chain->capacity();
  for (std::size_t index = chain->sub_filter_count();
       room - std::min(room, inserted) < keys &&
       index < scalable_blocked_bloom_filter::max_sub_filters;
       ++index) {
    try {
      const filter_config next =
          scalable_blocked_bloom_filter::sub_filter_config(chain->params(), index);
      sizes.push_back(bit_array::word_count_for(next.cells) * sizeof(std::uint64_t));
      room += next.capacity;
    } catch (const error&) {
      break;  // a sub-filter that cannot exist: the add itself says so
    }
  }
  return sizes;
}

}  // namespace bloomkit::redis_module
