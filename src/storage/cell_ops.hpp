#pragma once
// Internal: the cell operations of the storages whose keys have k positions from a probe
// sequence: single bits (bit_storage, the classic filter) and 4-bit counters (counter_storage,
// the counting filter), for the one pipeline (filter_pipeline.hpp) and the single-key paths.

#include <cstdint>

#include "bloomkit/detail/word_access.hpp"
#include "bloomkit/storage.hpp"

namespace bloomkit::detail {

// Bit i is bit (i % 64) of word i / 64.
struct bit_cell {
  static const std::uint64_t* word(const std::uint64_t* words, std::uint64_t i) noexcept {
    return words + (i >> 6);
  }
  static bool test(const std::uint64_t* words, std::uint64_t i) noexcept {
    return (load_relaxed(words + (i >> 6)) >> (i & 63)) & 1;
  }
  // Sets bit i; true if it was 0.
  template <bool Atomic>
  static bool set(std::uint64_t* words, std::uint64_t i) noexcept {
    std::uint64_t* w = words + (i >> 6);
    const std::uint64_t mask = std::uint64_t{1} << (i & 63);
    if constexpr (Atomic) {
      return (fetch_or_relaxed(w, mask) & mask) == 0;
    } else {
      const bool was_clear = (*w & mask) == 0;
      *w |= mask;
      return was_clear;
    }
  }
};

// Counter i is bits [4i, 4i + 4): the low nibble of byte i / 2 for even i, the high for odd i.
struct nibble_cell {
  static const std::uint64_t* word(const std::uint64_t* words, std::uint64_t i) noexcept {
    return words + (i >> 4);
  }
  static std::uint32_t value(const std::uint64_t* words, std::uint64_t i) noexcept {
    return static_cast<std::uint32_t>((load_relaxed(words + (i >> 4)) >> ((i & 15) * 4)) & 15);
  }
  static bool test(const std::uint64_t* words, std::uint64_t i) noexcept {
    return value(words, i) != 0;
  }
  // Increments counter i unless saturated; true if it was 0. Single writer only (counters have
  // no concurrent insert: counter_storage::concurrent_inserts).
  template <bool Atomic>
  static bool set(std::uint64_t* words, std::uint64_t i) noexcept {
    std::uint64_t& w = words[i >> 4];
    const unsigned shift = static_cast<unsigned>(i & 15) * 4;
    const std::uint64_t c = (w >> shift) & 15;
    if (c != counter_storage::max_count) w += std::uint64_t{1} << shift;
    return c == 0;
  }
};

// Up to this many positions of a key are computed once and kept; probes past them are taken
// from the sequence again where they are needed (k > 16 is rare: p below 1e-5).
inline constexpr std::uint32_t stored_probes = 16;

template <class Probe>
struct probe_location {
  std::uint64_t pos[stored_probes];
  typename Probe::sequence_type rest;  // continues after the stored positions
};

template <class Probe, class Cell>
struct positional_ops {
  using digest_type = typename Probe::digest_type;
  using location = probe_location<Probe>;
  static constexpr bool two_stage = true;

  std::uint64_t* words;  // lookups never write through it
  std::uint64_t m;
  std::uint32_t k;

  std::uint32_t stored() const noexcept { return k < stored_probes ? k : stored_probes; }
  template <class F>
  void for_rest(const location& at, F f) const noexcept {
    if (k <= stored_probes) return;
    auto seq = at.rest;
    for (std::uint32_t i = stored_probes; i < k; ++i) f(seq.next());
  }

  // The sequence runs in registers; only a key with more than 16 probes keeps it in the slot.
  [[gnu::always_inline]] void locate(const digest_type& d, location& at) const noexcept {
    auto seq = Probe::probes(d, m);
    const std::uint32_t n = stored();
    for (std::uint32_t i = 0; i < n; ++i) at.pos[i] = seq.next();
    if (k > stored_probes) at.rest = seq;
  }
  // The prefetches are forced inline and written without lambdas: GCC deems a function whose
  // only effect is a prefetch free of side effects and drops calls to it before inlining.
  [[gnu::always_inline]] void prefetch_write(const location& at) const noexcept {
    prefetch_from<true>(at, 0);
  }
  template <bool Atomic>
  bool insert(const location& at) const noexcept {
    bool changed = false;
    const std::uint32_t n = stored();
    for (std::uint32_t i = 0; i < n; ++i) changed |= Cell::template set<Atomic>(words, at.pos[i]);
    for_rest(at, [&](std::uint64_t p) { changed |= Cell::template set<Atomic>(words, p); });
    return changed;
  }
  // The first two cells decide most misses (in a filter at its target fill, half the cells are
  // set), so lookups fetch them for every key and the other k - 2 only for survivors.
  [[gnu::always_inline]] void prefetch_first(const location& at) const noexcept {
    detail::prefetch_read(Cell::word(words, at.pos[0]));
    if (k > 1) detail::prefetch_read(Cell::word(words, at.pos[1]));
  }
  bool test_first(const location& at) const noexcept {
    bool alive = Cell::test(words, at.pos[0]);
    if (k > 1) alive &= Cell::test(words, at.pos[1]);
    return alive;
  }
  [[gnu::always_inline]] void prefetch_rest(const location& at) const noexcept {
    prefetch_from<false>(at, 2);
  }
  // The cells of probes first..k-1, for writing or for reading.
  template <bool Write>
  [[gnu::always_inline]] void prefetch_from(const location& at,
                                            std::uint32_t first) const noexcept {
    const std::uint32_t n = stored();
    for (std::uint32_t i = first; i < n; ++i) detail::prefetch<Write>(Cell::word(words, at.pos[i]));
    if (k > stored_probes) {
      auto seq = at.rest;
      for (std::uint32_t i = stored_probes; i < k; ++i) {
        detail::prefetch<Write>(Cell::word(words, seq.next()));
      }
    }
  }
  bool test_rest(const location& at) const noexcept {
    bool alive = true;
    const std::uint32_t n = stored();
    for (std::uint32_t i = 2; i < n; ++i) alive &= Cell::test(words, at.pos[i]);
    for_rest(at, [&](std::uint64_t p) { alive &= Cell::test(words, p); });
    return alive;
  }

  // Single keys. In a filter in DRAM all k lines are asked for before any is touched and all k
  // cells tested without an early exit: no mispredicted branch on a zero cell then stalls the
  // loads behind it, and a caller's loop over keys overlaps the next key's loads with these
  // (misses at n = 5e7: 261-277 -> 215-238 ns per key). In cache, the early exit is cheaper.
  template <bool Atomic>
  bool insert_one(const digest_type& d, bool in_dram) const noexcept {
    location at;
    locate(d, at);
    if (in_dram) prefetch_write(at);
    return insert<Atomic>(at);
  }
  bool contains_one(const digest_type& d, bool in_dram) const noexcept {
    if (in_dram) {
      location at;
      locate(d, at);
      bool present = true;
      const std::uint32_t n = stored();
      for (std::uint32_t i = 0; i < n; ++i) present &= Cell::test(words, at.pos[i]);
      for_rest(at, [&](std::uint64_t p) { present &= Cell::test(words, p); });
      return present;
    }
    auto seq = Probe::probes(d, m);
    for (std::uint32_t i = 0; i < k; ++i) {
      if (!Cell::test(words, seq.next())) return false;
    }
    return true;
  }
};

}  // namespace bloomkit::detail
