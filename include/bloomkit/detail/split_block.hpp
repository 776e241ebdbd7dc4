#pragma once
// Internal: the cells of one split block (hash_scheme::xxh3_64_split_block,
// blocked_bloom_filter.hpp) in portable code, written once for everything that tests or sets a
// block without AVX2: the portable kernels (src/storage/isa_kernels.cpp) and the single-key
// path basic_filter inlines into the caller (single_key.hpp). The AVX2 kernel builds the same
// eight masks in one register (src/storage/isa_kernels_avx2.cpp).
//
// Forced inline: the library also compiles these headers with -mavx2, and an out-of-line copy
// from that translation unit must never be the one a baseline caller links to.

#include <cstdint>

#include "bloomkit/detail/multiply_high.hpp"
#include "bloomkit/detail/word_access.hpp"

namespace bloomkit::detail {

// The eight odd salts of the split-block filter (the multipliers of the Apache Parquet / Impala
// split-block filter specification).
inline constexpr std::uint32_t blocked_salts[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU,
                                                   0xa2b7289dU, 0x705495c7U, 0x2df1424bU,
                                                   0x9efc4947U, 0x5c6bfb31U};
inline constexpr std::uint64_t split_block_words = 4;  // 64-bit words of a 256-bit block

// The block of digest h in a filter of `blocks` blocks, and its first word.
[[gnu::always_inline]] inline std::uint64_t* split_block_of(std::uint64_t* words,
                                                            std::uint64_t blocks,
                                                            std::uint64_t h) noexcept {
  return words + multiply_high(h, blocks) * split_block_words;
}

// The key's bit in each of the block's eight 32-bit words (word j of the block is the low half
// of 64-bit word j / 2 for even j, the high half for odd j), from h32, the low 32 bits of h.
[[gnu::always_inline]] inline void split_block_masks(std::uint32_t h32,
                                                     std::uint64_t out[4]) noexcept {
  for (int j = 0; j < 4; ++j) {
    const std::uint32_t low = (h32 * blocked_salts[2 * j]) >> 27;
    const std::uint32_t high = (h32 * blocked_salts[2 * j + 1]) >> 27;
    out[j] = (std::uint64_t{1} << low) | (std::uint64_t{1} << (high + 32));
  }
}

// Whether the block holds every bit of h32. Relaxed atomic loads: may race with
// insert_concurrent.
[[gnu::always_inline]] inline bool split_block_holds(const std::uint64_t* block,
                                                     std::uint32_t h32) noexcept {
  std::uint64_t m[4];
  split_block_masks(h32, m);
  std::uint64_t missing = 0;
  for (int j = 0; j < 4; ++j) missing |= m[j] & ~load_relaxed(block + j);
  return missing == 0;
}

// Sets the bits of h32 (single writer); true if one of them was 0.
[[gnu::always_inline]] inline bool split_block_set(std::uint64_t* block,
                                                   std::uint32_t h32) noexcept {
  std::uint64_t m[4];
  split_block_masks(h32, m);
  bool changed = false;
  for (int j = 0; j < 4; ++j) {
    changed |= (block[j] & m[j]) != m[j];
    block[j] |= m[j];
  }
  return changed;
}

}  // namespace bloomkit::detail
