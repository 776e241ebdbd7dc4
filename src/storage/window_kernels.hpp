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

// Keys ahead of the one being tested whose groups are being prefetched: a group is one or two
// lines (S <= 8), so a few dozen keys keep enough misses in flight to cover DRAM latency.
inline constexpr std::size_t window_pipeline_lag = 24;
inline constexpr std::size_t window_pipeline_ring = 32;  // a power of two > the lag

template <template <unsigned> class Words>
struct window_paths {
  template <unsigned Lanes>
  struct place {
    std::uint64_t group;  // its first byte
    typename Words<Lanes>::mask mask;
  };

  template <unsigned Lanes>
  static void locate(const window_group_view& g, const typename Words<Lanes>::shape& shape,
                     std::string_view key, place<Lanes>& at) noexcept {
    const XXH128_hash_t d = XXH3_128bits(key.data(), key.size());
    at.group = multiply_high(d.high64, g.groups) * g.group_bytes;
    at.mask = shape.of(d.low64);
  }

  static void prefetch(const window_group_view& g, std::uint64_t group, bool write) noexcept {
    const unsigned char* line = g.base + group;
    for (std::uint32_t i = 0; i < g.lines; ++i, line += 64) {
      if (write) {
        prefetch_write(line);
      } else {
        prefetch_read(line);
      }
    }
  }

  // Whether a word of the slots at `offsets` holds the mask, two ways, each where it measured
  // faster (bench/window_pairs.cpp, in cache): lookups test every slot without a branch (the
  // slot holding a key is as good as random, and the mispredicted early exit cost 2.6x the
  // blocked filter's lookup against 1.8x); an insert's "no other slot" test stops at the first
  // (its keys are mostly new, the branch is predicted, and without it inserts cost 2.4-2.6x
  // against 2.1-2.2x).
  template <unsigned Lanes>
  static bool some_holds_without_branches(const unsigned char* group, const std::uint32_t* offsets,
                                          std::size_t count,
                                          const typename Words<Lanes>::mask& mask) noexcept {
    bool some = false;
    for (std::size_t s = 0; s < count; ++s) some |= Words<Lanes>::holds(group + offsets[s], mask);
    return some;
  }
  template <unsigned Lanes>
  static bool some_holds(const unsigned char* group, const std::uint32_t* offsets,
                         std::size_t count, const typename Words<Lanes>::mask& mask) noexcept {
    for (std::size_t s = 0; s < count; ++s) {
      if (Words<Lanes>::holds(group + offsets[s], mask)) return true;
    }
    return false;
  }

  // Step i locates key i and prefetches its group (for writing when `write`), and hands key
  // i - lag to visit(index, place), so that each group is in cache by the time its key is tested.
  template <unsigned Lanes, class Visit>
  static void pipeline(const window_group_view& g, std::span<const std::string_view> keys,
                       bool write, Visit visit) noexcept {
    const typename Words<Lanes>::shape shape(g.word_bits / g.hashes, g.hashes);
    place<Lanes> ring[window_pipeline_ring];
    const std::size_t n = keys.size();
    const std::size_t lag = n > window_pipeline_lag ? window_pipeline_lag : 0;
    for (std::size_t i = 0; i < n + lag; ++i) {
      if (i < n) {
        place<Lanes>& at = ring[i % window_pipeline_ring];
        locate<Lanes>(g, shape, keys[i], at);
        if (lag != 0) prefetch(g, at.group, write);
      }
      if (i >= lag) visit(i - lag, ring[(i - lag) % window_pipeline_ring]);
    }
  }

  template <unsigned Lanes>
  static std::size_t lookup(const window_group_view& g, const std::uint32_t* offsets,
                            std::size_t live, std::span<const std::string_view> keys,
                            bool* results) noexcept {
    std::size_t present = 0;
    pipeline<Lanes>(g, keys, false, [&](std::size_t i, const place<Lanes>& at) {
      const bool hit =
          some_holds_without_branches<Lanes>(g.base + at.group, offsets, live, at.mask);
      results[i] = hit;
      present += hit;
    });
    return present;
  }

  template <unsigned Lanes>
  static window_insert_counts insert(const window_group_view& g, std::uint32_t target,
                                     const std::uint32_t* others, std::size_t count,
                                     std::span<const std::string_view> keys, bool* added) noexcept {
    window_insert_counts counts;
    pipeline<Lanes>(g, keys, true, [&](std::size_t i, const place<Lanes>& at) {
      unsigned char* group = g.base + at.group;
      bool fresh = false;
      if (Words<Lanes>::set(group + target, at.mask)) {
        ++counts.changed;
        fresh = !some_holds<Lanes>(group, others, count, at.mask);
        counts.fresh += fresh;
      }
      if (added != nullptr) added[i] = fresh;
    });
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
