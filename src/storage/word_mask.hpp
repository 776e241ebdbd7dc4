#pragma once
// Internal: the k bits a key sets in one word of a word-blocked filter (sizing.hpp,
// "Word-blocked filters"), shared by the in-process window layout and the Redis one. The word's
// first k * F bits are cut into k fields of F = floor(w / k) bits, and the key sets one bit in
// each (so its k bits are distinct, and the fields fill independently). Field j's bit comes from
// the 16-bit chunk j % 4 of v_{j / 4}: v_0 = the seed (64 hash bits), v_{i+1} = splitmix64's
// step of v_i; the chunk c names bit floor(c F / 2^16) of the field. No loop-carried
// dependency but one mix per 4 fields: about 8 ns a key for k = 8, where drawing k distinct bits
// at random with rejection cost about 19 ns. Bit p of the word is bit p % 64 of lane p / 64.

#include <cstdint>

namespace bloomkit::detail {

// splitmix64's step (Steele, Lea, Flood 2014): a bijection whose output bits all depend on
// every input bit, so the chunks of v_{i+1} are independent of v_i's. Internal linkage: the AVX2
// kernels (isa_kernels_avx2.cpp, -mavx2) use it too, and their copy must not be the one a
// baseline caller links to.
static constexpr std::uint64_t word_mask_next(std::uint64_t x) noexcept {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// word_mask with the field width F = floor(w / k) and the lane count (w + 63) / 64 given: a hot
// loop computes them once, not a division per key. Each 64-bit draw's four fields are computed
// side by side before their bits are set.
inline void word_mask_fields(std::uint64_t seed, std::uint32_t field, std::uint32_t k,
                             std::uint32_t lane_count, std::uint64_t* lanes) noexcept {
  for (std::uint32_t i = 0; i < lane_count; ++i) lanes[i] = 0;
  std::uint64_t v = seed;
  std::uint32_t base = 0;  // field j's first bit: j * F
  for (std::uint32_t j = 0; j < k; j += 4, base += 4 * field) {
    if (j != 0) v = word_mask_next(v);
    std::uint32_t p[4];
    for (std::uint32_t t = 0; t < 4; ++t) {
      const std::uint32_t chunk = static_cast<std::uint32_t>(v >> (16 * t)) & 0xFFFFU;
      p[t] = base + t * field + ((chunk * field) >> 16);
    }
    const std::uint32_t fields = k - j < 4 ? k - j : 4;
    for (std::uint32_t t = 0; t < fields; ++t) lanes[p[t] / 64] |= std::uint64_t{1} << (p[t] % 64);
  }
}

// Sets lanes[0 .. (w + 63) / 64) to the key's mask: one bit in each of k fields of floor(w / k)
// bits; 1 <= k <= w.
inline void word_mask(std::uint64_t seed, std::uint32_t w, std::uint32_t k,
                      std::uint64_t* lanes) noexcept {
  word_mask_fields(seed, w / k, k, (w + 63) / 64, lanes);
}

}  // namespace bloomkit::detail
