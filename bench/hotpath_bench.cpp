// bloomkit_bench_hotpath: alternative lookup and insert loops over the very same filter bits, to
// measure changes to the hot path (detail/bloom_filter_impl.hpp) before proposing them. The
// results and the proposal are in bench/RESULTS.md.
//
// Every lookup variant answers exactly what bloom_filter::contains / contains_many answer, and
// every insert variant sets exactly the bits bloom_filter::insert sets (both checked at start-up
// on every query key). They use the public surface only: the probe policy (hash + probe
// sequence) and the filter's bit_array; the insert variants write the words of a scratch filter
// through a const_cast, an experiment's shortcut.
//
// Variants (`library` is the library's own loop):
//   contains/{library,branchless,prefetch_all}       single key
//   contains_many/prefetch_all_b32, pipelined_*, survivors_*, fused_*, stored_*, branchy_*
//                                                    batched; see each template's comment.
//                                                    `_l2` = prefetch into L2 (prefetcht1).
//   insert/{library,prefetch_all}, insert_many/{library,fused_16,fused_16_l2}
//
//   BLOOMKIT_BENCH_SIZES=1e7 build/<dir>/bench/bloomkit_bench_hotpath
//       --benchmark_repetitions=7 --benchmark_enable_random_interleaving=true
//       --benchmark_report_aggregates_only=true --benchmark_min_time=0.2
//
// Run one n per process (data of one size is kept at a time).

#include <benchmark/benchmark.h>

#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench_keys.hpp"
#include "bloomkit/bloom_filter.hpp"

namespace {

using bloomkit::bloom_filter;
using bloomkit::probe_sequence;
using bloomkit::bench::key_set;
using policy = bloomkit::xxh3_probe_policy;

constexpr double target_p = 0.01;
constexpr std::size_t batch = 1024;
constexpr std::size_t max_query_keys = 1 << 22;

inline bool test_bit(const std::uint64_t* words, std::uint64_t i) noexcept {
  return (words[i >> 6] >> (i & 63)) & 1;
}
inline void prefetch_bit(const std::uint64_t* words, std::uint64_t i) noexcept {
  __builtin_prefetch(words + (i >> 6), 0, 3);
}
// Locality 2 is prefetcht1 on x86: into L2, not L1. On this machine that lets about twice as
// many line fills be in flight (mem/random_read_prefetch_l2 in bloomkit_bench).
template <int Locality>
inline void prefetch_bit_hint(const std::uint64_t* words, std::uint64_t i) noexcept {
  __builtin_prefetch(words + (i >> 6), 0, Locality);
}

// ---------------------------------------------------------------------------------------------
// Single-key variants.

// All k indices first, then one branch-free AND: no mispredicted early exit, but every key
// touches k lines.
bool contains_branchless(const bloom_filter& f, std::string_view key) noexcept {
  const std::uint64_t* words = f.storage().data();
  auto seq = policy::probes(policy::hash(key), f.bits());
  std::uint64_t all = 1;
  for (std::uint32_t i = 0; i < f.hashes(); ++i) {
    const std::uint64_t b = seq.next();
    all &= words[b >> 6] >> (b & 63);
  }
  return all & 1;
}

// Prefetch all k lines, then test with an early exit.
bool contains_prefetch_all(const bloom_filter& f, std::string_view key) noexcept {
  const std::uint64_t* words = f.storage().data();
  const std::uint32_t k = f.hashes();
  auto seq = policy::probes(policy::hash(key), f.bits());
  std::uint64_t idx[64];
  for (std::uint32_t i = 0; i < k; ++i) {
    idx[i] = seq.next();
    prefetch_bit(words, idx[i]);
  }
  for (std::uint32_t i = 0; i < k; ++i) {
    if (!test_bit(words, idx[i])) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Batched variants. All write results[i] and return the number of positives.

// Block-wise, every key's k lines prefetched up front, then tested (hits: no second wait).
template <std::size_t Block>
std::size_t many_prefetch_all(const bloom_filter& f, std::span<const std::string_view> keys,
                              std::span<bool> results) {
  const std::uint64_t* words = f.storage().data();
  const std::uint64_t m = f.bits();
  const std::uint32_t k = f.hashes();
  std::size_t present = 0;
  probe_sequence seqs[Block];
  for (std::size_t base = 0; base < keys.size(); base += Block) {
    const std::size_t n = std::min(Block, keys.size() - base);
    for (std::size_t j = 0; j < n; ++j) {
      seqs[j] = policy::probes(policy::hash(keys[base + j]), m);
      auto ahead = seqs[j];
      for (std::uint32_t i = 0; i < k; ++i) prefetch_bit(words, ahead.next());
    }
    for (std::size_t j = 0; j < n; ++j) {
      bool alive = true;
      for (std::uint32_t i = 0; i < k && alive; ++i) alive = test_bit(words, seqs[j].next());
      results[base + j] = alive;
      present += alive;
    }
  }
  return present;
}

// A software pipeline over blocks, in three stages, so every prefetch has a whole block of other
// work to hide behind:
//   stage 1 (block b):     hash, prefetch the first `early` lines of each key;
//   stage 2 (block b - 1): test those lines; for keys still alive, prefetch the other k - early;
//   stage 3 (block b - 2): test the other lines of the keys still alive.
// Misses mostly stop in stage 2 (two lines), hits touch k lines, as in the library today; the
// difference is that no stage waits for lines it requested itself a moment ago.
template <std::size_t Block, std::uint32_t Early = 2>
std::size_t many_pipelined(const bloom_filter& f, std::span<const std::string_view> keys,
                           std::span<bool> results) {
  const std::uint64_t* words = f.storage().data();
  const std::uint64_t m = f.bits();
  const std::uint32_t k = f.hashes();
  const std::uint32_t early = std::min(k, Early);
  struct slot {
    probe_sequence seq;  // positioned after the first `early` probes
    std::uint64_t first[Early];
  };
  slot ring[3][Block];
  const std::size_t total = keys.size();
  const std::size_t blocks = (total + Block - 1) / Block;
  std::size_t present = 0;
  auto block_len = [&](std::size_t b) { return std::min(Block, total - b * Block); };
  for (std::size_t step = 0; step < blocks + 2; ++step) {
    if (step < blocks) {  // stage 1
      slot* s = ring[step % 3];
      const std::size_t base = step * Block;
      for (std::size_t j = 0, n = block_len(step); j < n; ++j) {
        s[j].seq = policy::probes(policy::hash(keys[base + j]), m);
        for (std::uint32_t i = 0; i < early; ++i) {
          s[j].first[i] = s[j].seq.next();
          prefetch_bit(words, s[j].first[i]);
        }
      }
    }
    if (step >= 1 && step - 1 < blocks) {  // stage 2
      const std::size_t b = step - 1;
      slot* s = ring[b % 3];
      const std::size_t base = b * Block;
      for (std::size_t j = 0, n = block_len(b); j < n; ++j) {
        bool alive = true;
        for (std::uint32_t i = 0; i < early; ++i) alive &= test_bit(words, s[j].first[i]);
        results[base + j] = alive;
        if (alive) {
          auto ahead = s[j].seq;
          for (std::uint32_t i = early; i < k; ++i) prefetch_bit(words, ahead.next());
        }
      }
    }
    if (step >= 2) {  // stage 3
      const std::size_t b = step - 2;
      slot* s = ring[b % 3];
      const std::size_t base = b * Block;
      for (std::size_t j = 0, n = block_len(b); j < n; ++j) {
        if (!results[base + j]) continue;
        bool alive = true;
        for (std::uint32_t i = early; i < k && alive; ++i) alive = test_bit(words, s[j].seq.next());
        results[base + j] = alive;
        present += alive;
      }
    }
  }
  return present;
}

// Two stages: hash and prefetch all k lines of block b while testing block b - 1.
template <std::size_t Block>
std::size_t many_pipelined_all(const bloom_filter& f, std::span<const std::string_view> keys,
                               std::span<bool> results) {
  const std::uint64_t* words = f.storage().data();
  const std::uint64_t m = f.bits();
  const std::uint32_t k = f.hashes();
  probe_sequence ring[2][Block];
  const std::size_t total = keys.size();
  const std::size_t blocks = (total + Block - 1) / Block;
  std::size_t present = 0;
  for (std::size_t step = 0; step < blocks + 1; ++step) {
    if (step < blocks) {
      probe_sequence* s = ring[step % 2];
      const std::size_t base = step * Block;
      for (std::size_t j = 0, n = std::min(Block, total - base); j < n; ++j) {
        s[j] = policy::probes(policy::hash(keys[base + j]), m);
        auto ahead = s[j];
        for (std::uint32_t i = 0; i < k; ++i) prefetch_bit(words, ahead.next());
      }
    }
    if (step >= 1) {
      const std::size_t b = step - 1;
      probe_sequence* s = ring[b % 2];
      const std::size_t base = b * Block;
      for (std::size_t j = 0, n = std::min(Block, total - base); j < n; ++j) {
        bool alive = true;
        for (std::uint32_t i = 0; i < k && alive; ++i) alive = test_bit(words, s[j].next());
        results[base + j] = alive;
        present += alive;
      }
    }
  }
  return present;
}

// Like the library's loop (block-wise: hash + prefetch the first two lines of every key; test
// them; prefetch the rest for survivors; test the rest), but without data-dependent branches
// outside the survivors' final test: the first two bits are combined with '&', survivors are
// appended to a list branch-free, and the later stages loop over that list. Lag1 / Lag2 are the
// software-pipeline distances in blocks: the first lines of block b are tested Lag1 steps after
// they were requested, the survivors' other lines Lag2 steps after theirs (0 = at once).
template <std::size_t Block, std::size_t Lag1, std::size_t Lag2>
std::size_t many_survivors(const bloom_filter& f, std::span<const std::string_view> keys,
                           std::span<bool> results) {
  constexpr std::size_t slots = Lag1 + Lag2 + 1;
  const std::uint64_t* words = f.storage().data();
  const std::uint64_t m = f.bits();
  const std::uint32_t k = f.hashes();
  const std::uint32_t early = std::min<std::uint32_t>(k, 2);
  struct block_state {
    probe_sequence seq[Block];
    std::uint64_t first[Block][2];
    std::uint32_t survivors[Block];
    std::size_t survivor_count;
  };
  block_state ring[slots];
  const std::size_t total = keys.size();
  const std::size_t blocks = (total + Block - 1) / Block;
  std::size_t present = 0;
  for (std::size_t step = 0; step < blocks + Lag1 + Lag2; ++step) {
    if (step < blocks) {  // stage 1: hash, prefetch the first lines
      block_state& s = ring[step % slots];
      const std::size_t base = step * Block;
      for (std::size_t j = 0, n = std::min(Block, total - base); j < n; ++j) {
        s.seq[j] = policy::probes(policy::hash(keys[base + j]), m);
        for (std::uint32_t i = 0; i < early; ++i) {
          s.first[j][i] = s.seq[j].next();
          prefetch_bit(words, s.first[j][i]);
        }
      }
    }
    if (step >= Lag1 && step - Lag1 < blocks) {  // stage 2: test them, prefetch for survivors
      const std::size_t b = step - Lag1;
      block_state& s = ring[b % slots];
      const std::size_t base = b * Block;
      const std::size_t n = std::min(Block, total - base);
      std::size_t count = 0;
      for (std::size_t j = 0; j < n; ++j) {
        std::uint64_t alive = 1;
        for (std::uint32_t i = 0; i < early; ++i) {
          alive &= words[s.first[j][i] >> 6] >> (s.first[j][i] & 63);
        }
        alive &= 1;
        results[base + j] = alive != 0;
        s.survivors[count] = static_cast<std::uint32_t>(j);
        count += alive;
      }
      s.survivor_count = count;
      for (std::size_t c = 0; c < count; ++c) {
        auto ahead = s.seq[s.survivors[c]];
        for (std::uint32_t i = early; i < k; ++i) prefetch_bit(words, ahead.next());
      }
    }
    if (step >= Lag1 + Lag2) {  // stage 3: test the survivors' other lines
      const std::size_t b = step - Lag1 - Lag2;
      block_state& s = ring[b % slots];
      const std::size_t base = b * Block;
      for (std::size_t c = 0; c < s.survivor_count; ++c) {
        const std::uint32_t j = s.survivors[c];
        std::uint64_t alive = 1;
        for (std::uint32_t i = early; i < k; ++i) {
          const std::uint64_t bit = s.seq[j].next();
          alive &= words[bit >> 6] >> (bit & 63);
        }
        results[base + j] = (alive & 1) != 0;
        present += alive & 1;
      }
    }
  }
  return present;
}

// A software pipeline at key granularity, branch-free. Iteration i
//   - hashes key i and prefetches its first two lines,
//   - tests the first two bits of key i - D1 and prefetches its other k - 2 lines, or, when the
//     key is already decided (a 0 among the first two bits), its first line again (in L1, free),
//   - tests the other bits of key i - D1 - D2 at the addresses chosen the same way.
// Memory requests are spread evenly between the hashing work instead of issued in bursts, and
// no branch depends on a bit value, so misses cost no mispredictions.
template <std::size_t D1, std::size_t D2, int Locality = 3>
std::size_t many_fused(const bloom_filter& f, std::span<const std::string_view> keys,
                       std::span<bool> results) {
  constexpr std::size_t ring = std::bit_ceil(D1 + D2 + 1);
  const std::uint64_t* words = f.storage().data();
  const std::uint64_t m = f.bits();
  const std::uint32_t k = f.hashes();
  struct slot {
    probe_sequence rest;  // positioned after the first two probes
    std::uint64_t first[2];
    std::uint64_t alive;
  };
  slot slots[ring];
  const std::size_t total = keys.size();
  std::size_t present = 0;
  if (k < 3) {  // the pipeline assumes two early probes and at least one more
    for (std::size_t i = 0; i < total; ++i) present += results[i] = f.contains(keys[i]);
    return present;
  }
  for (std::size_t i = 0; i < total + D1 + D2; ++i) {
    if (i < total) {
      slot& s = slots[i % ring];
      s.rest = policy::probes(policy::hash(keys[i]), m);
      s.first[0] = s.rest.next();
      s.first[1] = s.rest.next();
      prefetch_bit_hint<Locality>(words, s.first[0]);
      prefetch_bit_hint<Locality>(words, s.first[1]);
    }
    if (i >= D1 && i - D1 < total) {
      slot& s = slots[(i - D1) % ring];
      s.alive = (words[s.first[0] >> 6] >> (s.first[0] & 63)) &
                (words[s.first[1] >> 6] >> (s.first[1] & 63)) & 1;
      auto ahead = s.rest;
      const std::uint64_t mask = 0 - s.alive;  // all ones when alive
      for (std::uint32_t p = 2; p < k; ++p) {
        const std::uint64_t bit = (ahead.next() & mask) | (s.first[0] & ~mask);
        prefetch_bit_hint<Locality>(words, bit);
      }
    }
    if (i >= D1 + D2) {
      const std::size_t key = i - D1 - D2;
      slot& s = slots[key % ring];
      const std::uint64_t mask = 0 - s.alive;
      std::uint64_t alive = s.alive;
      for (std::uint32_t p = 2; p < k; ++p) {
        const std::uint64_t bit = (s.rest.next() & mask) | (s.first[0] & ~mask);
        alive &= words[bit >> 6] >> (bit & 63);
      }
      results[key] = (alive & 1) != 0;
      present += alive & 1;
    }
  }
  return present;
}

// many_fused with every probe position computed once, in stage 1 (for k <= MaxK; larger k
// falls back to the library loop).
template <std::size_t D1, std::size_t D2, int Locality, std::uint32_t MaxK = 16>
std::size_t many_fused_stored(const bloom_filter& f, std::span<const std::string_view> keys,
                              std::span<bool> results) {
  constexpr std::size_t ring = std::bit_ceil(D1 + D2 + 1);
  const std::uint64_t* words = f.storage().data();
  const std::uint64_t m = f.bits();
  const std::uint32_t k = f.hashes();
  if (k < 3 || k > MaxK) return f.contains_many(keys, results);
  struct slot {
    std::uint64_t bit[MaxK];
    std::uint64_t alive;
  };
  slot slots[ring];
  const std::size_t total = keys.size();
  std::size_t present = 0;
  for (std::size_t i = 0; i < total + D1 + D2; ++i) {
    if (i < total) {
      slot& s = slots[i % ring];
      auto seq = policy::probes(policy::hash(keys[i]), m);
      for (std::uint32_t p = 0; p < k; ++p) s.bit[p] = seq.next();
      prefetch_bit_hint<Locality>(words, s.bit[0]);
      prefetch_bit_hint<Locality>(words, s.bit[1]);
    }
    if (i >= D1 && i - D1 < total) {
      slot& s = slots[(i - D1) % ring];
      s.alive =
          (words[s.bit[0] >> 6] >> (s.bit[0] & 63)) & (words[s.bit[1] >> 6] >> (s.bit[1] & 63)) & 1;
      const std::uint64_t mask = 0 - s.alive;
      for (std::uint32_t p = 2; p < k; ++p) {
        prefetch_bit_hint<Locality>(words, (s.bit[p] & mask) | (s.bit[0] & ~mask));
      }
    }
    if (i >= D1 + D2) {
      const std::size_t key = i - D1 - D2;
      const slot& s = slots[key % ring];
      const std::uint64_t mask = 0 - s.alive;
      std::uint64_t alive = s.alive;
      for (std::uint32_t p = 2; p < k; ++p) {
        const std::uint64_t bit = (s.bit[p] & mask) | (s.bit[0] & ~mask);
        alive &= words[bit >> 6] >> (bit & 63);
      }
      results[key] = (alive & 1) != 0;
      present += alive & 1;
    }
  }
  return present;
}

// The same with a branch instead of the selects: dead keys skip stages 2 and 3's memory work.
template <std::size_t D1, std::size_t D2, int Locality, std::uint32_t MaxK = 16>
std::size_t many_fused_branchy(const bloom_filter& f, std::span<const std::string_view> keys,
                               std::span<bool> results) {
  constexpr std::size_t ring = std::bit_ceil(D1 + D2 + 1);
  const std::uint64_t* words = f.storage().data();
  const std::uint64_t m = f.bits();
  const std::uint32_t k = f.hashes();
  if (k < 3 || k > MaxK) return f.contains_many(keys, results);
  struct slot {
    std::uint64_t bit[MaxK];
    bool alive;
  };
  slot slots[ring];
  const std::size_t total = keys.size();
  std::size_t present = 0;
  for (std::size_t i = 0; i < total + D1 + D2; ++i) {
    if (i < total) {
      slot& s = slots[i % ring];
      auto seq = policy::probes(policy::hash(keys[i]), m);
      for (std::uint32_t p = 0; p < k; ++p) s.bit[p] = seq.next();
      prefetch_bit_hint<Locality>(words, s.bit[0]);
      prefetch_bit_hint<Locality>(words, s.bit[1]);
    }
    if (i >= D1 && i - D1 < total) {
      slot& s = slots[(i - D1) % ring];
      s.alive = test_bit(words, s.bit[0]) & test_bit(words, s.bit[1]);
      if (s.alive) {
        for (std::uint32_t p = 2; p < k; ++p) prefetch_bit_hint<Locality>(words, s.bit[p]);
      }
    }
    if (i >= D1 + D2) {
      const std::size_t key = i - D1 - D2;
      const slot& s = slots[key % ring];
      bool alive = s.alive;
      if (alive) {
        std::uint64_t all = 1;
        for (std::uint32_t p = 2; p < k; ++p) all &= words[s.bit[p] >> 6] >> (s.bit[p] & 63);
        alive = (all & 1) != 0;
      }
      results[key] = alive;
      present += alive;
    }
  }
  return present;
}

// many_fused_branchy without the cap on k: the slot keeps the probe sequence (4 words) and the
// first two positions, and the other k - 2 positions are computed when needed (twice for
// survivors: once to prefetch, once to test).
template <std::size_t D1, std::size_t D2, int Locality>
std::size_t many_fused_branchy_seq(const bloom_filter& f, std::span<const std::string_view> keys,
                                   std::span<bool> results) {
  constexpr std::size_t ring = std::bit_ceil(D1 + D2 + 1);
  const std::uint64_t* words = f.storage().data();
  const std::uint64_t m = f.bits();
  const std::uint32_t k = f.hashes();
  const std::uint32_t early = std::min<std::uint32_t>(k, 2);
  struct slot {
    probe_sequence rest;  // positioned after the first `early` probes
    std::uint64_t first[2];
    bool alive;
  };
  slot slots[ring];
  const std::size_t total = keys.size();
  std::size_t present = 0;
  for (std::size_t i = 0; i < total + D1 + D2; ++i) {
    if (i < total) {
      slot& s = slots[i % ring];
      s.rest = policy::probes(policy::hash(keys[i]), m);
      for (std::uint32_t p = 0; p < early; ++p) {
        s.first[p] = s.rest.next();
        prefetch_bit_hint<Locality>(words, s.first[p]);
      }
    }
    if (i >= D1 && i - D1 < total) {
      slot& s = slots[(i - D1) % ring];
      s.alive = test_bit(words, s.first[0]) & (early < 2 || test_bit(words, s.first[1]));
      if (s.alive) {
        auto ahead = s.rest;
        for (std::uint32_t p = early; p < k; ++p) prefetch_bit_hint<Locality>(words, ahead.next());
      }
    }
    if (i >= D1 + D2) {
      const std::size_t key = i - D1 - D2;
      slot& s = slots[key % ring];
      bool alive = s.alive;
      if (alive) {
        std::uint64_t all = 1;
        for (std::uint32_t p = early; p < k; ++p) {
          const std::uint64_t bit = s.rest.next();
          all &= words[bit >> 6] >> (bit & 63);
        }
        alive = (all & 1) != 0;
      }
      results[key] = alive;
      present += alive;
    }
  }
  return present;
}

// ---------------------------------------------------------------------------------------------
// Insert variants. They write the scratch filter's words directly (an experiment's shortcut:
// the inserted count is not maintained).

std::uint64_t* mutable_words(bloom_filter& f) {
  return const_cast<bloomkit::bit_array&>(f.storage()).mutable_words().data();
}

inline bool set_bit(std::uint64_t* words, std::uint64_t i) noexcept {
  std::uint64_t& w = words[i >> 6];
  const std::uint64_t mask = std::uint64_t{1} << (i & 63);
  const bool was_clear = (w & mask) == 0;
  w |= mask;
  return was_clear;
}

bool insert_library(bloom_filter& f, std::string_view key) {
  return f.insert(key);
}

// All k positions first, each line prefetched for writing, then the bits set.
bool insert_prefetch_all(bloom_filter& f, std::string_view key) {
  std::uint64_t* words = mutable_words(f);
  const std::uint32_t k = f.hashes();
  auto seq = policy::probes(policy::hash(key), f.bits());
  std::uint64_t idx[64];
  for (std::uint32_t i = 0; i < k; ++i) {
    idx[i] = seq.next();
    __builtin_prefetch(words + (idx[i] >> 6), 1, 3);
  }
  bool changed = false;
  for (std::uint32_t i = 0; i < k; ++i) changed |= set_bit(words, idx[i]);
  return changed;
}

std::size_t insert_many_library(bloom_filter& f, std::span<const std::string_view> keys) {
  return f.insert_many(keys);
}

// Key-granular software pipeline: iteration i hashes key i and prefetches its k lines, and sets
// the bits of key i - D.
template <std::size_t D, int Locality>
std::size_t insert_many_fused(bloom_filter& f, std::span<const std::string_view> keys) {
  constexpr std::size_t ring = std::bit_ceil(D + 1);
  std::uint64_t* words = mutable_words(f);
  const std::uint64_t m = f.bits();
  const std::uint32_t k = f.hashes();
  probe_sequence seqs[ring];
  std::size_t fresh = 0;
  const std::size_t total = keys.size();
  for (std::size_t i = 0; i < total + D; ++i) {
    if (i < total) {
      seqs[i % ring] = policy::probes(policy::hash(keys[i]), m);
      auto ahead = seqs[i % ring];
      for (std::uint32_t p = 0; p < k; ++p) {
        __builtin_prefetch(words + (ahead.next() >> 6), 1, Locality);
      }
    }
    if (i >= D) {
      auto& seq = seqs[(i - D) % ring];
      bool changed = false;
      for (std::uint32_t p = 0; p < k; ++p) changed |= set_bit(words, seq.next());
      fresh += changed;
    }
  }
  return fresh;
}

// ---------------------------------------------------------------------------------------------
// Data.

struct data {
  std::size_t n;
  key_set hits, misses;
  bloom_filter filter;
  std::unique_ptr<bloom_filter> scratch = nullptr;  // target of the insert variants
  std::unique_ptr<bloom_filter> empty = nullptr;
  std::size_t insert_pos = 0;

  // The scratch filter, emptied and with its pages faulted in (see bloom_bench.cpp).
  bloom_filter& reset_scratch() {
    if (!scratch) {
      scratch = std::make_unique<bloom_filter>(bloom_filter::for_capacity(n, target_p));
      empty = std::make_unique<bloom_filter>(bloom_filter::for_capacity(n, target_p));
    }
    scratch->clear();
    scratch->intersect(*empty);
    return *scratch;
  }
};

data& data_for(std::size_t n) {
  static std::unique_ptr<data> d;
  if (!d || d->n != n) {
    d.reset();
    const std::size_t q = std::min(n, max_query_keys);
    auto inserts = bloomkit::bench::make_insert_keys(n);
    auto f = bloom_filter::for_capacity(n, target_p);
    const auto keys = inserts.keys();
    for (std::size_t i = 0; i < keys.size(); i += batch) {
      f.insert_many(keys.subspan(i, std::min(batch, keys.size() - i)));
    }
    d = std::make_unique<data>(data{n, bloomkit::bench::make_hit_queries(n, q, 0x68697473 + n),
                                    bloomkit::bench::make_miss_queries(q), std::move(f)});
  }
  return *d;
}

std::size_t advance(std::size_t pos, std::size_t size) {
  pos += batch;
  return pos + batch > size ? 0 : pos;
}

void finish(benchmark::State& state, std::size_t positives) {
  const auto items = static_cast<std::int64_t>(state.iterations()) * std::int64_t{batch};
  state.SetItemsProcessed(items);
  state.counters["per_key"] =
      benchmark::Counter(static_cast<double>(batch), benchmark::Counter::kIsIterationInvariantRate |
                                                         benchmark::Counter::kInvert);
  if (items > 0) {
    state.counters["positive"] = static_cast<double>(positives) / static_cast<double>(items);
  }
}

using single_fn = bool (*)(const bloom_filter&, std::string_view);
using many_fn = std::size_t (*)(const bloom_filter&, std::span<const std::string_view>,
                                std::span<bool>);

bool library_contains(const bloom_filter& f, std::string_view key) {
  return f.contains(key);
}
std::size_t library_contains_many(const bloom_filter& f, std::span<const std::string_view> keys,
                                  std::span<bool> results) {
  return f.contains_many(keys, results);
}
std::size_t hash_only(const bloom_filter& f, std::span<const std::string_view> keys,
                      std::span<bool> results) {
  std::size_t odd = 0;
  for (std::size_t j = 0; j < keys.size(); ++j) {
    const auto d = policy::hash(keys[j]);
    results[j] = (d.low ^ d.high ^ f.bits()) & 1;
    odd += results[j];
  }
  return odd;
}

void run_single(benchmark::State& state, std::size_t n, bool hit, single_fn fn) {
  auto& d = data_for(n);
  const auto keys = (hit ? d.hits : d.misses).keys();
  std::size_t pos = 0, positives = 0;
  for (auto _ : state) {
    for (std::size_t j = 0; j < batch; ++j) positives += fn(d.filter, keys[pos + j]);
    pos = advance(pos, keys.size());
  }
  finish(state, positives);
}

void run_many(benchmark::State& state, std::size_t n, bool hit, many_fn fn) {
  auto& d = data_for(n);
  const auto keys = (hit ? d.hits : d.misses).keys();
  std::array<bool, batch> results{};
  std::size_t pos = 0, positives = 0;
  for (auto _ : state) {
    positives += fn(d.filter, keys.subspan(pos, batch), results);
    benchmark::ClobberMemory();
    pos = advance(pos, keys.size());
  }
  finish(state, positives);
}

using insert_fn = bool (*)(bloom_filter&, std::string_view);
using insert_many_fn = std::size_t (*)(bloom_filter&, std::span<const std::string_view>);

// Inserts the miss keys (never in the query filter) into the scratch filter; when all have
// been inserted it is emptied, untimed.
template <class Body>
void run_insert(benchmark::State& state, std::size_t n, Body body) {
  auto& d = data_for(n);
  const auto keys = d.misses.keys();
  bloom_filter* f = d.scratch ? d.scratch.get() : &d.reset_scratch();
  std::size_t fresh = 0;
  for (auto _ : state) {
    if (d.insert_pos + batch > keys.size()) {
      state.PauseTiming();
      f = &d.reset_scratch();
      d.insert_pos = 0;
      state.ResumeTiming();
    }
    fresh += body(*f, keys.subspan(d.insert_pos, batch));
    d.insert_pos += batch;
  }
  benchmark::DoNotOptimize(fresh);
  finish(state, 0);
  state.counters.erase("positive");
}

// Every variant must agree with the library on every query key.
void verify(std::size_t n, const std::vector<std::pair<std::string, single_fn>>& singles,
            const std::vector<std::pair<std::string, many_fn>>& manies,
            const std::vector<std::pair<std::string, insert_fn>>& inserts,
            const std::vector<std::pair<std::string, insert_many_fn>>& insert_manies) {
  auto& d = data_for(n);
  {  // inserts: the same bits as the library's insert
    const auto keys = d.misses.keys().first(std::min<std::size_t>(d.misses.size(), 100 * batch));
    auto expected = bloom_filter::for_capacity(n, target_p);
    for (const auto key : keys) expected.insert(key);
    for (const auto& [name, fn] : inserts) {
      auto& f = d.reset_scratch();
      for (const auto key : keys) fn(f, key);
      if (!(f == expected)) throw std::runtime_error(name + " sets other bits");
    }
    for (const auto& [name, fn] : insert_manies) {
      auto& f = d.reset_scratch();
      for (std::size_t i = 0; i < keys.size(); i += batch) {
        fn(f, keys.subspan(i, std::min(batch, keys.size() - i)));
      }
      if (!(f == expected)) throw std::runtime_error(name + " sets other bits");
    }
    d.reset_scratch();
  }
  for (const key_set* set : {&d.hits, &d.misses}) {
    const auto keys = set->keys();
    std::vector<bool> expected(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) expected[i] = d.filter.contains(keys[i]);
    for (const auto& [name, fn] : singles) {
      for (std::size_t i = 0; i < keys.size(); ++i) {
        if (fn(d.filter, keys[i]) != expected[i]) throw std::runtime_error(name + " disagrees");
      }
    }
    std::unique_ptr<bool[]> results(new bool[batch]);
    for (const auto& [name, fn] : manies) {
      if (name == "hash_only") continue;
      for (std::size_t pos = 0; pos + batch <= keys.size(); pos += batch) {
        fn(d.filter, keys.subspan(pos, batch), std::span<bool>(results.get(), batch));
        for (std::size_t j = 0; j < batch; ++j) {
          if (results[j] != expected[pos + j]) throw std::runtime_error(name + " disagrees");
        }
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  // The variants measured (the templates above hold a few more configurations).
  const std::vector<std::pair<std::string, single_fn>> singles = {
      {"contains/library", library_contains},
      {"contains/branchless", contains_branchless},
      {"contains/prefetch_all", contains_prefetch_all},
  };
  const std::vector<std::pair<std::string, many_fn>> manies = {
      {"hash_only", hash_only},
      {"contains_many/library", library_contains_many},
      {"contains_many/prefetch_all_b32", many_prefetch_all<32>},
      {"contains_many/pipelined_all_b8", many_pipelined_all<8>},
      {"contains_many/pipelined_b8", many_pipelined<8>},
      {"contains_many/survivors_b8_lag11", many_survivors<8, 1, 1>},
      {"contains_many/fused_8_8", many_fused<8, 8>},
      {"contains_many/fused_8_8_l2", many_fused<8, 8, 2>},
      {"contains_many/stored_8_8_l2", many_fused_stored<8, 8, 2>},
      {"contains_many/branchy_8_8", many_fused_branchy<8, 8, 3>},
      {"contains_many/branchy_8_8_l2", many_fused_branchy<8, 8, 2>},
      {"contains_many/branchy_16_8_l2", many_fused_branchy<16, 8, 2>},
      {"contains_many/branchy_seq_8_8_l2", many_fused_branchy_seq<8, 8, 2>},
  };
  const std::vector<std::pair<std::string, insert_fn>> inserts = {
      {"insert/library", insert_library},
      {"insert/prefetch_all", insert_prefetch_all},
  };
  const std::vector<std::pair<std::string, insert_many_fn>> insert_manies = {
      {"insert_many/library", insert_many_library},
      {"insert_many/fused_16", insert_many_fused<16, 3>},
      {"insert_many/fused_16_l2", insert_many_fused<16, 2>},
  };
  std::vector<std::size_t> sizes;
  {
    const char* env = std::getenv("BLOOMKIT_BENCH_SIZES");
    std::stringstream in(env != nullptr && *env != '\0' ? env : "1e7");
    std::string item;
    while (std::getline(in, item, ',')) sizes.push_back(static_cast<std::size_t>(std::stod(item)));
  }
  for (const std::size_t n : sizes) {
    const std::string suffix = "/n:" + std::to_string(n);
    for (const auto& [name, fn] : inserts) {
      benchmark::RegisterBenchmark((name + suffix).c_str(), [n, fn = fn](benchmark::State& s) {
        run_insert(s, n, [fn](bloom_filter& f, std::span<const std::string_view> keys) {
          std::size_t fresh = 0;
          for (const auto key : keys) fresh += fn(f, key);
          return fresh;
        });
      })->Unit(benchmark::kMicrosecond);
    }
    for (const auto& [name, fn] : insert_manies) {
      benchmark::RegisterBenchmark((name + suffix).c_str(), [n, fn = fn](benchmark::State& s) {
        run_insert(s, n, fn);
      })->Unit(benchmark::kMicrosecond);
    }
    for (const bool hit : {true, false}) {
      const std::string kind = hit ? "/hit" : "/miss";
      for (const auto& [name, fn] : singles) {
        benchmark::RegisterBenchmark((name + kind + suffix).c_str(), [n, hit, fn = fn](
                                                                         benchmark::State& s) {
          run_single(s, n, hit, fn);
        })->Unit(benchmark::kMicrosecond);
      }
      for (const auto& [name, fn] : manies) {
        benchmark::RegisterBenchmark((name + kind + suffix).c_str(), [n, hit, fn = fn](
                                                                         benchmark::State& s) {
          run_many(s, n, hit, fn);
        })->Unit(benchmark::kMicrosecond);
      }
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  for (const std::size_t n : sizes) {
    verify(n, singles, manies, inserts, insert_manies);
    std::fprintf(stderr, "n=%zu: every variant agrees with the library\n", n);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
