#pragma once
// The high 64 bits of a 64 x 64-bit product: the range reduction of every native scheme.

#include <cstdint>

namespace bloomkit::detail {

constexpr std::uint64_t multiply_high(std::uint64_t a, std::uint64_t b) noexcept {
#if defined(__SIZEOF_INT128__)
  // One MUL instruction where the compiler has a 128-bit type.
  __extension__ using wide = unsigned __int128;
  return static_cast<std::uint64_t>((static_cast<wide>(a) * b) >> 64);
#else
  // Portable: four 32 x 32-bit products, the same result.
  const std::uint64_t a_lo = a & 0xffffffffU, a_hi = a >> 32;
  const std::uint64_t b_lo = b & 0xffffffffU, b_hi = b >> 32;
  const std::uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo;
  const std::uint64_t lo_hi = a_lo * b_hi, hi_hi = a_hi * b_hi;
  const std::uint64_t middle = (lo_lo >> 32) + (hi_lo & 0xffffffffU) + lo_hi;
  return hi_hi + (hi_lo >> 32) + (middle >> 32);
#endif
}

}  // namespace bloomkit::detail
