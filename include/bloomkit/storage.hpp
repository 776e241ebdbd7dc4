#pragma once
// Storage (cell) policies: how a filter keeps what its keys set. basic_filter (filter.hpp) is one
// template over a probe policy (hashing.hpp: where a key goes) and one of these (what lies
// there). Every storage keeps its cells in one bit_array (bit_array.hpp: 64-byte aligned, huge
// pages, zero-copy views over mapped files).
//
//   bit_storage          one bit per cell, k cells per key: the classic filter.
//   split_block_storage  256-bit blocks of eight 32-bit words; a key sets one bit in each word
//                        of one block (one cache line per key): the blocked filter. Its hot
//                        paths have an AVX2 and a portable build, chosen at run time. Its k
//                        names the layout: 8 those blocks, 1..7 or 16 512-bit lines
//                        (sizing.hpp, "Blocked layouts at every p").
//   counter_storage      4-bit counters saturating at 15, k per key: the counting filter, which
//                        adds remove().
//
// A policy carries its behaviour, as Boost.Bloom's block types do: `ops` (internal,
// src/storage/storage_ops.hpp) says how a key's cells are located, marked, checked and counted
// (and removed, for counters), how two filters' words combine in merge / intersect, whether
// every insert counts, and which kernels run; `state` is what one filter keeps for it (the
// blocked filter's ISA choice). basic_filter only calls them, never asks which storage it has.

#include <concepts>
#include <cstdint>
#include <string_view>

#include "bloomkit/sizing.hpp"

namespace bloomkit {

namespace detail {
struct bit_storage_ops;
struct split_block_storage_ops;
struct counter_storage_ops;
struct blocked_kernels;
}  // namespace detail

struct bit_storage {
  static constexpr std::string_view name = "classic";
  static constexpr std::uint32_t bits_per_cell = 1;
  static constexpr bool concurrent_inserts = true;  // lock-free fetch-or on 64-bit words
  static constexpr bool removable = false;
  static constexpr std::uint64_t max_cells = max_bits;
  using ops = detail::bit_storage_ops;
  struct state {};
};

struct split_block_storage {
  static constexpr std::string_view name = "blocked";
  static constexpr std::uint32_t bits_per_cell = 1;
  static constexpr bool concurrent_inserts = true;
  static constexpr bool removable = false;
  static constexpr std::uint64_t max_cells = max_bits;
  static constexpr std::uint64_t block_bits = blocked_block_bits;  // 256
  static constexpr std::uint32_t hashes_per_key = blocked_hashes;  // 8
  using ops = detail::split_block_storage_ops;
  // The hot paths this filter runs (AVX2 or portable: set_simd); set when the filter is made.
  struct state {
    const detail::blocked_kernels* kernels = nullptr;
  };
};

struct counter_storage {
  static constexpr std::string_view name = "counting";
  static constexpr std::uint32_t bits_per_cell = 4;
  static constexpr bool concurrent_inserts = false;  // single writer
  static constexpr bool removable = true;
  // A counter holds 0..15; at 15 it is saturated and stays there.
  static constexpr std::uint32_t max_count = 15;
  // 4 bits per counter in a bit_array of at most max_bits bits.
  static constexpr std::uint64_t max_cells = max_bits / 4;
  using ops = detail::counter_storage_ops;
  struct state {};
};

template <class S>
concept storage_policy = requires {
  { S::name } -> std::convertible_to<std::string_view>;
  { S::bits_per_cell } -> std::convertible_to<std::uint32_t>;
  { S::concurrent_inserts } -> std::convertible_to<bool>;
  { S::removable } -> std::convertible_to<bool>;
  { S::max_cells } -> std::convertible_to<std::uint64_t>;
  typename S::ops;
  typename S::state;
};

// Storages of fixed-size blocks with a fixed number of bits per key (split blocks): a filter of
// one has blocks() and a choice of ISA kernels, and is sized in bits or blocks rather than (m, k).
template <class S>
concept blocked_layout = storage_policy<S> && requires {
  { S::block_bits } -> std::convertible_to<std::uint64_t>;
  { S::hashes_per_key } -> std::convertible_to<std::uint32_t>;
};

}  // namespace bloomkit
