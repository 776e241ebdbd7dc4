#pragma once
// The value of a module key: one of bloomkit's filters. BF.RESERVE / BF.ADD make a scalable chain
// of blocked filters (growth = RedisBloom's EXPANSION) or, NONSCALING, one blocked filter that
// refuses new keys at its capacity as RedisBloom's does; BK.RESERVE makes any kind.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "bloomkit/basic_window_filter.hpp"
#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/scalable_filter.hpp"

namespace bloomkit::redis_module {

// The alternatives' order is part of the RDB / dump encoding (filter_image.cpp): append only.
using filter_variant = std::variant<scalable_blocked_bloom_filter, blocked_bloom_filter,
                                    bloom_filter, counting_bloom_filter, blocked_window_filter>;

struct module_filter {
  filter_variant filter;
  // RedisBloom's NONSCALING: a new key past the capacity is refused ("non scaling filter is full").
  bool nonscaling = false;
};

// RedisBloom's defaults for a filter that BF.ADD / BF.MADD / BF.INSERT create.
inline constexpr double default_error_rate = 0.01;
inline constexpr std::uint64_t default_capacity = 100;
inline constexpr std::uint32_t default_expansion = 2;

// What BF.RESERVE and BF.INSERT ask for. Throws bloomkit::error when bloomkit cannot build it
// (e.g. EXPANSION 1: a chain that does not grow cannot keep its error bound, scalable_filter.hpp).
module_filter make_bf_filter(double error_rate, std::uint64_t capacity, std::uint32_t expansion,
                             bool nonscaling);

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
// MEMORY USAGE's figure: what the value holds, its bits as their allocator counts them.
std::size_t memory_of(const module_filter& f);

// The sizes in bytes of the sub-filters a chain would add to take `keys` more keys, all new (an
// upper bound: the memory an add may allocate, checked before it changes anything). Empty for the
// kinds that do not grow, and past the sub-filters a chain cannot have (the add refuses those).
std::vector<std::uint64_t> growth_allocations(const module_filter& f, std::uint64_t keys);

}  // namespace bloomkit::redis_module
