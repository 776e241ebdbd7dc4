#pragma once
// Internal: 16 4-bit counters per 64-bit word, handled a word at a time (counter_storage).

#include <cstdint>

namespace bloomkit::detail {

inline constexpr std::uint64_t nibble_low_bits = 0x1111111111111111ull;
inline constexpr std::uint64_t byte_low_nibbles = 0x0F0F0F0F0F0F0F0Full;

// Bit 4i of the result is set when nibble i of w is non-zero.
constexpr std::uint64_t nonzero_nibbles(std::uint64_t w) noexcept {
  return (w | (w >> 1) | (w >> 2) | (w >> 3)) & nibble_low_bits;
}

// Bit 4i of the result is set when nibble i of w is 15 (saturated).
constexpr std::uint64_t saturated_nibbles(std::uint64_t w) noexcept {
  return w & (w >> 1) & (w >> 2) & (w >> 3) & nibble_low_bits;
}

// Bytewise min(15, a + b) for bytes that each hold one counter (0..15) in their low nibble.
constexpr std::uint64_t saturating_add_low_nibbles(std::uint64_t a, std::uint64_t b) noexcept {
  const std::uint64_t sum = a + b;  // each byte <= 30: no carry into the next byte
  // Byte >= 16 <=> byte + 0x70 >= 0x80; spread that top bit over the byte.
  const std::uint64_t over = ((sum + 0x7070707070707070ull) & 0x8080808080808080ull) >> 7;
  return (sum | (over * 0xFF)) & byte_low_nibbles;
}

// Bytewise min(a, b) for bytes that each hold one counter in their low nibble.
constexpr std::uint64_t min_low_nibbles(std::uint64_t a, std::uint64_t b) noexcept {
  // Byte (a | 0x80) - b keeps its top bit exactly when a >= b (no borrow crosses bytes).
  const std::uint64_t a_not_less = (((a | 0x8080808080808080ull) - b) & 0x8080808080808080ull) >> 7;
  const std::uint64_t take_b = a_not_less * 0xFF;
  return (b & take_b) | (a & ~take_b);
}

// Counter-wise min(15, a + b): the multiset union.
constexpr std::uint64_t saturating_add_nibbles(std::uint64_t a, std::uint64_t b) noexcept {
  const std::uint64_t even = saturating_add_low_nibbles(a & byte_low_nibbles, b & byte_low_nibbles);
  const std::uint64_t odd =
      saturating_add_low_nibbles((a >> 4) & byte_low_nibbles, (b >> 4) & byte_low_nibbles);
  return even | (odd << 4);
}

// Counter-wise min(a, b): the multiset intersection.
constexpr std::uint64_t min_nibbles(std::uint64_t a, std::uint64_t b) noexcept {
  const std::uint64_t even = min_low_nibbles(a & byte_low_nibbles, b & byte_low_nibbles);
  const std::uint64_t odd =
      min_low_nibbles((a >> 4) & byte_low_nibbles, (b >> 4) & byte_low_nibbles);
  return even | (odd << 4);
}

static_assert(min_nibbles(0x0F30A1ull, 0x1E2B05ull) == 0x0E2001ull);
static_assert(saturating_add_nibbles(0x0F8ull, 0x089ull) == 0x0FFull);

}  // namespace bloomkit::detail
