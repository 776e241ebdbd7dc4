#pragma once
// Integer division rounded up, for sizes and counts: a / b + 1 when b does not divide a, which
// cannot overflow as (a + b - 1) / b can.

#include <cstdint>

namespace bloomkit::detail {

constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) noexcept {
  return a / b + (a % b != 0 ? 1 : 0);
}

}  // namespace bloomkit::detail
