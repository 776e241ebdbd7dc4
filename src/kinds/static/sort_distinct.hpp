#pragma once
// Internal: sorting a run of 64-bit key hashes and dropping repeats, for the static builder.
// Hashes are uniform, so one counting-sort pass on the bits below those they share leaves
// ranges of a few hashes, which a comparison sort finishes: about two passes over the data.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace bloomkit::detail {

// Sorts `hashes`, all of which share their top `known_bits` bits (0 to 63), and moves the
// distinct values to its front; returns how many there are. `scratch` is reused between calls
// (it grows to hashes.size()).
std::size_t sort_distinct(std::span<std::uint64_t> hashes, unsigned known_bits,
                          std::vector<std::uint64_t>& scratch);

}  // namespace bloomkit::detail
