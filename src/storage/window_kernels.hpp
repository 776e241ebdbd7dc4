#pragma once
// Internal: the batch paths of the grouped window filter (window_filter.cpp), written once over an
// instruction-set policy and compiled twice, as the blocked filter's are (blocked_kernels.hpp):
// for the baseline ISA (isa_kernels.cpp) and with -mavx2 (isa_kernels_avx2.cpp), chosen at
// run time (isa_kernels.hpp). Both set and test the same bits (word_mask.hpp).
//
// A policy is a template over the lane count of a word (Lanes 64-bit lanes, 2 to 4: a word has
// at least 112 bits) that supplies
//   using mask = ...;   // a key's bits in one word (a type outside the policy's namespace)
//   struct shape { shape(std::uint32_t field, std::uint32_t k);     // once per batch
//                  mask of(std::uint64_t seed) const; };            // word_mask_fields' bits
//   static bool holds(const unsigned char* word, const mask&);      // every mask bit set
//   static bool set(unsigned char* word, const mask&);              // ORs it in: changed?
// Words sit at any byte offset; their lanes are read and written whole, so bits past a word (the
// next word's, or the tail bytes') are written back as read: a single writer.
//
// Every template here takes the policy as a parameter and the policies live in unnamed
// namespaces, so no instantiation compiled with -mavx2 can stand in for a baseline one.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "../core/filter_pipeline.hpp"
#include "../core/key_stream.hpp"
#include "bloomkit/detail/multiply_high.hpp"
#include "bloomkit/detail/word_access.hpp"

#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

namespace bloomkit::detail {

// What a batch needs of the filter: the group array and its shape.
struct window_group_view {
  unsigned char* base;
  std::uint64_t groups;
  std::uint64_t group_bytes;
  std::uint32_t lines;
  std::uint32_t word_bits;
  std::uint32_t hashes;
};

struct window_insert_counts {
  std::size_t changed = 0;  // keys that changed the current slot's word
  std::size_t fresh = 0;    // of those, the keys no other live slot holds
};

// One table per instruction set.
struct window_kernels {
  const char* name;
  // results[i]: whether a live slot (word byte offsets in a group: offsets[0 .. live)) holds
  // keys[i]; returns how many do.
  std::size_t (*contains_many)(const window_group_view& g, const std::uint32_t* offsets,
                               std::size_t live, std::span<const std::string_view> keys,
                               bool* results) noexcept;
  // Inserts the keys in order into the slot at byte `target` of each group; a key is fresh when
  // it changed that word and no other live slot (`others`) holds it (a repeat within the batch
  // is not, as with a loop of inserts). added (nullptr: not wanted): per key, whether it was.
  window_insert_counts (*insert_many)(const window_group_view& g, std::uint32_t target,
                                      const std::uint32_t* others, std::size_t count,
                                      std::span<const std::string_view> keys, bool* added) noexcept;
};

// The cell operations of the grouped layout for the one pipeline (filter_pipeline.hpp), W a
// policy's Words<Lanes>: a key's location is its group, the multiply-high of its digest's high
// half by the groups, and its mask in a word, from the low half; it is marked in the word of one
// slot (byte `target` of the group) and checked across the words of the slots at byte
// `offsets[0 .. count)` of the group.
template <class W>
struct window_group_ops {
  using digest_type = XXH128_hash_t;
  struct location {
    std::uint64_t group;  // its first byte
    typename W::mask mask;
  };
  static constexpr bool two_stage = false;

  window_group_view g;      // a copy: the words written may be any bytes
  typename W::shape shape;  // once per batch
  const std::uint32_t* offsets;
  std::size_t count;
  std::uint32_t target = 0;        // inserts only
  std::size_t* changed = nullptr;  // inserts only: counts the keys that changed `target`
  // The lines of a group the batch reads: those of the words it tests and marks. A fresh window
  // (one live slot) reads one line of a two-line group, and prefetching only that one halves its
  // memory traffic.
  std::uint32_t first_line = 0, end_line = 0;

  // The group's lines that hold the words at `offsets` (and at `target` when marking), each
  // read as `read_bytes` (its whole 64-bit lanes).
  void touch_words(bool marks, std::uint32_t read_bytes) noexcept {
    std::uint32_t lo = marks ? target : ~std::uint32_t{0}, hi = marks ? target : 0;
    for (std::size_t s = 0; s < count; ++s) {
      lo = offsets[s] < lo ? offsets[s] : lo;
      hi = offsets[s] > hi ? offsets[s] : hi;
    }
    if (lo > hi) return;  // no word: no line
    first_line = lo / 64;
    end_line = (hi + read_bytes + 63) / 64;
    if (end_line > g.lines) end_line = g.lines;
  }
  // The bytes a batch reads: the touched lines of every group.
  touched_bytes touched() const noexcept {
    return {static_cast<std::size_t>(g.groups * (end_line - first_line) * 64),
            end_line - first_line};
  }

  void locate(const digest_type& d, location& at) const noexcept {
    at.group = multiply_high(d.high64, g.groups) * g.group_bytes;
    at.mask = shape.of(d.low64);
  }
  [[gnu::always_inline]] void prefetch_write(const location& at) const noexcept {
    const unsigned char* line = g.base + at.group + std::size_t{64} * first_line;
    for (std::uint32_t i = first_line; i < end_line; ++i, line += 64) detail::prefetch_write(line);
  }
  [[gnu::always_inline]] void prefetch_first(const location& at) const noexcept {
    const unsigned char* line = g.base + at.group + std::size_t{64} * first_line;
    for (std::uint32_t i = first_line; i < end_line; ++i, line += 64) detail::prefetch_read(line);
  }
  // Whether a slot's word holds the mask, two ways, each where it measured faster
  // (bench/window_pairs.cpp, in cache): lookups test every slot without a branch (the slot
  // holding a key is as good as random, and the mispredicted early exit cost 2.6x the blocked
  // filter's lookup against 1.8x); an insert's "no other slot" test stops at the first (its
  // keys are mostly new, the branch is predicted, and without it inserts cost 2.4-2.6x against
  // 2.1-2.2x).
  bool test_first(const location& at) const noexcept {
    const unsigned char* group = g.base + at.group;
    bool some = false;
    for (std::size_t s = 0; s < count; ++s) some |= W::holds(group + offsets[s], at.mask);
    return some;
  }
  // Marks the key in slot `target`; true when it is new to the window: it changed that word and
  // no other slot holds it (so the pipeline's added and count are the window's).
  template <bool Atomic>
  bool insert(const location& at) const noexcept {
    static_assert(!Atomic, "a window has a single writer");
    unsigned char* group = g.base + at.group;
    if (!W::set(group + target, at.mask)) return false;
    ++*changed;
    for (std::size_t s = 0; s < count; ++s) {
      if (W::holds(group + offsets[s], at.mask)) return false;
    }
    return true;
  }
};

template <template <unsigned> class Words>
struct window_paths {
  // Keys are hashed here, inline, so that hashing overlaps the memory accesses in the pipeline.
  static auto digest_at(std::span<const std::string_view> keys) noexcept {
    return streamed_digests<lines_per_key>(
        keys, [](std::string_view k) noexcept { return XXH3_128bits(k.data(), k.size()); });
  }

  template <unsigned Lanes>
  static std::size_t lookup(const window_group_view& g, const std::uint32_t* offsets,
                            std::size_t live, std::span<const std::string_view> keys,
                            bool* results) noexcept {
    using ops = window_group_ops<Words<Lanes>>;
    ops o{g, {g.word_bits / g.hashes, g.hashes}, offsets, live};
    o.touch_words(false, Lanes * 8);
    return lookup_pipeline(o, keys.size(), digest_at(keys), o.touched(), results);
  }

  template <unsigned Lanes>
  static window_insert_counts insert(const window_group_view& g, std::uint32_t target,
                                     const std::uint32_t* others, std::size_t count,
                                     std::span<const std::string_view> keys, bool* added) noexcept {
    using ops = window_group_ops<Words<Lanes>>;
    window_insert_counts counts;
    ops o{g, {g.word_bits / g.hashes, g.hashes}, others, count, target, &counts.changed};
    o.touch_words(true, Lanes * 8);
    counts.fresh = insert_pipeline<false>(o, keys.size(), digest_at(keys), o.touched(), added);
    return counts;
  }

  // Calls f.template operator()<Lanes>() for the lanes of w-bit words (112 <= w <= 256).
  template <class F>
  static decltype(auto) with_lanes(std::uint32_t word_bits, F f) noexcept {
    switch ((word_bits + 63) / 64) {
      case 2:
        return f.template operator()<2>();
      case 3:
        return f.template operator()<3>();
      default:
        return f.template operator()<4>();
    }
  }

  static std::size_t contains_many(const window_group_view& g, const std::uint32_t* offsets,
                                   std::size_t live, std::span<const std::string_view> keys,
                                   bool* results) noexcept {
    return with_lanes(g.word_bits, [&]<unsigned Lanes>() {
      return lookup<Lanes>(g, offsets, live, keys, results);
    });
  }
  static window_insert_counts insert_many(const window_group_view& g, std::uint32_t target,
                                          const std::uint32_t* others, std::size_t count,
                                          std::span<const std::string_view> keys,
                                          bool* added) noexcept {
    return with_lanes(g.word_bits, [&]<unsigned Lanes>() {
      return insert<Lanes>(g, target, others, count, keys, added);
    });
  }

  static constexpr window_kernels table(const char* name) noexcept {
    return {name, &contains_many, &insert_many};
  }
};

}  // namespace bloomkit::detail
