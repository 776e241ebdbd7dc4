#pragma once
// The value of a module key: the registry's filter (any native filter type, any_filter.hpp) and
// the module's own flags. BK.RESERVE makes any kind (BF.RESERVE / BF.ADD / BF.INSERT make
// RedisBloom's chain with bloomkit's hashing instead: make_bf_chain, redisbloom_keys.hpp);
// BK.CONVERT puts RedisBloom's chain (compat/redisbloom_kind.hpp, the file format's kind
// redisbloom) in a key of bloomkit's type. What the module asks of a kind is the registry's
// (kinds.hpp: kind_traits, kind_parts), and the chain's own answers where it grows by RedisBloom's
// rules (redisbloom_keys.hpp).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/compat/redisbloom_kind.hpp"
#include "bloomkit/compat/spark.hpp"
#include "bloomkit/kind_parts.hpp"

namespace bloomkit::redis_module {

// The filters a module key holds: the native ones, RedisBloom's chain and Spark's filters (pushed
// from files imported from Spark: BF.EXISTS answers as Spark's mightContain does).
using module_filters =
    native_filters::append<redisbloom::chain, spark::v1_filter, spark::v2_filter>;

struct module_filter {
  module_filters::variant filter;
  // RedisBloom's NONSCALING: a new key past the capacity is refused ("non scaling filter is full").
  bool nonscaling = false;
};

// A native filter as a module key's (BK.RESERVE's registry filter, a pushed file's).
module_filter module_filter_of(any_filter filter, bool nonscaling);

// Adds keys in order; added[i] says whether keys[i] was new. Stops before the first new key that
// a NONSCALING filter has no room for and returns the number of keys handled (keys.size() unless
// it stopped).
std::size_t add_keys(module_filter& f, std::span<const std::string_view> keys,
                     std::span<bool> added);
// present[i]: whether keys[i] may have been added (batched lookups).
void find_keys(const module_filter& f, std::span<const std::string_view> keys,
               std::span<bool> present);

// BF.INFO's figures: capacity before the next growth (the chain's sum), keys added, sub-filters,
// EXPANSION (none for a filter that does not grow) and bytes.
std::uint64_t capacity_of(const module_filter& f);
std::uint64_t items_of(const module_filter& f);
std::uint64_t filter_count_of(const module_filter& f);
std::optional<std::uint64_t> expansion_of(const module_filter& f);
// MEMORY USAGE's figure for a key's value holding f (and BF.INFO's Size): the value object,
// the filter's heap (a chain's sub-filter objects) and its bits as requested from the storage
// allocator (the module's counts the bytes asked for, redis_memory.cpp).
std::size_t memory_of(const module_filter& f);

// The sizes in bytes of the sub-filters a chain would add to take `keys` more keys, all new (an
// upper bound: the memory an add may allocate, checked before it changes anything). Empty for the
// kinds that do not grow, and past the sub-filters a chain cannot have (the add refuses those).
std::vector<std::uint64_t> growth_allocations(const module_filter& f, std::uint64_t keys);

}  // namespace bloomkit::redis_module
