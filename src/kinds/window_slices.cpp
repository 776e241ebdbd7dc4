#include "bloomkit/window_slices.hpp"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

#include "bloomkit/error.hpp"
#include "filter_rules.hpp"

namespace bloomkit {
namespace {

// Seconds since boot, suspend included: a clock that never steps.
std::int64_t boot_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_BOOTTIME, &ts);
  return ts.tv_sec;
}

// The system clock read once per process, advanced by the boot-time clock since: a system clock
// stepped back or ahead while a process runs (a server's NTP step, a mistyped `date -s`) moves no
// window of that process. A new process reads the clock again.
std::uint64_t stepless_system_seconds() {
  static const std::uint64_t base_unix = system_unix_seconds();
  static const std::int64_t base_boot = boot_seconds();
  return base_unix +
         static_cast<std::uint64_t>(std::max<std::int64_t>(0, boot_seconds() - base_boot));
}

}  // namespace

std::uint64_t system_unix_seconds() {
  const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  return static_cast<std::uint64_t>(std::max<std::int64_t>(
      0, std::chrono::duration_cast<std::chrono::seconds>(since_epoch).count()));
}

void check_window_time(std::uint64_t t) {
  if (t >= window_slices::millisecond_times) {
    throw error(errc::invalid_argument,
                "window filter: time " + std::to_string(t) +
                    " looks like milliseconds; window times are unix seconds");
  }
}

void window_slices::set_now(std::uint64_t now) {
  check_window_time(now);
  clock_ = [now] { return now; };
  explicit_clock_ = true;
}

void window_slices::use_system_clock() {
  clock_ = stepless_system_seconds;
  explicit_clock_ = false;
}

std::uint64_t window_slices::now() const {
  const std::uint64_t t = clock_();
  check_window_time(t);
  if (explicit_clock_ && !clock_moved_) {
    const std::uint64_t system = system_unix_seconds();
    if (t > system + max_clock_skew) {
      invalid("time " + std::to_string(t) + " is " + std::to_string(t - system) +
              " seconds ahead of the system clock (" + std::to_string(system) +
              "), past the tolerated skew of " + std::to_string(max_clock_skew) +
              " seconds: moving the window there would forget the keys of the last window; if "
              "the clock really moved, say so (set_clock_moved, --clock-moved)");
    }
  }
  return t;
}

void window_slices::invalid(const std::string& problem) {
  throw error(errc::invalid_argument, "window filter: " + problem);
}

void window_slices::refuse_merge() {
  throw error(errc::unsupported,
              "cannot merge window filters: their slices need not cover the same times; insert "
              "the other filter's keys instead");
}

void window_slices::refuse_intersect() {
  throw error(errc::unsupported,
              "cannot intersect window filters: their slices need not cover the same times; "
              "test keys against both instead");
}

void window_slices::validate(const window_config& c) {
  const std::string problem =
      detail::capacity_and_fpp_problem("capacity", c.capacity, c.target_fpp);
  if (!problem.empty()) invalid(problem);
  if (c.unit != window_unit::seconds && c.unit != window_unit::inserts) {
    invalid("unknown window unit " + std::to_string(static_cast<std::uint32_t>(c.unit)));
  }
  if (const std::string slices = detail::range_problem("slices", c.slices, 1, max_slices);
      !slices.empty()) {
    invalid(slices);
  }
  const char* unit = c.unit == window_unit::seconds ? " seconds" : " inserts";
  if (c.length < c.slices || c.length > max_length) {
    invalid("window of " + std::to_string(c.length) + unit + " must be at least one per slice (" +
            std::to_string(c.slices) + ") and at most " + std::to_string(max_length));
  }
}

window_slices::window_slices(const window_config& config)
    : config_(config), clock_(stepless_system_seconds) {
  validate(config);
  slot_slices_.assign(config.slices + std::size_t{1}, no_slice);
}

window_slices::window_slices(const window_config& config, std::vector<std::uint64_t> slot_slices,
                             std::uint64_t inserts)
    : config_(config),
      slot_slices_(std::move(slot_slices)),
      inserts_(inserts),
      clock_(stepless_system_seconds) {
  validate(config_);
  const std::size_t count = config_.slices + std::size_t{1};
  if (slot_slices_.size() != count) {
    invalid(std::to_string(config_.slices) + " slices need " + std::to_string(count) +
            " slots, not " + std::to_string(slot_slices_.size()));
  }
  if (config_.unit == window_unit::seconds && inserts_ != 0) {
    invalid("a time window counts no inserts (got " + std::to_string(inserts_) + ")");
  }
  if (inserts_ > max_inserts) {
    invalid("a count of " + std::to_string(inserts_) + " inserts is past the limit of " +
            std::to_string(max_inserts));
  }
  // Slices of times read as milliseconds would pin the window past every real time.
  const std::uint64_t first_bad_slice = slice_at(millisecond_times);
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t slice = slot_slices_[i];
    const std::string slot = "slot " + std::to_string(i);
    if (slice == no_slice) continue;
    if (slice % count != i) {
      invalid(slot + " holds slice " + std::to_string(slice) + ", which belongs in slot " +
              std::to_string(slice % count));
    }
    if (config_.unit == window_unit::seconds && slice >= first_bad_slice) {
      invalid(slot + " holds slice " + std::to_string(slice) + ", of a time past unix second " +
              std::to_string(millisecond_times));
    }
    if (config_.unit == window_unit::inserts && slice > current_slice()) {
      invalid(slot + " holds slice " + std::to_string(slice) + ", after the current slice " +
              std::to_string(current_slice()) + " of " + std::to_string(inserts_) + " inserts");
    }
  }
}

std::uint64_t window_slices::inserts_per_slice() const noexcept {
  return config_.length / config_.slices + (config_.length % config_.slices != 0 ? 1 : 0);
}

std::uint64_t window_slices::slice_at(std::uint64_t t) const noexcept {
  return slice_of_time(t, config_.length, config_.slices);
}

std::uint64_t window_slices::current_slice() const {
  if (config_.unit == window_unit::inserts) return inserts_ / inserts_per_slice();
  const std::uint64_t clock = slice_at(now());
  const std::uint64_t newest = newest_slice();
  return newest == no_slice ? clock : std::max(clock, newest);
}

std::uint64_t window_slices::newest_slice() const noexcept {
  std::uint64_t newest = no_slice;
  for (const std::uint64_t slice : slot_slices_) {
    if (slice != no_slice && (newest == no_slice || slice > newest)) newest = slice;
  }
  return newest;
}

std::uint64_t window_slices::insert_slice() const {
  const std::uint64_t t = now();
  const std::uint64_t at = slice_at(t);
  const std::uint64_t newest = newest_slice();
  if (newest == no_slice || at >= newest) return at;
  // The default clock behind the newest slice: the clock went back (another process, another
  // host); the key goes to the current slice, kept at least a window from now.
  if (!explicit_clock_) return newest;
  if (newest - at <= config_.slices) return at;  // a backfill into a live slice
  invalid("time " + std::to_string(t) + " is older than the window: its slice " +
          std::to_string(at) + " is more than " + std::to_string(config_.slices) +
          " slices before the newest, " + std::to_string(newest) + " (from unix second " +
          std::to_string(slice_start(newest, config_.length, config_.slices)) +
          "); a key inserted at it could not be remembered, so it is not stored");
}

void window_slices::check_insert_room(std::size_t n) const {
  if (n > max_inserts - inserts_) {
    invalid("the count window has counted " + std::to_string(inserts_) + " inserts; " +
            std::to_string(n) + " more would pass the limit of " + std::to_string(max_inserts));
  }
}

bool window_slices::live(std::size_t slot) const {
  return live(slot_slices_.at(slot), current_slice(), config_.slices);
}

window_slices::taken_slot window_slices::take_slot(std::uint64_t current) {
  const std::size_t slot = current % slot_slices_.size();
  if (slot_slices_[slot] != no_slice && slot_slices_[slot] > current) {
    invalid("slot " + std::to_string(slot) + " holds slice " + std::to_string(slot_slices_[slot]) +
            ", newer than slice " + std::to_string(current) + ": not erased");
  }
  const bool stale = slot_slices_[slot] != current;
  slot_slices_[slot] = current;
  return {slot, stale};
}

void window_slices::reset_slices() {
  std::fill(slot_slices_.begin(), slot_slices_.end(), no_slice);
  inserts_ = 0;
}

}  // namespace bloomkit
