#pragma once
// Internal: the hot paths of blocked_bloom_filter, written once over an instruction-set policy and
// compiled twice: for the baseline ISA (blocked_bloom_filter.cpp) and with -mavx2
// (blocked_bloom_filter_avx2.cpp). The filter calls them through a blocked_kernels table chosen
// at run time, one indirect call per key or per batch.
//
// A policy supplies
//   static void masks(std::uint32_t h32, std::uint64_t out[4]);   // the 8 word masks, as 4 u64
//   static bool insert(std::uint64_t* block, std::uint32_t h32);  // single writer; true if new
//   static bool contains(const std::uint64_t* block, std::uint32_t h32);
// where block points at the 4 64-bit words (32 bytes, 32-byte aligned) of one block. Lookups read
// with relaxed atomic loads, so they may race with insert_atomic below.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "bloomkit/hashing.hpp"

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace bloomkit::detail {

// One table per instruction set.
struct blocked_kernels {
  const char* name;
  bool (*insert)(std::uint64_t* words, std::uint64_t blocks, std::string_view key) noexcept;
  bool (*insert_atomic)(std::uint64_t* words, std::uint64_t blocks, std::string_view key) noexcept;
  bool (*contains)(const std::uint64_t* words, std::uint64_t blocks, std::string_view key) noexcept;
  std::size_t (*insert_many)(std::uint64_t* words, std::uint64_t blocks,
                             std::span<const std::string_view> keys) noexcept;
  std::size_t (*insert_many_atomic)(std::uint64_t* words, std::uint64_t blocks,
                                    std::span<const std::string_view> keys) noexcept;
  std::size_t (*contains_many)(const std::uint64_t* words, std::uint64_t blocks,
                               std::span<const std::string_view> keys, bool* results) noexcept;
};

const blocked_kernels& portable_blocked_kernels() noexcept;
// nullptr when the build has no AVX2 path (not x86-64, or a compiler without -mavx2).
const blocked_kernels* avx2_blocked_kernels() noexcept;

// The eight odd salts of the split-block filter (the multipliers of the Apache Parquet / Impala
// split-block filter specification).
inline constexpr std::uint32_t blocked_salts[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU,
                                                   0xa2b7289dU, 0x705495c7U, 0x2df1424bU,
                                                   0x9efc4947U, 0x5c6bfb31U};

// Internal linkage on purpose: each translation unit compiles its own copy for its own
// instruction set, and the linker must never pick the AVX2 copy for the baseline one.
namespace {

struct key_location {
  std::uint64_t block;  // index of the block
  std::uint32_t h32;    // input of the salted bit choice
};

// The block is the multiply-high (h * blocks) >> 64 (reduce_range in hashing.hpp; spelled out here
// so that no function with external linkage is compiled for two instruction sets).
inline key_location locate(std::string_view key, std::uint64_t blocks) noexcept {
  const std::uint64_t h = XXH3_64bits(key.data(), key.size());
  return {static_cast<std::uint64_t>((static_cast<uint128>(h) * blocks) >> 64),
          static_cast<std::uint32_t>(h)};
}

inline std::uint64_t load_relaxed(const std::uint64_t* p) noexcept {
  return __atomic_load_n(p, __ATOMIC_RELAXED);
}

// Sets the bits of `masks` with one atomic fetch-or per 64-bit word that lacks some of them.
inline bool insert_masks_atomic(std::uint64_t* block, const std::uint64_t* masks) noexcept {
  bool changed = false;
  for (int j = 0; j < 4; ++j) {
    if ((load_relaxed(block + j) & masks[j]) == masks[j]) continue;  // skip the locked op
    changed |= (__atomic_fetch_or(block + j, masks[j], __ATOMIC_RELAXED) & masks[j]) != masks[j];
  }
  return changed;
}

template <class Isa>
struct blocked_paths {
  static std::uint64_t* block_at(std::uint64_t* words, std::uint64_t block) noexcept {
    return words + block * 4;
  }
  static const std::uint64_t* block_at(const std::uint64_t* words, std::uint64_t block) noexcept {
    return words + block * 4;
  }
  static bool insert_one(std::uint64_t* words, key_location at) noexcept {
    return Isa::insert(block_at(words, at.block), at.h32);
  }
  static bool insert_one_atomic(std::uint64_t* words, key_location at) noexcept {
    std::uint64_t masks[4];
    Isa::masks(at.h32, masks);
    return insert_masks_atomic(block_at(words, at.block), masks);
  }

  static bool insert(std::uint64_t* words, std::uint64_t blocks, std::string_view key) noexcept {
    return insert_one(words, locate(key, blocks));
  }
  static bool insert_atomic(std::uint64_t* words, std::uint64_t blocks,
                            std::string_view key) noexcept {
    return insert_one_atomic(words, locate(key, blocks));
  }
  static bool contains(const std::uint64_t* words, std::uint64_t blocks,
                       std::string_view key) noexcept {
    const key_location at = locate(key, blocks);
    return Isa::contains(block_at(words, at.block), at.h32);
  }

  // Software pipeline: step i hashes key i and prefetches its block (into L2: more misses in
  // flight than L1 prefetches allow, bench/RESULTS.md); step i also handles key i - lag, whose
  // line has had `lag` keys of hashing to arrive. One line per key, so no second stage.
  static constexpr std::size_t lag = 16;
  static constexpr std::size_t ring = 32;  // a power of two > lag

  template <bool Atomic>
  static std::size_t insert_pipeline(std::uint64_t* words, std::uint64_t blocks,
                                     std::span<const std::string_view> keys) noexcept {
    key_location slots[ring];
    const std::size_t n = keys.size();
    std::size_t fresh = 0;
    for (std::size_t i = 0; i < n + lag; ++i) {
      if (i < n) {
        const key_location at = locate(keys[i], blocks);
        slots[i % ring] = at;
        __builtin_prefetch(block_at(words, at.block), 1, 2);
      }
      if (i >= lag) {
        const key_location at = slots[(i - lag) % ring];
        fresh += Atomic ? insert_one_atomic(words, at) : insert_one(words, at);
      }
    }
    return fresh;
  }
  static std::size_t insert_many(std::uint64_t* words, std::uint64_t blocks,
                                 std::span<const std::string_view> keys) noexcept {
    return insert_pipeline<false>(words, blocks, keys);
  }
  static std::size_t insert_many_atomic(std::uint64_t* words, std::uint64_t blocks,
                                        std::span<const std::string_view> keys) noexcept {
    return insert_pipeline<true>(words, blocks, keys);
  }

  static std::size_t contains_many(const std::uint64_t* words, std::uint64_t blocks,
                                   std::span<const std::string_view> keys, bool* results) noexcept {
    key_location slots[ring];
    const std::size_t n = keys.size();
    std::size_t present = 0;
    for (std::size_t i = 0; i < n + lag; ++i) {
      if (i < n) {
        const key_location at = locate(keys[i], blocks);
        slots[i % ring] = at;
        __builtin_prefetch(block_at(words, at.block), 0, 2);
      }
      if (i >= lag) {
        const key_location at = slots[(i - lag) % ring];
        const bool hit = Isa::contains(block_at(words, at.block), at.h32);
        results[i - lag] = hit;
        present += hit;
      }
    }
    return present;
  }

  static constexpr blocked_kernels table(const char* name) noexcept {
    return {name,          &insert, &insert_atomic, &contains, &insert_many, &insert_many_atomic,
            &contains_many};
  }
};

}  // namespace
}  // namespace bloomkit::detail
