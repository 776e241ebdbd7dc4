#pragma once
// What a filter's keys are: byte strings or 64-bit integers (recorded in files: file_header.hpp's
// flags, docs/FORMAT.md), and how an integer of any fixed width becomes a 64-bit integer key.

#include <concepts>
#include <cstdint>
#include <type_traits>

namespace bloomkit {

// How the keys of a filter are encoded. Bytes are what the byte-string schemes hash; the
// integer schemes (hashing.hpp: splitmix64_*) hash the 64-bit value itself.
enum class key_type : std::uint32_t {
  string = 0,  // keys are byte strings (text lines, UTF-8)
  // Keys are 64-bit integers: under the peers' schemes hashed as their 8 little-endian bytes
  // (Guava's Funnels.longFunnel()); native filters of integer keys hash them by an integer
  // scheme (splitmix64_split_block, splitmix64_128), which their files record.
  int64 = 1,
};

// The fixed-width integer types an integer filter takes (not bool, not the character types).
template <class T>
concept integer_key =
    std::integral<T> && !std::same_as<std::remove_cv_t<T>, bool> &&
    !std::same_as<std::remove_cv_t<T>, char> && !std::same_as<std::remove_cv_t<T>, wchar_t> &&
    !std::same_as<std::remove_cv_t<T>, char8_t> && !std::same_as<std::remove_cv_t<T>, char16_t> &&
    !std::same_as<std::remove_cv_t<T>, char32_t>;

// The 64-bit key of an integer: signed types are sign-extended, unsigned ones zero-extended, and
// the result taken modulo 2^64 (two's complement). So a value is the same key whatever type holds
// it (int32_t{-1} and int64_t{-1}; uint32_t{7} and int64_t{7}), and an int64_t x is the same key
// as the uint64_t of its bits (int64_t{-1} and UINT64_MAX).
template <integer_key T>
constexpr std::uint64_t widen_key(T key) noexcept {
  if constexpr (std::is_signed_v<T>) {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(key));
  } else {
    return static_cast<std::uint64_t>(key);
  }
}

}  // namespace bloomkit
