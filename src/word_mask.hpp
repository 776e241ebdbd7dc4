#pragma once
// Internal: the k distinct bits a key sets in one word of a word-blocked filter (sizing.hpp,
// "Word-blocked filters"), shared by the in-process window layout and the Redis one. The bits
// come from 64 hash bits: a linear congruential sequence started at them (full period mod 2^64,
// so every position turns up), each term mapped onto [0, w) by its high bits (multiply-high),
// repeats skipped. Bit p of the word is bit p % 64 of lane p / 64.

#include <cstddef>
#include <cstdint>

#include "bloomkit/detail/multiply_high.hpp"

namespace bloomkit::detail {

// Knuth's MMIX multiplier and increment.
inline constexpr std::uint64_t word_mask_multiplier = 6364136223846793005ULL;
inline constexpr std::uint64_t word_mask_increment = 1442695040888963407ULL;

// Sets lanes[0 .. (w + 63) / 64) to the key's mask: k distinct bits of [0, w); k <= w, w >= 1.
inline void word_mask(std::uint64_t seed, std::uint32_t w, std::uint32_t k,
                      std::uint64_t* lanes) noexcept {
  for (std::uint32_t i = 0; i < (w + 63) / 64; ++i) lanes[i] = 0;
  std::uint64_t x = seed;
  for (std::uint32_t set = 0; set < k;) {
    x = x * word_mask_multiplier + word_mask_increment;
    const std::uint64_t p = multiply_high(x, w);
    const std::uint64_t bit = std::uint64_t{1} << (p % 64);
    if ((lanes[p / 64] & bit) == 0) {
      lanes[p / 64] |= bit;
      ++set;
    }
  }
}

}  // namespace bloomkit::detail
