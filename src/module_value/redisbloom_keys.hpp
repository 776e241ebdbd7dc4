#pragma once
// The value of a module key of RedisBloom's type (MBbloom--: RedisBloom's chain itself,
// bloomkit/compat/redisbloom.hpp, taken over from a RedisBloom RDB, DUMP or BF.SCANDUMP) or of
// bloomkit's chain type (bkbloom--: the same chain with bloomkit's hashing, what BF.RESERVE /
// BF.ADD / BF.INSERT make: make_bf_chain). What the BF.* commands ask of it, under the names
// module_filter.hpp gives the same questions of a bloomkit filter, so that a command's code serves
// both kinds of keys (redis_module's bf_target.hpp picks one). Redis-free, like module_filter.hpp.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "bloomkit/compat/redisbloom.hpp"
#include "filter_image.hpp"

namespace bloomkit::redis_module {

using redisbloom_chain = redisbloom::chain;

// What BF.RESERVE / BF.ADD / BF.MADD / BF.INSERT create (a bkbloom-- key): RedisBloom's chain
// sized exactly as RedisBloom sizes it (bits, hashes, growth, NONSCALING; EXPANSION 0 is
// NONSCALING) with bloomkit's hashing (option_bloomkit_hash), so its memory is RedisBloom's.
redisbloom_chain make_bf_chain(double error_rate, std::uint64_t capacity, std::uint32_t expansion,
                               bool nonscaling);

// Adds keys in order as RedisBloom's BF.MADD: added[i] says whether keys[i] was new. Stops before
// the first key a full NONSCALING chain has no room for and returns the number of keys handled.
// Throws errc::too_large when a new link cannot be allocated (the keys before it stay added).
std::size_t add_keys(redisbloom_chain& c, std::span<const std::string_view> keys,
                     std::span<bool> added);
void find_keys(const redisbloom_chain& c, std::span<const std::string_view> keys,
               std::span<bool> present);

// BF.INFO's figures, RedisBloom's: the links' capacities, items, links, EXPANSION (none when
// NONSCALING) and Size (RedisBloom's struct sizes plus the bit arrays: also MEMORY USAGE's).
std::uint64_t capacity_of(const redisbloom_chain& c);
std::uint64_t items_of(const redisbloom_chain& c);
std::uint64_t filter_count_of(const redisbloom_chain& c);
std::optional<std::uint64_t> expansion_of(const redisbloom_chain& c);
std::size_t memory_of(const redisbloom_chain& c);

// The bit-array sizes of the links a chain would add to take `keys` more keys, all new (what an
// add may allocate, checked before it changes anything); empty for a NONSCALING chain.
std::vector<std::uint64_t> growth_allocations(const redisbloom_chain& c, std::uint64_t keys);

// What BF.LOADCHUNK's first chunk makes: bloomkit's image loader (a chunk that starts with the
// image magic and reads as one) or RedisBloom's chain with zeroed bits (a RedisBloom header).
// Each is tried when the other does not read, so a RedisBloom header whose first bytes happen to
// spell the magic still loads. Throws image_error naming why neither reads it;
// errc::too_large (bloomkit::error) when a RedisBloom chain's bits cannot be allocated.
using first_chunk = std::variant<std::unique_ptr<image_loader>, redisbloom_chain>;
first_chunk read_first_chunk(std::string_view data);

}  // namespace bloomkit::redis_module
