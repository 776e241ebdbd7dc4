#pragma once
// Internal: how a composite filter (scalable chain, time window) sizes and checks its
// sub-filters, per sub-filter type. Every sub-filter must meet its own target FPP exactly at its
// capacity, small ones included, or the composite's bound does not hold.

#include <algorithm>
#include <cstdint>

#include "bloomkit/filter.hpp"
#include "bloomkit/sizing.hpp"
#include "filter_rules.hpp"

namespace bloomkit::detail {

template <class Sub>
struct sub_filter_sizing;

template <>
struct sub_filter_sizing<bloom_filter> {
  // The fewest bits whose exact FPP at n is at most p (sizing.hpp).
  static filter_params size(std::uint64_t n, double p) { return exact_params(n, p); }
  static void check(std::uint64_t cells, std::uint32_t hashes) { validate_params(cells, hashes); }
  // Files written before exact sizing hold sub-filters sized by the textbook figure (m raised
  // until it was within the target); both kinds of chain load.
  static double fpp(std::uint64_t cells, std::uint32_t hashes, std::uint64_t n) {
    return std::min(expected_fpp(cells, hashes, n), exact_fpp(cells, hashes, n));
  }
};

template <>
struct sub_filter_sizing<blocked_bloom_filter> {
  static filter_params size(std::uint64_t n, double p) {
    return blocked_params(n, p);  // its layout too: deep links have small p
  }
  static void check(std::uint64_t cells, std::uint32_t hashes) {
    check_blocked_config(cells, hashes);
  }
  static double fpp(std::uint64_t cells, std::uint32_t hashes, std::uint64_t n) {
    return blocked_fpp(cells, hashes, n);
  }
};

// How a window sizes its slots: as a chain its sub-filters, but blocked slots keep the split block
// at every p (sizing.hpp): the grouped window's overflow parts are sized from the window's config,
// which its files record, not their own bits and k, so their layout must never change.
template <class Sub>
struct window_slot_sizing : sub_filter_sizing<Sub> {};

template <>
struct window_slot_sizing<blocked_bloom_filter> : sub_filter_sizing<blocked_bloom_filter> {
  static filter_params size(std::uint64_t n, double p) {
    return {blocked_optimal_blocks(n, p) * blocked_block_bits, blocked_hashes};
  }
};

}  // namespace bloomkit::detail
