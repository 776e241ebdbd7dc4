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

// The integral-key overloads of a filter's insert / contains (and remove where it has one), for
// a filter class to inherit and bring in with using-declarations beside its string_view ones.
template <class Filter>
class integral_keys {
 public:
  template <std::integral T>
  bool insert(T key) {
    return self().insert(key_bytes(key).view());
  }
  template <std::integral T>
  bool contains(T key) const {
    return self().contains(key_bytes(key).view());
  }
  // Counting filters only (whose `counting` is true).
  template <std::integral T, class F = Filter>
  bool remove(T key) requires F::counting {
    return self().remove(key_bytes(key).view());
  }

 private:
  Filter& self() noexcept { return static_cast<Filter&>(*this); }
  const Filter& self() const noexcept { return static_cast<const Filter&>(*this); }
};

}  // namespace bloomkit::detail
