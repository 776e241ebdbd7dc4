#pragma once
// A window filter answers "was this key inserted within the last W?", where W is a duration
// (seconds) or a number of inserts:
//
//   bloomkit::window_filter seen({.capacity = 1'000'000, .target_fpp = 0.01,
//                                 .length = 7 * 86400});            // 7 days in 8 slices
//   if (!seen.insert(url)) skip(url);   // inserted within the last 7 days: do not recrawl
//
// Scheme: rotating slices (window_slices.hpp). The window is cut into S slices of W/S each; the
// filter keeps S + 1 slots in a ring (slice e in slot e mod (S + 1)): the current slice and the S
// before it. insert() puts the key into the current slice (clearing the slot first when it held
// an older slice); contains() asks the live ones. So a key inserted within the last W is always
// found, and one inserted more than W + W/S ago is forgotten (found only as a false positive).
//
// Layout: grouped words. Every slot is a word-blocked filter (sizing.hpp: a key sets k bits of
// one w-bit word, one per field of floor(w / k) bits) of the same `groups` words, and the S + 1
// slots' words of one word index sit together in one group of L adjacent cache lines:
//   L = ceil(14 (S + 1) / 64) lines, G = 64 L bytes, word bytes wb = min(32, floor(G / (S + 1))),
//   w = 8 wb bits, slot s's word at byte s wb of the group (S = 8: 2 lines, 112-bit words).
// A key's group (multiply-high of one half of its XXH3-128 digest) and its mask (k bits from the
// other half, detail::word_mask) are the same in every slot, so a lookup or an insert touches
// the L lines of one group, against one random line per slot for basic_window_filter.
//
// Sizing: every slot holds ceil(capacity / S) keys at p / (S + 1) (word_filter_sizing): at the
// stated rate (capacity keys per W) the S + 1 live slots are each within p / (S + 1) and the
// union bound keeps a lookup's FPP at most p at every moment. Memory (docs/VARIANTS.md): about
// 2x a static blocked filter of one window's keys at p (S = 8, p = 1%).
//
// Growth: a slot whose words took their share (slice_share() keys: a burst) takes further keys
// into overflow parts, blocked filters of that share at p / (S + 1) appended as a scalable chain
// grows (at most max_overflow_parts per slot), so every part holds at most its share and the FPP
// stays within p for any arrival of at most `capacity` keys within a window span. At a steady
// rate there are none: memory and speed are those of the groups alone.
//
// Time comes from the clock (set_clock / set_now; by default the system clock, in unix seconds),
// so that tests and replays (`--now`) never wait. A count window counts every insert; insert()
// returns whether the key was new to the window (no live slice held it) and always refreshes it
// into the current slice.
//
// Thread safety: single writer (an insert writes back a whole word). A filter that maps a file
// is read-only and throws errc::io_error from lookups once the file changed under it.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/basic_window_filter.hpp"
#include "bloomkit/bit_array.hpp"
#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/detail/key_bytes.hpp"
#include "bloomkit/hashing.hpp"
#include "bloomkit/window_slices.hpp"

namespace bloomkit {

namespace detail {
struct filter_access;
struct window_kernels;
struct window_group_view;
}  // namespace detail

// Where a grouped window's words are: the rule above applied to S, and the slots' sizing.
struct window_groups {
  std::uint32_t lines = 0;       // L: cache lines per group
  std::uint32_t word_bytes = 0;  // wb: bytes of one slot's word; w = 8 wb bits
  std::uint64_t groups = 0;      // words per slot = groups
  std::uint32_t hashes = 0;      // k: bits per key in one word
  std::uint64_t group_bytes() const noexcept { return std::uint64_t{64} * lines; }
  std::uint32_t word_bits() const noexcept { return 8 * word_bytes; }
  friend bool operator==(const window_groups&, const window_groups&) = default;
};

class window_filter : public window_slices, public detail::integral_keys<window_filter> {
 public:
  using digest_type = digest128;
  // Zero bytes after the last group, so that a word is always read as whole 64-bit lanes.
  static constexpr std::uint64_t tail_bytes = 64;
  // Overflow parts a slot may add (past them, the last one takes the rest and fills).
  static constexpr std::size_t max_overflow_parts = 64;

  // Throws errc::invalid_argument naming the parameter when one is out of range, errc::too_large
  // when a slot cannot be sized.
  explicit window_filter(const window_config& config);
  // The group layout and slot sizing of a window (throws as the constructor).
  static window_groups groups_of(const window_config& config);
  // L and wb of S slices (the rule above); groups and hashes 0.
  static window_groups group_shape(std::uint32_t slices) noexcept;

  static digest_type digest_of(std::string_view key) noexcept { return xxh3_128(key); }

  // Inserts the key into the current slice; returns whether no live slice held it before.
  bool insert(std::string_view key);
  // true: probably inserted within the live slices (at least the last W); false: not within W.
  bool contains(std::string_view key) const;
  using detail::integral_keys<window_filter>::insert;
  using detail::integral_keys<window_filter>::contains;
  // The same results as a loop of insert / contains, pipelined over the keys.
  std::size_t insert_many(std::span<const std::string_view> keys);
  // As above, and added[i]: whether keys[i] was new to the window (as insert(keys[i]) in order:
  // a crawler's "which of these URLs are new"). Throws errc::invalid_argument unless added has a
  // slot per key.
  std::size_t insert_many(std::span<const std::string_view> keys, std::span<bool> added);
  std::size_t contains_many(std::span<const std::string_view> keys, std::span<bool> results) const;

  // Not defined (two windows' slices need not cover the same times): throw errc::unsupported.
  void merge(const window_filter& other);
  void intersect(const window_filter& other);
  // Every slot empty; a count window's insert count back to 0.
  void clear();

  // Keys the live slices took (keys that changed their slot's word).
  std::uint64_t inserted() const;
  // 1 - prod(1 - fpp_s) over the live slots, fpp_s the chance that k given bits of a word are
  // set, averaged over the slot's words.
  double estimated_fpp() const;
  double estimated_count() const;
  // Fraction of set bits over the live slots' words.
  double fill_ratio() const;
  // Fraction of set bits of slot i's words (`bloomkit info`).
  double slot_fill_ratio(std::size_t slot) const;
  // Keys slot i took since it last became its slice.
  std::uint64_t slot_inserted(std::size_t slot) const { return slot_inserted_.at(slot); }
  std::span<const std::uint64_t> slot_inserted() const noexcept { return slot_inserted_; }
  // Keys of the fullest part (words or overflow) of a live slice: past slice_share() the FPP
  // bound no longer holds (a burst past max_overflow_parts, or a file written before growth).
  std::uint64_t fullest_slice_keys() const;
  // Slot i's overflow parts, oldest first (none at a steady rate).
  std::span<const blocked_bloom_filter> overflow(std::size_t slot) const {
    return overflow_.at(slot);
  }
  // The configuration of an overflow part: a blocked filter of slice_share() keys at p / (S + 1).
  filter_config overflow_config() const { return blocked_window_filter::slice_config(config()); }
  // Bits of the group array (all S + 1 slots, with the groups' unused bytes); bytes of it and of
  // the overflow parts.
  std::uint64_t cells() const noexcept { return layout_.groups * layout_.group_bytes() * 8; }
  std::size_t byte_size() const noexcept;
  std::uint32_t hashes() const noexcept { return layout_.hashes; }
  const window_groups& layout() const noexcept { return layout_; }
  static constexpr hash_scheme scheme() noexcept { return hash_scheme::xxh3_128_window_groups; }
  bool read_only() const noexcept { return cells_.read_only(); }
  void check_sources() const;

  // The batch paths: AVX2 (when this CPU and build have it; the default) or portable, which set
  // and test the same bits. set_simd is for tests and benchmarks and returns simd().
  static bool simd_supported() noexcept;
  bool simd() const noexcept;
  bool set_simd(bool enable) noexcept;

  // Same configuration, slices and words, bit for bit (not the clock).
  friend bool operator==(const window_filter& a, const window_filter& b) noexcept {
    return a.same_slices(b) && a.slot_inserted_ == b.slot_inserted_ && a.cells_ == b.cells_ &&
           a.overflow_ == b.overflow_;
  }

 private:
  friend struct detail::filter_access;
  // A filter over existing words (loaders): `cells` holds groups * G + tail_bytes bytes. Throws
  // errc::invalid_argument unless they fit the configuration.
  // `overflow`: each slot's overflow parts (empty, or S + 1 lists), each of overflow_config().
  window_filter(const window_config& config, bit_array cells, std::vector<std::uint64_t> slots,
                std::vector<std::uint64_t> slot_inserted, std::uint64_t inserts,
                std::vector<std::vector<blocked_bloom_filter>> overflow = {});
  // Inserts keys (all in slice `current`); returns how many were new to the window, and each
  // key's answer in added unless it is nullptr.
  std::size_t insert_run(std::span<const std::string_view> keys, std::uint64_t current,
                         bool* added);
  // insert_run's parts: keys into the slot's words (while they have room), or into its last
  // overflow part; answers in added unless it is nullptr.
  std::size_t insert_into_words(std::span<const std::string_view> keys, std::size_t slot,
                                bool* added);
  std::size_t insert_into_overflow(std::span<const std::string_view> keys, std::size_t slot,
                                   bool* added);
  // The overflow parts of the live slots at slice `current`.
  std::vector<const blocked_bloom_filter*> live_overflow(std::uint64_t current) const;
  // Writes the byte offsets in a group of the live slots' words at slice `current`, newest
  // first, to `offsets` (room for S + 1); returns how many.
  std::size_t live_offsets(std::uint64_t current, std::uint32_t* offsets) const;
  std::uint64_t slot_ones(std::size_t slot) const noexcept;
  // The batch paths' view of the groups at `base` (the cells).
  detail::window_group_view group_view(unsigned char* base) const noexcept;

  window_groups layout_;
  bit_array cells_;
  std::vector<std::uint64_t> slot_inserted_;
  std::vector<std::vector<blocked_bloom_filter>> overflow_;  // per slot
  const detail::window_kernels* kernels_;
};

static_assert(filter_like<window_filter>);

}  // namespace bloomkit
