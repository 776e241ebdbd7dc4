#pragma once
// Integral keys are hashed as their little-endian bytes, by every filter kind, so that a key
// means the same thing on every machine and in every file.

#include <array>
#include <concepts>
#include <string_view>
#include <type_traits>

namespace bloomkit::detail {

template <std::integral T>
struct key_bytes {
  explicit constexpr key_bytes(T key) noexcept {
    auto v = static_cast<std::make_unsigned_t<T>>(key);
    for (auto& c : bytes) {
      c = static_cast<char>(v & 0xff);
      v = static_cast<decltype(v)>(v >> 8);
    }
  }
  std::string_view view() const noexcept { return {bytes.data(), bytes.size()}; }
  std::array<char, sizeof(T)> bytes{};
};

}  // namespace bloomkit::detail
