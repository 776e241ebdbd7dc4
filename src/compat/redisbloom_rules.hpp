#pragma once
// What the RedisBloom compat files share beyond the public API (redisbloom.hpp): the sizing
// helpers and the rules a link must keep for bloomkit to hold it safely.

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "bloomkit/compat/redisbloom.hpp"

namespace bloomkit::redisbloom {

// Older encodings (version 0) probe modulo entries * bpe bits within whole bytes; bloomkit keeps
// a link's probe range within 63 bits of its bit array's end.
inline constexpr std::uint64_t max_bits_gap = 63;

// -ln(error) / ln(2)^2, as RedisBloom's calc_bpe.
double bits_per_entry(double error) noexcept;
// ceil(ln 2 * bpe), or nothing past max_hashes (or for NaN).
std::optional<std::uint32_t> hashes_for(double bpe) noexcept;
// What makes these fields unsafe to hold and probe (a looser rule than link_problem: the older
// encodings' probe ranges), if anything.
std::optional<std::string> storage_problem(const link_fields& f);

namespace detail {
// A chain of these links (zeroed bits) checked by storage_problem only, with the size as given:
// what the RDB decoder loads. Throws errc::corrupt_file naming the problem.
chain chain_of_links(std::uint64_t size, std::uint32_t options, std::uint32_t growth,
                     std::span<const link_fields> links);
}  // namespace detail

}  // namespace bloomkit::redisbloom
