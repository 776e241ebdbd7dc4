#pragma once
// The slice bookkeeping of window filters, shared by both layouts (window_filter.hpp: one group
// of adjacent cache lines per key; basic_window_filter.hpp: S + 1 sub-filters): the window and
// its S slices, the clock, which slice each of the S + 1 slots holds, and which slots are live.
//
// Slice e of a time window covers unix seconds t with floor(t S / W) = e; of a count window,
// inserts (numbered from 0) e * ceil(W/S) .. (e + 1) * ceil(W/S) - 1. Slice e lives in slot
// e mod (S + 1); slices current - S .. current are live. A key inserted within the last W is
// always in a live slice; one inserted more than W + W/S ago never is.
//
// Time never erases a live slice. The current slice is the later of the clock's and the newest
// slice a slot holds, so a clock that goes back hides nothing. An insert at an explicit time
// (set_now, set_clock) goes to that time's slice: an earlier live slice takes it (a backfill),
// a time older than the window is refused (errc::invalid_argument: it could not be remembered),
// and a time more than max_clock_skew ahead of the system clock is refused unless the caller
// says the clock really moved (set_clock_moved), since moving to it would rotate live slices
// out. The default clock is the system clock read once and advanced by the boot-time clock, so
// a system clock that steps while the process runs moves no window; inserts at it go to the
// current slice. A time of millisecond magnitude is refused naming it.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bloomkit {

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
  std::uint32_t slices = 8;  // S, 1..max_slices; S + 1 slots are kept
  friend bool operator==(const window_config&, const window_config&) = default;
};

// A window's length as users write it: "90s", "15m", "24h", "7d" (a duration, in seconds) or a
// bare count of inserts ("1000000"); at most window_slices::max_length of its unit.
struct window_length {
  std::uint64_t length = 0;  // seconds or inserts
  window_unit unit = window_unit::seconds;
};
// The window `text` names, or nullopt with what is wrong with it in *problem ("is empty", "is not
// a duration nor a count", "is not in 1..N hours"), for the caller to name its option.
std::optional<window_length> parse_window_length(std::string_view text,
                                                 std::string* problem = nullptr);

// Unix seconds.
using window_clock = std::function<std::uint64_t()>;

// The system clock's unix seconds.
std::uint64_t system_unix_seconds();
// errc::invalid_argument naming `t` when it is of millisecond magnitude
// (window_slices::millisecond_times or more): window times are unix seconds.
void check_window_time(std::uint64_t t);

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

class window_slices {
 public:
  static constexpr std::uint32_t max_slices = 255;
  // 1000 years in seconds; keeps every slice computation within 64 bits.
  static constexpr std::uint64_t max_length = std::uint64_t{1000} * 366 * 86400;
  // The slice recorded by a slot that never held one.
  static constexpr std::uint64_t no_slice = ~std::uint64_t{0};

  // Throws errc::invalid_argument naming the parameter when one is out of range.
  static void validate(const window_config& config);

  // How far ahead of the system clock an explicit time may be (seconds) before inserts and
  // lookups refuse it, unless set_clock_moved(true).
  static constexpr std::uint64_t max_clock_skew = 300;
  // The first time read as milliseconds, not seconds (about year 5138).
  static constexpr std::uint64_t millisecond_times = 100'000'000'000;
  // Inserts a count window may count (past it, inserts are refused; loaders refuse more).
  static constexpr std::uint64_t max_inserts = std::uint64_t{1} << 63;

  // The clock of time windows (count windows ignore it): an explicit time source. set_now fixes
  // it at `now` (errc::invalid_argument for a time of millisecond magnitude).
  void set_clock(window_clock clock) {
    clock_ = std::move(clock);
    explicit_clock_ = true;
  }
  void set_now(std::uint64_t now);
  // Back to the default clock (the system's, without steps).
  void use_system_clock();
  // The caller says the clock really moved: an explicit time beyond max_clock_skew ahead of the
  // system clock is accepted (and an insert at it rotates the slices it passes out).
  void set_clock_moved(bool moved) noexcept { clock_moved_ = moved; }
  // The clock's time now (unix seconds), checked: errc::invalid_argument when it is of
  // millisecond magnitude or (an explicit clock, unless the clock moved) more than
  // max_clock_skew ahead of the system clock.
  std::uint64_t now() const;
  // The slice lookups see as current: for a time window the later of the clock's slice and the
  // newest slice held (a clock behind hides nothing); for a count window, the insert count's.
  std::uint64_t current_slice() const;
  // The newest slice a slot holds (no_slice: none).
  std::uint64_t newest_slice() const noexcept;
  // The slice of time `t` (time windows): floor(t S / W).
  std::uint64_t slice_at(std::uint64_t t) const noexcept;

  const window_config& config() const noexcept { return config_; }
  std::uint64_t capacity() const noexcept { return config_.capacity; }
  double target_fpp() const noexcept { return config_.target_fpp; }
  std::uint64_t length() const noexcept { return config_.length; }
  window_unit unit() const noexcept { return config_.unit; }
  std::uint32_t slices() const noexcept { return config_.slices; }
  // The keys a slice is sized for, ceil(capacity / S): a slice past it (a burst) holds more
  // than its share, and a lookup's FPP may pass p.
  std::uint64_t slice_share() const noexcept {
    return config_.capacity / config_.slices + (config_.capacity % config_.slices != 0 ? 1 : 0);
  }
  // Count windows: inserts so far (each insert call counts); 0 for time windows.
  std::uint64_t insert_count() const noexcept { return inserts_; }
  // The slice each of the S + 1 slots holds (no_slice: never used); slot i holds slice e with
  // e mod (S + 1) = i.
  std::span<const std::uint64_t> slot_slices() const noexcept { return slot_slices_; }
  // Whether slot i holds a live slice now.
  bool live(std::size_t slot) const;

 protected:
  // Throws errc::invalid_argument (validate).
  explicit window_slices(const window_config& config);
  // Slots holding `slot_slices` after `inserts` inserts (loaders). Throws errc::invalid_argument
  // unless they fit the configuration.
  window_slices(const window_config& config, std::vector<std::uint64_t> slot_slices,
                std::uint64_t inserts);

  [[noreturn]] static void invalid(const std::string& problem);
  // errc::unsupported: merge and intersect are not defined (two windows' slices need not cover
  // the same times).
  [[noreturn]] static void refuse_merge();
  [[noreturn]] static void refuse_intersect();
  std::size_t slot_count() const noexcept { return slot_slices_.size(); }
  static bool live(std::uint64_t slice, std::uint64_t current, std::uint32_t slices) noexcept {
    return slice != no_slice && slice <= current && current - slice <= slices;
  }
  // visit(slot) for the slots of the live slices at slice `current`, newest first (recent keys
  // are the likelier hits).
  template <class Visit>
  void for_each_live_slot(std::uint64_t current, Visit visit) const {
    const std::size_t count = slot_slices_.size();
    for (std::size_t back = 0; back < count && back <= current; ++back) {
      const std::size_t slot = (current - back) % count;
      if (live(slot_slices_[slot], current, config_.slices)) visit(slot);
    }
  }
  // Points slice `current`'s slot at it. Returns the slot; `stale` says whether it held an older
  // slice, which the caller clears out of it.
  struct taken_slot {
    std::size_t slot;
    bool stale;
  };
  // Never a slot holding a newer slice (errc::invalid_argument: a bug, caught before it erases).
  taken_slot take_slot(std::uint64_t current);
  // Splits a batch of inserts into runs within one slice (a count window moves to the next
  // slice every ceil(W/S) inserts) and counts them: run(first, count, slice) returns how many
  // keys of the run were new. Returns the sum. A time window's run goes to insert_slice(); a
  // count window refuses a batch that would count past max_inserts.
  template <class Run>
  std::size_t insert_runs(std::size_t n, Run run) {
    if (config_.unit == window_unit::seconds) return run(0, n, insert_slice());
    check_insert_room(n);
    const std::uint64_t per_slice = inserts_per_slice();
    std::size_t added = 0;
    for (std::size_t next = 0; next < n;) {
      const std::uint64_t room = per_slice - inserts_ % per_slice;
      const auto take = static_cast<std::size_t>(room < n - next ? room : n - next);
      added += run(next, take, current_slice());
      inserts_ += take;
      next += take;
    }
    return added;
  }
  // No slot holds a slice; a count window's insert count back to 0.
  void reset_slices();
  // The same window, insert count and slot slices (not the clock).
  bool same_slices(const window_slices& other) const noexcept {
    return config_ == other.config_ && inserts_ == other.inserts_ &&
           slot_slices_ == other.slot_slices_;
  }

 private:
  std::uint64_t inserts_per_slice() const noexcept;
  // The slice a time window's insert goes to now (the class comment's rules).
  std::uint64_t insert_slice() const;
  // errc::invalid_argument when n more inserts would count past max_inserts.
  void check_insert_room(std::size_t n) const;

  window_config config_;
  std::vector<std::uint64_t> slot_slices_;
  std::uint64_t inserts_ = 0;
  window_clock clock_;
  bool explicit_clock_ = false;
  bool clock_moved_ = false;
};

}  // namespace bloomkit
