#include "bloomkit/window_slices.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

#include "bloomkit/error.hpp"
#include "filter_rules.hpp"

namespace bloomkit {
namespace {

std::uint64_t system_seconds() {
  const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  return static_cast<std::uint64_t>(std::max<std::int64_t>(
      0, std::chrono::duration_cast<std::chrono::seconds>(since_epoch).count()));
}

}  // namespace

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
    : config_(config), clock_(system_seconds) {
  validate(config);
  slot_slices_.assign(config.slices + std::size_t{1}, no_slice);
}

window_slices::window_slices(const window_config& config, std::vector<std::uint64_t> slot_slices,
                             std::uint64_t inserts)
    : config_(config),
      slot_slices_(std::move(slot_slices)),
      inserts_(inserts),
      clock_(system_seconds) {
  validate(config_);
  const std::size_t count = config_.slices + std::size_t{1};
  if (slot_slices_.size() != count) {
    invalid(std::to_string(config_.slices) + " slices need " + std::to_string(count) +
            " slots, not " + std::to_string(slot_slices_.size()));
  }
  if (config_.unit == window_unit::seconds && inserts_ != 0) {
    invalid("a time window counts no inserts (got " + std::to_string(inserts_) + ")");
  }
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t slice = slot_slices_[i];
    const std::string slot = "slot " + std::to_string(i);
    if (slice == no_slice) continue;
    if (slice % count != i) {
      invalid(slot + " holds slice " + std::to_string(slice) + ", which belongs in slot " +
              std::to_string(slice % count));
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
  return slice_at(now());
}

bool window_slices::live(std::size_t slot) const {
  return live(slot_slices_.at(slot), current_slice(), config_.slices);
}

window_slices::taken_slot window_slices::take_slot(std::uint64_t current) {
  const std::size_t slot = current % slot_slices_.size();
  const bool stale = slot_slices_[slot] != current;
  slot_slices_[slot] = current;
  return {slot, stale};
}

void window_slices::reset_slices() {
  std::fill(slot_slices_.begin(), slot_slices_.end(), no_slice);
  inserts_ = 0;
}

}  // namespace bloomkit
