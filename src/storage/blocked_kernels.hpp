#pragma once
// Internal: the hot paths of the split-block storage (the blocked filter's layout of k = 8;
// line_kernels.hpp has its layouts of 512-bit lines), written once over an
// instruction-set policy and compiled twice: for the baseline ISA (isa_kernels.cpp) and with
// -mavx2 (isa_kernels_avx2.cpp). The filter calls them through a blocked_kernels table
// chosen at run time (isa_kernels.hpp), one indirect call per key or per batch; the batches run the
// one pipeline (filter_pipeline.hpp) over split_block_ops.
//
// A policy supplies
//   static void masks(std::uint32_t h32, std::uint64_t out[4]);   // the 8 word masks, as 4 u64
//   static bool insert(std::uint64_t* block, std::uint32_t h32);  // single writer; true if new
//   static bool contains(const std::uint64_t* block, std::uint32_t h32);
// where block points at the 4 64-bit words (32 bytes, 32-byte aligned) of one block. Lookups may
// race with atomic inserts: the portable ones read relaxed atomic loads
// (bloomkit/detail/split_block.hpp, shared with the single-key path basic_filter inlines), the
// AVX2 ones one whole-block load (isa_kernels_avx2.cpp says why no key is missed).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "../core/filter_pipeline.hpp"
#include "blocked_batch.hpp"
#include "bloomkit/detail/multiply_high.hpp"
#include "bloomkit/detail/split_block.hpp"
#include "bloomkit/detail/word_access.hpp"
#include "line_kernels.hpp"

namespace bloomkit::detail {

// One table per instruction set.
struct blocked_kernels {
  const char* name;
  bool (*insert)(std::uint64_t* words, std::uint64_t blocks, std::uint64_t digest,
                 bool atomic) noexcept;
  bool (*contains)(const std::uint64_t* words, std::uint64_t blocks, std::uint64_t digest) noexcept;
  // added (nullptr: not wanted): per key, whether it was new (insert_pipeline).
  std::size_t (*insert_many)(std::uint64_t* words, std::uint64_t blocks, blocked_batch batch,
                             bool atomic, bool* added) noexcept;
  std::size_t (*contains_many)(const std::uint64_t* words, std::uint64_t blocks,
                               blocked_batch batch, bool* results) noexcept;
  // Window slots (filters of `blocks` blocks each, slots[0] first; filter_pipeline.hpp):
  // lookups in all of them, and inserts into slots[0] that count keys no slot held (added as
  // for insert_many).
  std::size_t (*contains_many_in_slots)(std::uint64_t* const* slots, std::size_t count,
                                        std::uint64_t blocks, blocked_batch batch,
                                        bool* results) noexcept;
  slot_insert_counts (*insert_many_in_slots)(std::uint64_t* const* slots, std::size_t count,
                                             std::uint64_t blocks, blocked_batch batch,
                                             bool* added) noexcept;
  // The same paths for the layouts of 512-bit lines (k != 8), compiled for the same ISA.
  line_kernels lines;
};

// Internal linkage on purpose: each translation unit compiles its own copy for its own
// instruction set, and the linker must never pick the AVX2 copy for the baseline one.
namespace {

// Sets the bits of `masks` with one atomic fetch-or per 64-bit word that lacks some of them.
inline bool insert_masks_atomic(std::uint64_t* block, const std::uint64_t* masks) noexcept {
  bool changed = false;
  for (int j = 0; j < 4; ++j)
    changed |= (fetch_or_relaxed(block + j, masks[j]) & masks[j]) != masks[j];
  return changed;
}

// The cell operations of split blocks for the pipeline: a key's location is its block, the
// multiply-high (h * blocks) >> 64 of its digest h, and h32, the low 32 bits of h, from which the
// salts choose one bit in each of the block's eight 32-bit words.
template <class Isa>
struct split_block_ops {
  using digest_type = std::uint64_t;
  struct location {
    std::uint64_t block;  // its index: the same in every filter of this size
    std::uint32_t h32;
  };
  static constexpr bool two_stage = false;
  // One line per key: integer keys and ready digests prefetch further (filter_pipeline.hpp).
  static constexpr bool one_line_per_key = true;

  std::uint64_t* words;  // lookups never write through it
  std::uint64_t blocks;

  void locate(std::uint64_t h, location& at) const noexcept {
    at.block = multiply_high(h, blocks);
    at.h32 = static_cast<std::uint32_t>(h);
  }
  [[gnu::always_inline]] void prefetch_write(const location& at) const noexcept {
    detail::prefetch_write(block(at));
  }
  template <bool Atomic>
  bool insert(const location& at) const noexcept {
    if constexpr (Atomic) {
      std::uint64_t masks[4];
      Isa::masks(at.h32, masks);
      return insert_masks_atomic(block(at), masks);
    } else {
      return Isa::insert(block(at), at.h32);
    }
  }
  [[gnu::always_inline]] void prefetch_first(const location& at) const noexcept {
    detail::prefetch_read(block(at));
  }
  bool test_first(const location& at) const noexcept { return Isa::contains(block(at), at.h32); }
  std::uint64_t* block(const location& at) const noexcept { return words + at.block * 4; }
  touched_bytes touched() const noexcept { return {static_cast<std::size_t>(blocks * 32)}; }
};

template <class Isa>
struct blocked_paths {
  using ops = split_block_ops<Isa>;

  static bool insert(std::uint64_t* words, std::uint64_t blocks, std::uint64_t digest,
                     bool atomic) noexcept {
    const ops o{words, blocks};
    typename ops::location at;
    o.locate(digest, at);
    return atomic ? o.template insert<true>(at) : o.template insert<false>(at);
  }
  static bool contains(const std::uint64_t* words, std::uint64_t blocks,
                       std::uint64_t digest) noexcept {
    const ops o{const_cast<std::uint64_t*>(words), blocks};
    typename ops::location at;
    o.locate(digest, at);
    return o.test_first(at);
  }

  static std::size_t insert_many(std::uint64_t* words, std::uint64_t blocks, blocked_batch batch,
                                 bool atomic, bool* added) noexcept {
    const ops o{words, blocks};
    return over_batch(batch, [&](auto digest_at) {
      return atomic ? insert_pipeline<true>(o, batch.size, digest_at, o.touched(), added)
                    : insert_pipeline<false>(o, batch.size, digest_at, o.touched(), added);
    });
  }
  static std::size_t contains_many(const std::uint64_t* words, std::uint64_t blocks,
                                   blocked_batch batch, bool* results) noexcept {
    const ops o{const_cast<std::uint64_t*>(words), blocks};
    return over_batch(batch, [&](auto digest_at) {
      return lookup_pipeline(o, batch.size, digest_at, o.touched(), results);
    });
  }

  static std::size_t contains_many_in_slots(std::uint64_t* const* slots, std::size_t count,
                                            std::uint64_t blocks, blocked_batch batch,
                                            bool* results) noexcept {
    ops each[max_kernel_slots];
    for (std::size_t s = 0; s < count; ++s) each[s] = {slots[s], blocks};
    return over_batch<lines_per_key>(batch, [&](auto digest_at) {
      return lookup_slots_pipeline(slot_ops<ops>{each, count}, batch.size, digest_at,
                                   touched_bytes{ops{nullptr, blocks}.touched().bytes * count},
                                   results);
    });
  }
  static slot_insert_counts insert_many_in_slots(std::uint64_t* const* slots, std::size_t count,
                                                 std::uint64_t blocks, blocked_batch batch,
                                                 bool* added) noexcept {
    ops each[max_kernel_slots];
    for (std::size_t s = 0; s < count; ++s) each[s] = {slots[s], blocks};
    return over_batch<lines_per_key>(batch, [&](auto digest_at) {
      return insert_slots_pipeline(slot_ops<ops>{each, count}, batch.size, digest_at,
                                   touched_bytes{ops{nullptr, blocks}.touched().bytes * count},
                                   added);
    });
  }

  static constexpr blocked_kernels table(const char* name) noexcept {
    return {name,
            &insert,
            &contains,
            &insert_many,
            &contains_many,
            &contains_many_in_slots,
            &insert_many_in_slots,
            line_paths::table()};
  }
};

}  // namespace
}  // namespace bloomkit::detail
