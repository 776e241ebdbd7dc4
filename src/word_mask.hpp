#pragma once
// Internal: the k bits a key sets in one word of a word-blocked filter (sizing.hpp,
// "Word-blocked filters"), shared by the in-process window layout and the Redis one. The word's
// first k * F bits are cut into k fields of F = floor(w / k) bits, and the key sets one bit in
// each (so its k bits are distinct, and the fields fill independently). Field j's bit comes from
// the 16-bit chunk j % 4 of v_{j / 4}: v_0 = the seed (64 hash bits), v_{i+1} = splitmix64's
// step of v_i; the chunk c names bit floor(c F / 2^16) of the field. No loop-carried
// dependency but one mix per 4 fields: a few ns a key, where drawing k distinct bits at random
// with rejection cost about 19 ns. Bit p of the word is bit p % 64 of lane p / 64.

#include <cstdint>

namespace bloomkit::detail {

// splitmix64's step (Steele, Lea, Flood 2014): a bijection whose output bits all depend on
// every input bit, so the chunks of v_{i+1} are independent of v_i's.
constexpr std::uint64_t word_mask_next(std::uint64_t x) noexcept {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Sets lanes[0 .. (w + 63) / 64) to the key's mask: one bit in each of k fields of floor(w / k)
// bits; 1 <= k <= w.
inline void word_mask(std::uint64_t seed, std::uint32_t w, std::uint32_t k,
                      std::uint64_t* lanes) noexcept {
  for (std::uint32_t i = 0; i < (w + 63) / 64; ++i) lanes[i] = 0;
  const std::uint32_t field = w / k;
  std::uint64_t v = seed;
  for (std::uint32_t j = 0; j < k; ++j) {
    if (j != 0 && j % 4 == 0) v = word_mask_next(v);
    const std::uint32_t chunk = static_cast<std::uint32_t>(v >> (16 * (j % 4))) & 0xFFFFU;
    const std::uint32_t p = j * field + ((chunk * field) >> 16);
    lanes[p / 64] |= std::uint64_t{1} << (p % 64);
  }
}

}  // namespace bloomkit::detail
