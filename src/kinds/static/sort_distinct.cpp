#include "sort_distinct.hpp"

#include <algorithm>
#include <bit>

namespace bloomkit::detail {

namespace {

// Below this, the counting pass costs more than it saves.
constexpr std::size_t small_run = 512;

std::size_t unique_front(std::span<std::uint64_t> sorted) {
  return static_cast<std::size_t>(std::unique(sorted.begin(), sorted.end()) - sorted.begin());
}

}  // namespace

std::size_t sort_distinct(std::span<std::uint64_t> hashes, unsigned known_bits,
                          std::vector<std::uint64_t>& scratch) {
  const std::size_t n = hashes.size();
  if (n < small_run || known_bits >= 56 || n > UINT32_MAX) {
    std::sort(hashes.begin(), hashes.end());
    return unique_front(hashes);
  }
  // About 4 hashes per range: digits of log2(n) - 2 bits, from just below the shared ones.
  const unsigned digit_bits =
      std::min(std::clamp(static_cast<unsigned>(std::bit_width(n)) - 2, 8u, 16u), 64 - known_bits);
  const unsigned shift = 64 - known_bits - digit_bits;
  const std::uint64_t mask = (std::uint64_t{1} << digit_bits) - 1;
  std::vector<std::uint32_t> starts((std::size_t{1} << digit_bits) + 1, 0);
  for (const std::uint64_t h : hashes) ++starts[((h >> shift) & mask) + 1];
  for (std::size_t d = 1; d < starts.size(); ++d) starts[d] += starts[d - 1];
  scratch.resize(n);
  {
    std::vector<std::uint32_t> next(starts.begin(), starts.end() - 1);
    for (const std::uint64_t h : hashes) scratch[next[(h >> shift) & mask]++] = h;
  }
  // Sort each range and copy it back without repeats (a repeat is always within one range).
  std::size_t out = 0;
  for (std::size_t d = 0; d + 1 < starts.size(); ++d) {
    auto* const begin = scratch.data() + starts[d];
    auto* const end = scratch.data() + starts[d + 1];
    if (end - begin > 64) {
      std::sort(begin, end);  // many repeats of one key
    } else {
      // Insertion sort: the ranges hold a handful of hashes.
      for (auto* i = begin + 1; i < end; ++i) {
        const std::uint64_t v = *i;
        auto* j = i;
        for (; j > begin && *(j - 1) > v; --j) *j = *(j - 1);
        *j = v;
      }
    }
    for (auto* i = begin; i < end; ++i) {
      if (out == 0 || hashes[out - 1] != *i) hashes[out++] = *i;
    }
  }
  return out;
}

}  // namespace bloomkit::detail
