#pragma once
// Batches of integer keys of any width as the 64-bit keys the integer schemes hash (widen_key,
// key_type.hpp): 64-bit spans as they are, narrower ones widened a chunk at a time on the stack.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "bloomkit/key_type.hpp"

namespace bloomkit::detail {

// Keys widened per chunk: small enough for the stack, large enough that the pipeline's fill and
// drain per chunk (its lag) cost nothing measurable.
inline constexpr std::size_t widened_chunk = 1024;

// The sum of run(chunk, offset) over the keys as 64-bit keys, offset the index of chunk[0].
template <integer_key T, class Run>
std::size_t over_widened_keys(std::span<const T> keys, Run run) {
  using plain = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<plain, std::uint64_t> || std::is_same_v<plain, std::int64_t>) {
    // int64_t may be read as uint64_t (its unsigned type): widen_key is its bits.
    return run(std::span<const std::uint64_t>(reinterpret_cast<const std::uint64_t*>(keys.data()),
                                              keys.size()),
               std::size_t{0});
  } else {
    std::array<std::uint64_t, widened_chunk> wide;
    std::size_t total = 0;
    for (std::size_t at = 0; at < keys.size(); at += widened_chunk) {
      const std::size_t n = std::min(widened_chunk, keys.size() - at);
      for (std::size_t i = 0; i < n; ++i) wide[i] = widen_key(keys[at + i]);
      total += run(std::span<const std::uint64_t>(wide.data(), n), at);
    }
    return total;
  }
}

}  // namespace bloomkit::detail
