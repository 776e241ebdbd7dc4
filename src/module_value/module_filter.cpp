// The value of a module key (module_filter.hpp).

#include "module_filter.hpp"

#include "module_value.hpp"

#include <algorithm>
#include <vector>

#include "core/digest_batches.hpp"
#include "redisbloom_keys.hpp"

namespace bloomkit::redis_module {

namespace {

template <class Filter>
using parts = kind_parts<Filter>;

// RedisBloom's chain (a converted key) grows, counts and fills by RedisBloom's rules: it answers
// those questions itself (redisbloom_keys.hpp).
template <class Filter>
constexpr bool grows_as_redisbloom = kind_traits<Filter>::kind == filter_kind::redisbloom;

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

// A set filter or chain hashes each key once: one batched insert reports per key whether it
// was new, in order, so a key repeated within one command is new once, as in RedisBloom.
template <class Filter>
std::size_t add_set_keys(Filter& f, bool nonscaling, std::span<const std::string_view> keys,
                         std::span<bool> added) {
  if constexpr (!parts<Filter>::is_chain) {
    if (nonscaling && f.capacity() - std::min(f.inserted(), f.capacity()) < keys.size()) {
      return add_until_full(f, keys, added);
    }
  }
  // Through the filter: a Spark V2 filter's digests depend on its seed.
  std::vector<typename Filter::digest_type> digests(keys.size());
  f.digests_of(keys, digests);
  f.insert_many(std::span<const typename Filter::digest_type>(digests), added);
  return keys.size();
}

}  // namespace

module_filter module_filter_of(any_filter filter, bool nonscaling) {
  return std::visit(
      [&]<class Filter>(Filter&& f) {
        return module_filter{std::forward<Filter>(f), nonscaling};
      },
      std::move(filter));
}

std::size_t add_keys(module_filter& f, std::span<const std::string_view> keys,
                     std::span<bool> added) {
  return std::visit(
      [&]<class Filter>(Filter& filter) -> std::size_t {
        if constexpr (grows_as_redisbloom<Filter>) {
          return add_keys(filter, keys, added);
        } else if constexpr (!takes_inserts<Filter>) {
          return filter.insert_many(keys);  // throws: it takes none
        } else if constexpr (refreshes_keys<Filter>) {
          // A window refreshes a key it holds (the key moves to the current slice).
          filter.insert_many(keys, added);
          return keys.size();
        } else if constexpr (refuses_when_full<Filter>) {
          // A cuckoo filter stores a copy per add and stops at the first it has no room for:
          // the keys after it are not handled (the caller answers that the filter is full).
          const std::size_t stored = filter.insert_many(keys);
          std::fill_n(added.begin(), stored, true);
          return stored;
        } else if constexpr (counts_repeats<Filter>) {
          // Every insert counts, so that one BK.REMOVE undoes one add.
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
        if constexpr (parts<Filter>::is_chain) {
          // Its digests serve every sub-filter: a key is hashed once however long the chain.
          filter.contains_many(detail::digests_of<Filter>(keys), present);
        } else {
          filter.contains_many(keys, present);
        }
      },
      f.filter);
}

std::uint64_t capacity_of(const module_filter& f) {
  return std::visit([](const auto& filter) -> std::uint64_t { return filter.capacity(); },
                    f.filter);
}

std::uint64_t items_of(const module_filter& f) {
  return std::visit([](const auto& filter) -> std::uint64_t { return filter.inserted(); },
                    f.filter);
}

std::uint64_t filter_count_of(const module_filter& f) {
  return std::visit(
      []<class Filter>(const Filter& filter) -> std::uint64_t {
        if constexpr (grows_as_redisbloom<Filter>) {
          return filter_count_of(filter);
        } else {
          return parts<Filter>::part_count(filter);
        }
      },
      f.filter);
}

std::optional<std::uint64_t> expansion_of(const module_filter& f) {
  return std::visit(
      []<class Filter>(const Filter& filter) -> std::optional<std::uint64_t> {
        if constexpr (grows_as_redisbloom<Filter>) {
          return expansion_of(filter);
        } else {
          return parts<Filter>::growth(filter);
        }
      },
      f.filter);
}

std::size_t memory_of(const module_filter& f) {
  // The value holds the filter object in place (module_value.hpp): its size counts once.
  return sizeof(module_value) + std::visit(
                                    []<class Filter>(const Filter& filter) -> std::size_t {
                                      if constexpr (grows_as_redisbloom<Filter>) {
                                        return memory_of(filter);
                                      } else {
                                        return parts<Filter>::allocated_bytes(filter);
                                      }
                                    },
                                    f.filter);
}

std::vector<std::uint64_t> growth_allocations(const module_filter& f, std::uint64_t keys) {
  if (f.nonscaling) return {};
  return std::visit(
      [&]<class Filter>(const Filter& filter) {
        if constexpr (grows_as_redisbloom<Filter>) {
          return growth_allocations(filter, keys);
        } else {
          return parts<Filter>::growth_allocations(filter, keys);
        }
      },
      f.filter);
}

}  // namespace bloomkit::redis_module
