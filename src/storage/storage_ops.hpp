#pragma once
// Internal: the behaviour of each storage policy (storage.hpp's `ops`), which basic_filter calls
// without asking which storage it has. Every ops type gives
//   init(state)                             the per-filter state of a new filter
//   paths<Probe>{words, config, bytes, state}  one filter's hot paths: hash, insert<Atomic>,
//                                           contains, insert_keys<Atomic>, insert_digests,
//                                           contains_keys, contains_digests
//   counted(keys, changed)                  what a batch of inserts adds to inserted()
//   merge_word / intersect_word, inserted_after_merge
//   nonzero_cells, estimated_fpp<Probe>     the estimates
//   check_config, sized_config<Probe>, message_kind, cell_name   the config rules
//   contains_in_slots<Probe>, insert_into_slots<Probe>   a window's batches over its slots
// The grouped window layout's ops (window_group_storage_ops, last) have the same shape where a
// window of one bit array needs it: its kernels' choice and its batches over a group's slots.
// Positional storages (bits, counters) run the one pipeline (filter_pipeline.hpp) over their cell
// operations (cell_ops.hpp); split blocks run their ISA kernels (blocked_kernels.hpp), which run
// the same pipeline. Everything here inlines into basic_filter's members, so the hot paths do
// the same work as the branches they replace.

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include "../core/filter_pipeline.hpp"
#include "../core/key_stream.hpp"
#include "blocked_kernels.hpp"
#include "bloomkit/bit_array.hpp"
#include "bloomkit/storage.hpp"
#include "cell_ops.hpp"
#include "counter_words.hpp"
#include "isa_kernels.hpp"
#include "storage_rules.hpp"

namespace bloomkit::detail {

// Filters of at least this size live past L2, where prefetching every line of a key before
// touching any pays; below it (in cache) the plain loops are faster (the pipeline's rule).
inline constexpr std::size_t dram_filter_bytes = pipeline_cache_bytes;

// A filter's hot paths over positional cells: k positions from the probe sequence.
template <class Probe, class Cell>
struct positional_paths {
  using digest_type = typename Probe::digest_type;
  positional_ops<Probe, Cell> ops;
  bool in_dram;
  touched_bytes touched;  // the batches': the filter's array

  template <class State>
  positional_paths(std::uint64_t* words, const filter_config& c, std::size_t bytes,
                   const State&) noexcept
      : ops{words, c.cells, c.hashes}, in_dram(bytes >= dram_filter_bytes), touched{bytes} {}

  static digest_type hash(std::string_view key) noexcept { return Probe::hash(key); }
  // The batches' digest_at over each kind of key, streamed (key_stream.hpp). Members, so that
  // only probes with an integer scheme instantiate integer_digests.
  static auto key_digests(std::span<const std::string_view> keys) noexcept {
    return streamed_digests<lines_per_key>(
        keys, [](std::string_view key) noexcept { return Probe::hash(key); });
  }
  static auto ready_digests(std::span<const digest_type> digests) noexcept {
    return streamed_digests<lines_per_key>(
        digests, [](const digest_type& d) noexcept -> const digest_type& { return d; },
        key_reads::again);
  }
  static auto integer_digests(std::span<const std::uint64_t> keys) noexcept {
    return streamed_digests<lines_per_key>(
        keys, [](std::uint64_t key) noexcept { return Probe::hash_integer(key); });
  }
  // The single-key paths call out of line with a copy of ops, so that only the copy (not
  // in_dram beside it) goes to the stack: the same stores as before the storage had ops.
  template <bool Atomic>
  bool insert(const digest_type& d) const noexcept {
    const positional_ops<Probe, Cell> o = ops;
    return o.template insert_one<Atomic>(d, in_dram);
  }
  bool contains(const digest_type& d) const noexcept {
    const positional_ops<Probe, Cell> o = ops;
    return o.contains_one(d, in_dram);
  }

  template <bool Atomic>
  std::size_t insert_keys(std::span<const std::string_view> keys, bool* added) const noexcept {
    return insert_pipeline<Atomic>(ops, keys.size(), key_digests(keys), touched, added);
  }
  std::size_t insert_digests(std::span<const digest_type> digests, bool* added) const noexcept {
    return insert_pipeline<false>(ops, digests.size(), ready_digests(digests), touched, added);
  }
  std::size_t contains_keys(std::span<const std::string_view> keys, bool* results) const noexcept {
    return lookup_pipeline(ops, keys.size(), key_digests(keys), touched, results);
  }
  std::size_t contains_digests(std::span<const digest_type> digests, bool* results) const noexcept {
    return lookup_pipeline(ops, digests.size(), ready_digests(digests), touched, results);
  }
  // Integer keys (Probe's integer scheme), hashed inline like the keys above.
  template <bool Atomic>
  std::size_t insert_integers(std::span<const std::uint64_t> keys, bool* added) const noexcept {
    return insert_pipeline<Atomic>(ops, keys.size(), integer_digests(keys), touched, added);
  }
  std::size_t contains_integers(std::span<const std::uint64_t> keys, bool* results) const noexcept {
    return lookup_pipeline(ops, keys.size(), integer_digests(keys), touched, results);
  }
};

// What a word of single bits is (classic and blocked): merge is or, intersect and, a cell is
// non-zero when set; an insert counts when it set a bit, and a set's inserted() after merge
// follows its cells (the caller's estimate, from_cells()).
struct bit_words {
  static constexpr std::string_view cell_name = "bits";
  static std::uint64_t merge_word(std::uint64_t a, std::uint64_t b) noexcept { return a | b; }
  static std::uint64_t intersect_word(std::uint64_t a, std::uint64_t b) noexcept { return a & b; }
  static std::uint64_t nonzero_cells(const bit_array& cells) noexcept { return cells.count(); }
  static std::uint64_t counted(std::uint64_t, std::uint64_t changed) noexcept { return changed; }
  template <class FromCells>
  static std::uint64_t inserted_after_merge(std::uint64_t, std::uint64_t,
                                            FromCells from_cells) noexcept {
    return from_cells();
  }
  static constexpr std::string_view message_kind = "";  // "cannot merge filters: ..."
  static void check_config(std::uint64_t cells, std::uint32_t hashes) {
    check_bit_config(cells, hashes);
  }
};

// What a word of 16 4-bit counters is (counting): merge is the saturating sum (the multiset
// union), intersect the minimum, a counter non-zero when not 0.
struct counter_words {
  static constexpr std::string_view cell_name = "counters";
  static std::uint64_t merge_word(std::uint64_t a, std::uint64_t b) noexcept {
    return saturating_add_nibbles(a, b);
  }
  static std::uint64_t intersect_word(std::uint64_t a, std::uint64_t b) noexcept {
    return min_nibbles(a, b);
  }
  static std::uint64_t nonzero_cells(const bit_array& cells) noexcept {
    std::uint64_t total = 0;
    for (const std::uint64_t w : cells.words()) {
      total += static_cast<std::uint64_t>(std::popcount(nonzero_nibbles(w)));
    }
    return total;
  }
  // A counting insert counts although no counter was 0 (the key may be there twice).
  static std::uint64_t counted(std::uint64_t keys, std::uint64_t) noexcept { return keys; }
  // The multiset union holds both filters' inserts (saturating at the count's maximum).
  template <class FromCells>
  static std::uint64_t inserted_after_merge(std::uint64_t mine, std::uint64_t theirs,
                                            FromCells) noexcept {
    const std::uint64_t room = std::numeric_limits<std::uint64_t>::max() - mine;
    return theirs > room ? std::numeric_limits<std::uint64_t>::max() : mine + theirs;
  }
  static constexpr std::string_view message_kind = counter_storage::name;
  static void check_config(std::uint64_t cells, std::uint32_t hashes) {
    check_counter_config(cells, hashes);
  }
};

// What a storage without a capability answers for it: never called, since the members of
// basic_filter that call these are constrained to storages that have them. They exist because
// clang 14 (the fuzz build's compiler) instantiates constrained members in an explicit
// instantiation of the class, whose bodies must then compile for every storage.
struct capabilities_absent {
  [[noreturn]] static void absent() noexcept { std::abort(); }
  static filter_config config_for_bits(std::uint64_t) { absent(); }
  static filter_config config_for_blocks(std::uint64_t) { absent(); }
  static bool simd_supported() noexcept { absent(); }
  template <class State>
  static bool simd(const State&) noexcept {
    absent();
  }
  template <class State>
  static bool set_simd(State&, bool) noexcept {
    absent();
  }
  template <class Probe, class... Args>
  static bool remove(Args&&...) {
    absent();
  }
  static std::uint32_t value(const std::uint64_t*, std::uint64_t) noexcept { absent(); }
  static std::uint64_t saturated_cells(const bit_array&) noexcept { absent(); }
  static void nonzero_bits(std::span<const std::uint64_t>, std::uint64_t*) noexcept { absent(); }
};

// The keys of a window's batch over its slots, slots[0] first: filters of one config whose words
// are `slots` (filter_pipeline.hpp's slot pipelines). Lookups never write through them.
struct slot_batch {
  std::span<std::uint64_t* const> slots;
  const filter_config& config;
  std::size_t bytes;  // of one slot
  std::span<const std::string_view> keys;

  touched_bytes touched() const noexcept { return {bytes * slots.size()}; }
};

// Positional storages: k cells per key at positions from the probe sequence, marked and checked
// by Cell (cell_ops.hpp), whole words as Words says.
template <class Cell, class Words>
struct positional_storage_ops : Words, capabilities_absent {
  template <class Probe>
  using cell_ops = positional_ops<Probe, Cell>;
  template <class Probe>
  using paths = positional_paths<Probe, Cell>;

  template <class State>
  static void init(State&) noexcept {}

  // results[i]: whether some slot holds key i; returns how many some slot holds.
  template <class Probe, class State>
  static std::size_t contains_in_slots(const slot_batch& b, const State&, bool* results) {
    const std::vector<cell_ops<Probe>> each = slot_cell_ops<Probe>(b);
    return lookup_slots_pipeline(slot_ops<cell_ops<Probe>>{each.data(), each.size()}, b.keys.size(),
                                 hash_at<Probe>(b.keys), b.touched(), results);
  }
  // Inserts the keys, in order, into slots[0] (single writer); added (nullptr: not wanted): per
  // key, whether no slot held it.
  template <class Probe, class State>
  static slot_insert_counts insert_into_slots(const slot_batch& b, const State&, bool* added) {
    const std::vector<cell_ops<Probe>> each = slot_cell_ops<Probe>(b);
    return insert_slots_pipeline(slot_ops<cell_ops<Probe>>{each.data(), each.size()}, b.keys.size(),
                                 hash_at<Probe>(b.keys), b.touched(), added);
  }

  template <class Probe>
  static double estimated_fpp(const bit_array& cells, const filter_config& c) noexcept {
    const double fill =
        static_cast<double>(Words::nonzero_cells(cells)) / static_cast<double>(c.cells);
    return policy_fpp_at_fill<Probe>(c.cells, c.hashes, fill);
  }
  template <class Probe>
  static filter_config sized_config(std::uint64_t n, double p) {
    const filter_params params = policy_params<Probe>(n, p);
    const filter_config config{params.bits, params.hashes, n, p};
    Words::check_config(config.cells, config.hashes);
    check_policy_params<Probe>(config.cells, config.hashes);
    return config;
  }

 private:
  template <class Probe>
  static std::vector<cell_ops<Probe>> slot_cell_ops(const slot_batch& b) {
    std::vector<cell_ops<Probe>> each;
    each.reserve(b.slots.size());
    for (std::uint64_t* w : b.slots) each.push_back({w, b.config.cells, b.config.hashes});
    return each;
  }
  template <class Probe>
  static auto hash_at(std::span<const std::string_view> keys) noexcept {
    return streamed_digests<lines_per_key>(
        keys, [](std::string_view key) noexcept { return Probe::hash(key); });
  }
};

struct bit_storage_ops : positional_storage_ops<bit_cell, bit_words> {};

// Counters add what only they have: their values, removal, the classic filter of their keys.
struct counter_storage_ops : positional_storage_ops<nibble_cell, counter_words> {
  static constexpr std::uint32_t max_count = counter_storage::max_count;

  static std::uint32_t value(const std::uint64_t* words, std::uint64_t i) noexcept {
    return nibble_cell::value(words, i);
  }
  static std::uint64_t saturated_cells(const bit_array& cells) noexcept {
    std::uint64_t total = 0;
    for (const std::uint64_t w : cells.words()) {
      total += static_cast<std::uint64_t>(std::popcount(saturated_nibbles(w)));
    }
    return total;
  }
  // bits[i] = counter i is non-zero (bits: cleared words of one bit per counter).
  static void nonzero_bits(std::span<const std::uint64_t> counters, std::uint64_t* bits) noexcept {
    for (std::size_t i = 0; i < counters.size(); ++i) {
      for (std::uint64_t nz = nonzero_nibbles(counters[i]); nz != 0; nz &= nz - 1) {
        const std::uint64_t bit = i * 16 + static_cast<std::uint64_t>(std::countr_zero(nz)) / 4;
        bits[bit >> 6] |= std::uint64_t{1} << (bit & 63);
      }
    }
  }
  // Removes one occurrence of the key of digest d; false (nothing changed) when it is definitely
  // absent. Two probes of one key may land on the same counter; the key then added 2 to it.
  // Sorting the positions groups such probes, so each counter is checked against what the key
  // contributed before anything changes.
  template <class Probe>
  static bool remove(std::uint64_t* words, const filter_config& c,
                     const typename Probe::digest_type& d) noexcept {
    std::array<std::uint64_t, max_hashes> pos;
    const std::uint32_t k = c.hashes;
    auto probes = Probe::probes(d, c.cells);
    for (std::uint32_t i = 0; i < k; ++i) pos[i] = probes.next();
    std::sort(pos.begin(), pos.begin() + k);
    for (std::uint32_t i = 0; i < k;) {
      std::uint32_t run = 1;
      while (i + run < k && pos[i + run] == pos[i]) ++run;
      const std::uint32_t v = nibble_cell::value(words, pos[i]);
      if (v != max_count && v < run) return false;  // definitely absent
      i += run;
    }
    for (std::uint32_t i = 0; i < k; ++i) {
      std::uint64_t& w = words[pos[i] >> 4];
      const unsigned shift = static_cast<unsigned>(pos[i] & 15) * 4;
      if (((w >> shift) & 15) != max_count) w -= std::uint64_t{1} << shift;
    }
    return true;
  }
};

// The geometry of a blocked filter of lines (k != 8; sizing.hpp's blocked_shape_of).
inline line_geometry line_geometry_of(const filter_config& c) noexcept {
  const std::uint32_t per_key = c.hashes == blocked_two_line_hashes ? 2 : 1;
  const std::uint32_t bits = c.hashes / per_key;
  return {c.cells / blocked_line_bits, per_key, bits,
          static_cast<std::uint32_t>(blocked_line_bits / bits)};
}

// A blocked filter's hot paths: its ISA kernels (state.kernels) over its blocks, or over its
// lines for the layouts of k != 8 (one branch per call). The kernels hash keys themselves
// (XXH3-64, inline in their pipelines): the split-block storage goes with xxh3_split_block_policy.
struct split_block_paths {
  using digest_type = std::uint64_t;
  const blocked_kernels* kernels;
  std::uint64_t* words;
  std::uint64_t blocks;
  bool split;           // the split-block layout (k = 8)
  line_geometry lines;  // else its lines

  split_block_paths(std::uint64_t* w, const filter_config& c, std::size_t,
                    const split_block_storage::state& s) noexcept
      : kernels(s.kernels),
        words(w),
        blocks(c.cells / blocked_block_bits),
        split(c.hashes == blocked_hashes),
        lines(split ? line_geometry{} : line_geometry_of(c)) {}

  static digest_type hash(std::string_view key) noexcept { return xxh3_64_inline(key); }
  template <bool Atomic>
  bool insert(digest_type d) const noexcept {
    return split ? kernels->insert(words, blocks, d, Atomic)
                 : kernels->lines.insert(words, lines, d, Atomic);
  }
  bool contains(digest_type d) const noexcept {
    return split ? kernels->contains(words, blocks, d) : kernels->lines.contains(words, lines, d);
  }
  template <bool Atomic>
  std::size_t insert_keys(std::span<const std::string_view> keys, bool* added) const noexcept {
    return insert_batch({keys.data(), nullptr, keys.size()}, Atomic, added);
  }
  std::size_t insert_digests(std::span<const digest_type> digests, bool* added) const noexcept {
    return insert_batch({nullptr, digests.data(), digests.size()}, false, added);
  }
  std::size_t contains_keys(std::span<const std::string_view> keys, bool* results) const noexcept {
    return contains_batch({keys.data(), nullptr, keys.size()}, results);
  }
  std::size_t contains_digests(std::span<const digest_type> digests, bool* results) const noexcept {
    return contains_batch({nullptr, digests.data(), digests.size()}, results);
  }
  // Integer keys (hash_scheme::splitmix64_split_block), hashed inline by the kernels.
  template <bool Atomic>
  std::size_t insert_integers(std::span<const std::uint64_t> keys, bool* added) const noexcept {
    return insert_batch({nullptr, nullptr, keys.size(), keys.data()}, Atomic, added);
  }
  std::size_t contains_integers(std::span<const std::uint64_t> keys, bool* results) const noexcept {
    return contains_batch({nullptr, nullptr, keys.size(), keys.data()}, results);
  }

 private:
  std::size_t insert_batch(blocked_batch batch, bool atomic, bool* added) const noexcept {
    return split ? kernels->insert_many(words, blocks, batch, atomic, added)
                 : kernels->lines.insert_many(words, lines, batch, atomic, added);
  }
  std::size_t contains_batch(blocked_batch batch, bool* results) const noexcept {
    return split ? kernels->contains_many(words, blocks, batch, results)
                 : kernels->lines.contains_many(words, lines, batch, results);
  }
};

// Split blocks: words of single bits (bit_words), one block per key, sized in blocks.
struct split_block_storage_ops : bit_words, capabilities_absent {
  template <class Probe>
  using paths = split_block_paths;
  static constexpr std::string_view message_kind = split_block_storage::name;

  using isa = isa_choice<&isa_kernels::blocked>;
  static void init(split_block_storage::state& s) noexcept { s.kernels = isa::chosen(true); }
  static bool simd_supported() noexcept { return isa::simd_supported(); }
  static bool simd(const split_block_storage::state& s) noexcept { return isa::simd(s.kernels); }
  // The AVX2 kernels when asked for and this CPU has them, else the portable ones.
  static bool set_simd(split_block_storage::state& s, bool enable) noexcept {
    s.kernels = isa::chosen(enable);
    return simd(s);
  }

  // A window's batches over its slots (as positional_storage_ops's): the slot kernels, which
  // hash the keys inline.
  template <class Probe>
  static std::size_t contains_in_slots(const slot_batch& b, const split_block_storage::state& s,
                                       bool* results) noexcept {
    const blocked_batch keys{b.keys.data(), nullptr, b.keys.size()};
    if (b.config.hashes != blocked_hashes) {
      return s.kernels->lines.contains_many_in_slots(b.slots.data(), b.slots.size(),
                                                     line_geometry_of(b.config), keys, results);
    }
    return s.kernels->contains_many_in_slots(b.slots.data(), b.slots.size(), blocks_of(b), keys,
                                             results);
  }
  template <class Probe>
  static slot_insert_counts insert_into_slots(const slot_batch& b,
                                              const split_block_storage::state& s,
                                              bool* added) noexcept {
    const blocked_batch keys{b.keys.data(), nullptr, b.keys.size()};
    if (b.config.hashes != blocked_hashes) {
      return s.kernels->lines.insert_many_in_slots(b.slots.data(), b.slots.size(),
                                                   line_geometry_of(b.config), keys, added);
    }
    return s.kernels->insert_many_in_slots(b.slots.data(), b.slots.size(), blocks_of(b), keys,
                                           added);
  }

  template <class Probe>
  static double estimated_fpp(const bit_array& cells, const filter_config& c) noexcept {
    return blocked_fpp_of(cells.words(), c.hashes);
  }
  static void check_config(std::uint64_t bits, std::uint32_t hashes) {
    check_blocked_config(bits, hashes);
  }
  template <class Probe>
  static filter_config sized_config(std::uint64_t n, double p) {
    const filter_params sized = blocked_params(n, p);
    return {sized.bits, sized.hashes, n, p};
  }
  static filter_config config_for_bits(std::uint64_t bits) {
    return blocked_config_for_blocks(blocks_for_bits(bits));
  }
  static filter_config config_for_blocks(std::uint64_t blocks) {
    return blocked_config_for_blocks(blocks);
  }

 private:
  static std::uint64_t blocks_of(const slot_batch& b) noexcept {
    return b.config.cells / blocked_block_bits;
  }
};

// The grouped window layout (window_filter): each group holds the S + 1 slots' words side by
// side. How a key's group and word mask are located, marked in one slot and checked across the
// live slots is window_group_ops's (window_kernels.hpp), run on the one pipeline by the ISA
// kernels chosen here; `state` is the window's choice.
struct window_group_storage_ops {
  using isa = isa_choice<&isa_kernels::window>;
  using state = const window_kernels*;

  static void init(state& s) noexcept { s = isa::chosen(true); }
  static bool simd_supported() noexcept { return isa::simd_supported(); }
  static bool simd(state s) noexcept { return isa::simd(s); }
  static bool set_simd(state& s, bool enable) noexcept {
    s = isa::chosen(enable);
    return simd(s);
  }

  // results[i]: whether a slot at offsets[0 .. live) of the groups holds keys[i].
  static std::size_t contains_in_slots(state s, const window_group_view& g,
                                       const std::uint32_t* offsets, std::size_t live,
                                       std::span<const std::string_view> keys,
                                       bool* results) noexcept {
    return s->contains_many(g, offsets, live, keys, results);
  }
  // Marks the keys in order in the slot at byte `target`; new: no other slot (`others`) held it.
  static window_insert_counts insert_into_slot(state s, const window_group_view& g,
                                               std::uint32_t target, const std::uint32_t* others,
                                               std::size_t count,
                                               std::span<const std::string_view> keys,
                                               bool* added) noexcept {
    return s->insert_many(g, target, others, count, keys, added);
  }
};

}  // namespace bloomkit::detail
