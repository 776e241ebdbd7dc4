#pragma once
// Internal: the one software pipeline of every batched insert and lookup, over the cell
// operations of a storage policy (src/storage/cell_ops.hpp for bits and counters,
// src/storage/blocked_kernels.hpp for split blocks, src/storage/window_kernels.hpp for the
// window's groups). An Ops type has
//   using location = ...;                       // where one key's cells are
//   static constexpr bool two_stage;            // lookups test a first part, then the rest
//   void locate(const digest_type&, location&) const;
//   void prefetch_write(const location&) const;
//   template <bool Atomic> bool insert(const location&) const;   // true if a cell was 0 (a
//                                               // window's groups: if the key is new to it)
//   void prefetch_first(const location&) const;
//   bool test_first(const location&) const;
//   void prefetch_rest(const location&) const;  // two_stage only
//   bool test_rest(const location&) const;      // two_stage only
//
// Step i locates key i (hash, positions) and prefetches its lines; step i also handles key
// i - lag, whose lines have had `lag` keys' worth of hashing to arrive, so the misses of many keys
// overlap. Prefetches go to L2 (bit_array.hpp says why).
//
// Lookups of a storage with several lines per key (classic, counting) run in two stages:
//   step i:               locate key i, prefetch its first two lines;
//   key i - lag:          test the first two cells (at the designed load they decide 3/4 of
//                         misses) and, if both are set, prefetch the other k - 2 lines;
//   key i - lag - second: test the other k - 2 cells, whose lines have had `second` keys' time.
// One line per key (blocked, cuckoo, static's three cells): one stage.
//
// The distance (lag, second) is pipeline_distance_for's, from the bytes the batch touches
// (docs/PERFORMANCE.md, "The pipeline's distance", has the sweeps behind it):
//   below 1 MiB (L2):   none, the plain loop: prefetches only cost there (n = 1e5, lookups of
//                       classic filters 17-20 ns per key against 22-26 at lag 16);
//   1 MiB to 64 MiB:    lag 32, second 16 (n = 1e6-1e7: lags 16-64 alike, 8 and 0 slower: classic
//                       misses at 1e7 98 ns at 0, 53 at 8, 48-50 at 16-48);
//   64 MiB and more:    lag 48, second 24 (n = 1e8, DRAM: the ready digests 10.5 ns per
//                       key at lag 16, 7.0 at 32, 4.5-5.2 at 64; here 0 and 8 much slower, 16-96
//                       within the noise of a loaded machine);
//   cheap keys:         twice the lag at one line per key (integer keys and ready digests in
//                       split blocks: 64 in the L3, 96 past it; pipeline_distance_of below).
// The ring of locations grows with the lag (a power of two above both lags; its length is
// runtime, its array the longest's), so a short lag keeps its few slots in L1.
//
// A location depends on the digest and the filter's m and k only, never on its words, so one
// location serves every filter of one config: the slot pipelines below (window filters) locate a
// key once and prefetch its lines in every slot together.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <type_traits>

namespace bloomkit::detail {

// The bytes a batch's keys land in: the filter's array, or all slots' arrays together; and the
// lines each key prefetches in one stage, which share the misses in flight as slots do (a
// window's two-line groups: lag 16 in the L3, where its old 24 and the one-line 32 measured
// 11-41% slower, bench/RESULTS.md).
struct touched_bytes {
  std::size_t bytes;
  std::size_t lines_per_key = 1;
};

// What a pipeline's step costs besides its memory accesses: hashing a string key (XXH3: 4 ns at
// 35 bytes), or a few cycles (integer keys, ready digests). The lag has to cover the same
// latency in either case, so the short steps of cheap keys need more keys ahead.
enum class key_work : bool { hashed, cheap };

// A pipeline's DigestAt says its key_work with a static member `work` (key_stream.hpp); without
// one, keys count as hashed.
template <class DigestAt>
constexpr key_work key_work_of() noexcept {
  if constexpr (requires { DigestAt::work; }) {
    return DigestAt::work;
  } else {
    return key_work::hashed;
  }
}

// How many keys ahead a pipeline prefetches: lag (0: the plain loop) and, for the second stage of
// two-stage lookups, second more. ring_mask + 1 is the ring's length, a power of two > both.
struct pipeline_distance {
  std::size_t lag = 0;
  std::size_t second = 0;
  std::size_t ring_mask = 0;
};

// Below this the filter stays in L2 (2 MiB per core here) beside the keys: the plain loop.
inline constexpr std::size_t pipeline_cache_bytes = std::size_t{1} << 20;
// Keys ahead past it (in L3: n = 1e6-1e7 of every kind measured here), and the second stage's.
inline constexpr std::size_t pipeline_lag = 32;
// From this size on (n = 1e8: DRAM), a longer lag keeps more misses in flight.
inline constexpr std::size_t pipeline_dram_bytes = std::size_t{64} << 20;
inline constexpr std::size_t pipeline_dram_lag = 48;
// Cheap keys at one line per key in one stage (blocked filters' integer keys and ready digests;
// pipeline_distance_of) prefetch this many times as far: their steps take 4-6 ns in the L3, so 32
// keys ahead was only ~150 ns ahead; integer lookups at n = 1e7 took 1.7x the mixer + line read
// limit at lag 32 and 1.3-1.4x at 64 (docs/PERFORMANCE.md, "The pipeline's distance").
inline constexpr std::size_t pipeline_cheap_key_factor = 2;
// The ring holds both stages' keys at the longest lag, and one stage's at the cheap keys'.
inline constexpr std::size_t pipeline_ring = std::bit_ceil(
    std::max(pipeline_dram_lag * 3 / 2, pipeline_dram_lag* pipeline_cheap_key_factor) + 1);
// Slot pipelines prefetch a key's lines in every slot: the lag shrinks with the slots, to this.
inline constexpr std::size_t pipeline_min_slot_lag = 4;

// The one rule. `ways`: the filters a key's lines are prefetched in together (a window's slots),
// which share the misses in flight among them, as a key's several lines do. `work`: the keys'
// (key_work above), which counts only at one line of one filter (pipeline_distance_of passes it
// for the ops that declare one line per key; the others pass key_work::hashed).
constexpr pipeline_distance pipeline_distance_for(touched_bytes touched, std::size_t ways = 1,
                                                  key_work work = key_work::hashed) noexcept {
  if (touched.bytes < pipeline_cache_bytes) return {};
  std::size_t lag = touched.bytes < pipeline_dram_bytes ? pipeline_lag : pipeline_dram_lag;
  ways *= touched.lines_per_key;
  if (ways == 1 && work == key_work::cheap) {  // one stage: no second
    lag *= pipeline_cheap_key_factor;
    return {lag, 0, std::bit_ceil(lag + 1) - 1};
  }
  if (ways > 1) lag /= ways;
  if (lag < pipeline_min_slot_lag) lag = pipeline_min_slot_lag;
  const std::size_t second = lag / 2;
  return {lag, second, std::bit_ceil(lag + second + 1) - 1};
}

// Runs step(i, checked) for i = 0 .. n + span - 1, where step i handles key i and the keys up to
// span behind it. checked is std::true_type where some of those keys do not exist (the first and
// last span steps) and std::false_type in the steady run between, whose loop then has no bounds
// tests (a loop of this shape outside the library was 5-12% faster than the checked one on
// integer keys in the L3; in the library's harness the difference was within the noise).
template <class Step>
[[gnu::always_inline]] inline void run_steps(std::size_t n, std::size_t span, Step step) {
  const std::size_t steady = span < n ? span : n;
  for (std::size_t i = 0; i < steady; ++i) step(i, std::true_type{});
  for (std::size_t i = steady; i < n; ++i) step(i, std::false_type{});
  for (std::size_t i = n; i < n + span; ++i) step(i, std::true_type{});
}

// The distance of a pipeline over Ops and DigestAt. Cheap keys count where Ops declares
// `static constexpr bool one_line_per_key = true` (one line per key, one stage: the blocked
// filter's split blocks); elsewhere a step has several lines to wait for already.
template <class Ops, class DigestAt>
constexpr pipeline_distance pipeline_distance_of(touched_bytes touched) noexcept {
  constexpr bool one_line = requires {
    requires Ops::one_line_per_key;
  };
  return pipeline_distance_for(touched, 1, one_line ? key_work_of<DigestAt>() : key_work::hashed);
}

// lag 0 is the plain loop (a filter in cache has no latency to hide). Keys are inserted in order,
// so with `added` (nullptr: not wanted) added[i] says whether key i changed a cell, and a key
// repeated later in the batch sees its earlier insert (not new), as a loop of inserts would.
template <bool Atomic, class Ops, class DigestAt>
std::size_t insert_pipeline(const Ops& ops_given, std::size_t n, DigestAt digest_at,
                            touched_bytes touched, bool* added = nullptr) {
  const Ops ops = ops_given;  // in registers: the ring's stores could alias the caller's copy
  const pipeline_distance d = pipeline_distance_of<Ops, DigestAt>(touched);
  const std::size_t lag = d.lag;
  typename Ops::location slots[pipeline_ring];
  std::size_t fresh = 0;
  run_steps(n, lag, [&](std::size_t i, auto checked) {
    if (!checked || i < n) {
      auto& at = slots[i & d.ring_mask];
      ops.locate(digest_at(i), at);
      if (lag != 0) ops.prefetch_write(at);
    }
    if (!checked || i >= lag) {
      const bool changed = ops.template insert<Atomic>(slots[(i - lag) & d.ring_mask]);
      if (added != nullptr) added[i - lag] = changed;
      fresh += changed;
    }
  });
  return fresh;
}

template <class Ops>
bool holds(const Ops& ops, const typename Ops::location& at) noexcept {
  if constexpr (Ops::two_stage) {
    return ops.test_first(at) && ops.test_rest(at);
  } else {
    return ops.test_first(at);
  }
}

template <class Ops, class DigestAt>
std::size_t lookup_pipeline(const Ops& ops_given, std::size_t n, DigestAt digest_at,
                            touched_bytes touched, bool* results) {
  const Ops ops = ops_given;  // as in insert_pipeline
  const pipeline_distance d = pipeline_distance_of<Ops, DigestAt>(touched);
  if (d.lag == 0) {  // in cache: the plain loop, with the early exit of a miss
    std::size_t present = 0;
    typename Ops::location at;
    for (std::size_t i = 0; i < n; ++i) {
      ops.locate(digest_at(i), at);
      const bool hit = holds(ops, at);
      results[i] = hit;
      present += hit;
    }
    return present;
  }
  const std::size_t first_lag = d.lag;
  const std::size_t second_lag = Ops::two_stage ? d.second : 0;
  struct slot {
    typename Ops::location at;
    bool alive;
  };
  slot slots[pipeline_ring];
  std::size_t present = 0;
  run_steps(n, first_lag + second_lag, [&](std::size_t i, auto checked) {
    if (!checked || i < n) {
      slot& s = slots[i & d.ring_mask];
      ops.locate(digest_at(i), s.at);
      ops.prefetch_first(s.at);
    }
    if (!checked || (i >= first_lag && i - first_lag < n)) {
      const std::size_t j = i - first_lag;
      slot& s = slots[j & d.ring_mask];
      const bool alive = ops.test_first(s.at);
      if constexpr (Ops::two_stage) {
        s.alive = alive;
        if (alive) ops.prefetch_rest(s.at);
      } else {
        results[j] = alive;
        present += alive;
      }
    }
    if constexpr (Ops::two_stage) {
      if (!checked || i >= first_lag + second_lag) {
        const std::size_t j = i - first_lag - second_lag;
        const slot& s = slots[j & d.ring_mask];
        // No early exit inside test_rest: for hits every cell is tested anyway, and the
        // branch-free loop is cheaper than a mispredicted exit for the few misses that get here.
        const bool alive = s.alive && ops.test_rest(s.at);
        results[j] = alive;
        present += alive;
      }
    }
  });
  return present;
}

// The Ops of filters of one config (the slots of a window), slot 0 first.
template <class Ops>
struct slot_ops {
  const Ops* ops;
  std::size_t count;
};

template <class Ops>
[[gnu::always_inline]] inline void prefetch_every_line(const Ops& ops,
                                                       const typename Ops::location& at) noexcept {
  ops.prefetch_first(at);
  if constexpr (Ops::two_stage) ops.prefetch_rest(at);
}

// Whether slots s = first..count-1 hold the key at `at`: the first that does answers.
template <class Ops>
bool some_slot_holds(slot_ops<Ops> slots, std::size_t first,
                     const typename Ops::location& at) noexcept {
  for (std::size_t s = first; s < slots.count; ++s) {
    if (holds(slots.ops[s], at)) return true;
  }
  return false;
}

// results[i]: whether some slot holds key i. Returns how many keys some slot holds.
// Slots touch count times the lines of one filter per key: a shorter lag (`ways` in
// pipeline_distance_for) keeps the prefetches in flight within what the core tracks. touched: the
// bytes of all slots.
template <class Ops, class DigestAt>
std::size_t lookup_slots_pipeline(slot_ops<Ops> slots, std::size_t n, DigestAt digest_at,
                                  touched_bytes touched, bool* results) {
  const pipeline_distance d = pipeline_distance_for(touched, slots.count);
  const std::size_t lag = d.lag;
  typename Ops::location ring[pipeline_ring];
  std::size_t present = 0;
  run_steps(n, lag, [&](std::size_t i, auto checked) {
    if (!checked || i < n) {
      auto& at = ring[i & d.ring_mask];
      slots.ops[0].locate(digest_at(i), at);
      if (lag != 0) {
        for (std::size_t s = 0; s < slots.count; ++s) prefetch_every_line(slots.ops[s], at);
      }
    }
    if (!checked || i >= lag) {
      const bool hit = some_slot_holds(slots, 0, ring[(i - lag) & d.ring_mask]);
      results[i - lag] = hit;
      present += hit;
    }
  });
  return present;
}

struct slot_insert_counts {
  std::size_t changed = 0;  // keys that changed a cell of slot 0
  std::size_t fresh = 0;    // of those, the keys no other slot holds
};

// Inserts the keys in order into slot 0 (single writer) and counts them: a key is new when a
// cell of it was 0 in slot 0 and no other slot holds it (the window's insert: a repeat within
// the batch is not new). added (nullptr: not wanted): per key, whether it was new.
template <class Ops, class DigestAt>
slot_insert_counts insert_slots_pipeline(slot_ops<Ops> slots, std::size_t n, DigestAt digest_at,
                                         touched_bytes touched, bool* added) {
  const pipeline_distance d = pipeline_distance_for(touched, slots.count);
  const std::size_t lag = d.lag;
  typename Ops::location ring[pipeline_ring];
  slot_insert_counts counts;
  run_steps(n, lag, [&](std::size_t i, auto checked) {
    if (!checked || i < n) {
      auto& at = ring[i & d.ring_mask];
      slots.ops[0].locate(digest_at(i), at);
      if (lag != 0) {
        slots.ops[0].prefetch_write(at);
        for (std::size_t s = 1; s < slots.count; ++s) prefetch_every_line(slots.ops[s], at);
      }
    }
    if (!checked || i >= lag) {
      const auto& at = ring[(i - lag) & d.ring_mask];
      // A key slot 0 held already is not new: the older slots need not be asked.
      bool fresh = false;
      if (slots.ops[0].template insert<false>(at)) {
        ++counts.changed;
        fresh = !some_slot_holds(slots, 1, at);
        counts.fresh += fresh;
      }
      if (added != nullptr) added[i - lag] = fresh;
    }
  });
  return counts;
}

}  // namespace bloomkit::detail
