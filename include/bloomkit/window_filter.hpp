#pragma once
// A window filter answers "was this key inserted within the last W?", where W is a duration
// (seconds) or a number of inserts. basic_window_filter<SubFilter> is a composition over any
// filter of one storage policy (filter.hpp), as the scalable filter is:
//
//   window_filter          = basic_window_filter<blocked_bloom_filter>  (kind "window")
//   classic_window_filter  = basic_window_filter<bloom_filter>
//
//   bloomkit::window_filter seen({.capacity = 1'000'000, .target_fpp = 0.01,
//                                 .length = 7 * 86400});            // 7 days in 8 slices
//   if (!seen.insert(url)) skip(url);   // inserted within the last 7 days: do not recrawl
//
// Scheme: rotating generations. The window is cut into S slices of W/S each; slice e covers
// [e W/S, (e + 1) W/S) (time windows: t in unix seconds, e = floor(t S / W), computed in
// integers) or inserts e * ceil(W/S) .. (e + 1) * ceil(W/S) - 1 (count windows). The filter keeps
// S + 1 sub-filters in a ring (slice e in slot e mod (S + 1)): the current slice and the S before
// it. insert() puts the key into the current slice (clearing the slot first when it held an older
// slice); contains() asks the live ones, slices current - S .. current. So:
//   - a key inserted within the last W is always found: its slice is at least current - S;
//   - a key inserted more than W + W/S ago is forgotten (found only as a false positive): its
//     slice is below current - S. Between the two (the boundary slice) it may still be found.
// Every sub-filter is sized for c = ceil(capacity / S) keys at p / (S + 1): at the stated rate
// (capacity keys per W) the live slices hold at most (S + 1) c keys, S + 1 sub-filters each
// within p / (S + 1), and the union bound keeps the FPP of a lookup at most p at every moment.
// Memory: (S + 1) sub-filters of c keys at p / (S + 1), against one filter of capacity keys at p:
// (S + 1) / S * bits(p / (S + 1)) / bits(p) (docs/VARIANTS.md: 1.66x for S = 8 at 1%).
//
// Why not the Age-Partitioned Bloom Filter (Shtul, Baquero, Almeida 2020): it saves memory (k + l
// slices with a key in k consecutive ones) but needs a shift of every slice per generation and
// k slice probes per key; rotation costs one cleared slot per slice, maps one-to-one onto Redis
// keys that expire by TTL with no coordinator (a slice's key name comes from the time alone), and
// stays within 2x of a static filter's memory.
//
// Time comes from the filter's clock (set_clock / set_now; by default the system clock, in unix
// seconds), so that tests and replays (`--now`) never wait. A clock that goes back hides the
// slices after it from lookups until it catches up; inserts go to the slice of the clock's time.
//
// A count window counts every insert (a key inserted again counts again and is refreshed into
// the current slice); a time window refreshes too. insert() returns whether the key was new to
// the window (no live slice held it).
//
// Thread safety: single writer, as the scalable filter (scalable_filter.hpp). A filter that maps
// a file is read-only (its lookups follow its clock) and throws errc::io_error from lookups once
// the file changed under it.

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/detail/key_bytes.hpp"
#include "bloomkit/filter.hpp"

namespace bloomkit {

namespace detail {
struct filter_access;
}

// What W counts.
enum class window_unit : std::uint32_t {
  seconds = 0,  // a time window: slices of W/S seconds, from the clock
  inserts = 1,  // a count window: slices of ceil(W/S) inserts
};

struct window_config {
  std::uint64_t capacity = 0;  // distinct keys per window at which the FPP bound holds, >= 1
  double target_fpp = 0;       // p, in (0, 1): bound on a lookup's FPP over the live slices
  std::uint64_t length = 0;    // W: seconds or inserts, >= slices (max_length at most)
  window_unit unit = window_unit::seconds;
  std::uint32_t slices = 8;  // S, 1..max_slices; S + 1 sub-filters are kept
  friend bool operator==(const window_config&, const window_config&) = default;
};

// Unix seconds.
using window_clock = std::function<std::uint64_t()>;

// The slice of time t in a window of `length` seconds cut into `slices`: floor(t S / W), without
// overflow (t = q W + r: q S + r S / W, and r S < W S < 2^64 for W at most max_length).
constexpr std::uint64_t slice_of_time(std::uint64_t t, std::uint64_t length,
                                      std::uint32_t slices) noexcept {
  return t / length * slices + t % length * slices / length;
}
// The first second of slice e: ceil(e W / S).
constexpr std::uint64_t slice_start(std::uint64_t e, std::uint64_t length,
                                    std::uint32_t slices) noexcept {
  return e / slices * length + (e % slices * length + slices - 1) / slices;
}

template <class SubFilter>
class basic_window_filter : public detail::integral_keys<basic_window_filter<SubFilter>> {
 public:
  using sub_filter_type = SubFilter;
  using policy_type = typename SubFilter::policy_type;
  using digest_type = typename SubFilter::digest_type;
  static constexpr std::uint32_t max_slices = 255;
  // 1000 years in seconds; keeps every slice computation within 64 bits.
  static constexpr std::uint64_t max_length = std::uint64_t{1000} * 366 * 86400;
  // The slice recorded by a slot that never held one.
  static constexpr std::uint64_t no_slice = ~std::uint64_t{0};

  // Throws errc::invalid_argument naming the parameter when one is out of range, errc::too_large
  // when a slice cannot be sized.
  explicit basic_window_filter(const window_config& config);
  static void validate(const window_config& config);
  // m, k, capacity ceil(capacity / S) and target p / (S + 1) of every sub-filter.
  static filter_config slice_config(const window_config& config);

  // The clock of time windows (count windows ignore it). set_now fixes it at `now`.
  void set_clock(window_clock clock) { clock_ = std::move(clock); }
  void set_now(std::uint64_t now) {
    clock_ = [now] { return now; };
  }
  // The clock's time now (unix seconds).
  std::uint64_t now() const { return clock_(); }
  // The slice that inserts go to now: from the clock (time) or the insert count (count).
  std::uint64_t current_slice() const;
  // The slice of time `t` (time windows): floor(t S / W).
  std::uint64_t slice_at(std::uint64_t t) const noexcept;

  // Inserts the key into the current slice; returns whether no live slice held it before.
  bool insert(std::string_view key);
  // true: probably inserted within the live slices (at least the last W); false: not within W.
  bool contains(std::string_view key) const;
  // Integral keys hash their little-endian bytes.
  using detail::integral_keys<basic_window_filter>::insert;
  using detail::integral_keys<basic_window_filter>::contains;
  // The same results as a loop of insert / contains (lookups batched over every live slice).
  std::size_t insert_many(std::span<const std::string_view> keys);
  std::size_t contains_many(std::span<const std::string_view> keys, std::span<bool> results) const;

  // Not defined (two windows' slices need not cover the same times): throw errc::unsupported.
  void merge(const basic_window_filter& other);
  void intersect(const basic_window_filter& other);
  // Every slot empty; a count window's insert count back to 0.
  void clear();

  // Keys the live slices took (sum of their sub-filters' inserted()).
  std::uint64_t inserted() const;
  // 1 - prod(1 - fpp_i) over the live slices.
  double estimated_fpp() const;
  double estimated_count() const;
  // Fraction of set cells over the live slices.
  double fill_ratio() const;
  // Keys per window (the sizing rate).
  std::uint64_t capacity() const noexcept { return config_.capacity; }
  double target_fpp() const noexcept { return config_.target_fpp; }
  // Cells and bytes of all S + 1 sub-filters.
  std::uint64_t cells() const noexcept;
  std::size_t byte_size() const noexcept;
  std::uint32_t hashes() const noexcept { return slots_.front().hashes(); }
  static constexpr hash_scheme scheme() noexcept { return policy_type::scheme; }
  bool read_only() const noexcept { return slots_.front().read_only(); }
  void check_sources() const;

  const window_config& config() const noexcept { return config_; }
  std::uint64_t length() const noexcept { return config_.length; }
  window_unit unit() const noexcept { return config_.unit; }
  std::uint32_t slices() const noexcept { return config_.slices; }
  // Count windows: inserts so far (each insert call counts); 0 for time windows.
  std::uint64_t insert_count() const noexcept { return inserts_; }
  // The S + 1 slots and the slice each holds (no_slice: never used), slot i holds slice e with
  // e mod (S + 1) = i.
  std::span<const SubFilter> slots() const noexcept { return slots_; }
  std::span<const std::uint64_t> slot_slices() const noexcept { return slot_slices_; }
  // Whether slot i holds a live slice now.
  bool live(std::size_t slot) const;

  // Same configuration, slots and slices, bit for bit (not the clock).
  friend bool operator==(const basic_window_filter& a, const basic_window_filter& b) noexcept {
    return a.config_ == b.config_ && a.inserts_ == b.inserts_ && a.slot_slices_ == b.slot_slices_ &&
           a.slots_ == b.slots_;
  }

 private:
  friend struct detail::filter_access;
  // A filter from existing slots (loaders). Throws errc::invalid_argument unless they fit the
  // configuration (check_slots).
  basic_window_filter(const window_config& config, std::vector<SubFilter> slots,
                      std::vector<std::uint64_t> slot_slices, std::uint64_t inserts);
  void check_slots() const;
  static bool live(std::uint64_t slice, std::uint64_t current, std::uint32_t slices) noexcept;
  // Points the current slice's slot at slice `current`, clearing an older slice out of it.
  SubFilter& rotate_to(std::uint64_t current);
  // Inserts keys (all in slice `current`); returns how many were new to the window.
  std::size_t insert_run(std::span<const std::string_view> keys, std::uint64_t current);
  // The slots of the live slices at slice `current`, newest first.
  std::vector<const SubFilter*> live_slots(std::uint64_t current) const;
  template <class Visit>
  void for_each_live(std::uint64_t current, Visit visit) const;

  window_config config_;
  std::vector<SubFilter> slots_;
  std::vector<std::uint64_t> slot_slices_;
  std::uint64_t inserts_ = 0;
  window_clock clock_;
};

using window_filter = basic_window_filter<blocked_bloom_filter>;
using classic_window_filter = basic_window_filter<bloom_filter>;

// Instantiated once, in the library (src/window_filter.cpp).
extern template class basic_window_filter<bloom_filter>;
extern template class basic_window_filter<blocked_bloom_filter>;

static_assert(filter_like<window_filter>);
static_assert(filter_like<classic_window_filter>);

}  // namespace bloomkit
