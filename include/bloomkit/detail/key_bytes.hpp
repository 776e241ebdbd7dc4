#pragma once
// Integral keys of filters of byte-string keys are hashed as their little-endian bytes, by every
// filter kind, so that a key means the same thing on every machine and in every file. A filter
// of integer keys (key_type::int64, key_type.hpp) takes them by its integer scheme instead.

#include <array>
#include <concepts>
#include <string_view>
#include <type_traits>

#include "bloomkit/key_type.hpp"

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
// A filter with keys() and insert_integer / contains_integer / remove_integer takes its integer
// keys there when keys() is key_type::int64.
template <class Filter>
class integral_keys {
 public:
  template <std::integral T>
  bool insert(T key) {
    if constexpr (integer_key<T> && requires(Filter & f) { f.insert_integer(0); }) {
      if (self().keys() == key_type::int64) return self().insert_integer(widen_key(key));
    }
    return self().insert(key_bytes(key).view());
  }
  template <std::integral T>
  bool contains(T key) const {
    if constexpr (integer_key<T> && requires(const Filter& f) { f.contains_integer(0); }) {
      if (self().keys() == key_type::int64) return self().contains_integer(widen_key(key));
    }
    return self().contains(key_bytes(key).view());
  }
  // Counting filters only (whose `counting` is true).
  template <std::integral T, class F = Filter>
  bool remove(T key) requires F::counting {
    if constexpr (integer_key<T> && requires(F & f) { f.remove_integer(0); }) {
      if (self().keys() == key_type::int64) return self().remove_integer(widen_key(key));
    }
    return self().remove(key_bytes(key).view());
  }

 private:
  Filter& self() noexcept { return static_cast<Filter&>(*this); }
  const Filter& self() const noexcept { return static_cast<const Filter&>(*this); }
};

}  // namespace bloomkit::detail
