#include "bloomkit/basic_window_filter.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "../core/ceil_div.hpp"
#include "../core/exact_double.hpp"
#include "bloomkit/detail/filter_access.hpp"
#include "bloomkit/detail/result_slots.hpp"
#include "bloomkit/error.hpp"
#include "filter_rules.hpp"
#include "slot_paths.hpp"
#include "sub_filter_sizing.hpp"

namespace bloomkit {

template <class Sub>
filter_config basic_window_filter<Sub>::slice_config(const window_config& c) {
  validate(c);
  filter_config config{0, 0, detail::ceil_div(c.capacity, c.slices), c.target_fpp / (c.slices + 1)};
  const filter_params sized = detail::with_context(
      errc::too_large,
      [&] {
        return "window filter: a slice of " + std::to_string(config.capacity) + " keys at fpp " +
               detail::exact_double(config.target_fpp) + ": ";
      },
      [&] { return detail::window_slot_sizing<Sub>::size(config.capacity, config.target_fpp); });
  config.cells = sized.bits;
  config.hashes = sized.hashes;
  return config;
}

template <class Sub>
basic_window_filter<Sub>::basic_window_filter(const window_config& config) : window_slices(config) {
  const filter_config slice = slice_config(config);
  slots_.reserve(config.slices + 1);
  for (std::uint32_t i = 0; i <= config.slices; ++i) {
    slots_.push_back(detail::filter_access::make<Sub>(slice, bit_array(slice.cells), 0));
  }
}

template <class Sub>
basic_window_filter<Sub>::basic_window_filter(const window_config& config, std::vector<Sub> slots,
                                              std::vector<std::uint64_t> slot_slices,
                                              std::uint64_t inserts)
    : window_slices(config, std::move(slot_slices), inserts), slots_(std::move(slots)) {
  check_slots();
}

template <class Sub>
void basic_window_filter<Sub>::check_slots() const {
  const window_config& window = config();
  const std::size_t count = slot_count();
  if (slots_.size() != count) {
    invalid(std::to_string(window.slices) + " slices need " + std::to_string(count) +
            " slots, not " + std::to_string(slots_.size()));
  }
  const std::uint64_t capacity = detail::ceil_div(window.capacity, window.slices);
  const double target = window.target_fpp / (window.slices + 1);
  for (std::size_t i = 0; i < count; ++i) {
    const filter_config& c = slots_[i].config();
    const std::string slot = "slot " + std::to_string(i);
    if (c != slots_.front().config()) invalid(slot + " differs from slot 0 in size");
    if (c.capacity != capacity || !(std::fabs(c.target_fpp - target) <= 1e-9 * target)) {
      invalid(slot + " is sized for " + std::to_string(c.capacity) + " keys at fpp " +
              detail::exact_double(c.target_fpp) + " where the window demands " +
              std::to_string(capacity) + " at " + detail::exact_double(target));
    }
    try {
      detail::window_slot_sizing<Sub>::check(c.cells, c.hashes);
    } catch (const error& e) {
      invalid(slot + ": " + e.what());
    }
    const double fpp = detail::window_slot_sizing<Sub>::fpp(c.cells, c.hashes, c.capacity);
    if (!(fpp <= target * (1 + 1e-9))) {
      invalid(slot + " has an expected FPP of " + detail::exact_double(fpp) +
              " at its capacity, above its target " + detail::exact_double(target));
    }
    if (slot_slices()[i] == no_slice && slots_[i].inserted() != 0) {
      invalid(slot + " holds no slice but has keys");
    }
  }
}

template <class Sub>
std::vector<const Sub*> basic_window_filter<Sub>::live_slots(std::uint64_t current) const {
  std::vector<const Sub*> live;
  live.reserve(slots_.size());
  for_each_live(current, [&](const Sub& f) { live.push_back(&f); });
  return live;
}

template <class Sub>
std::size_t basic_window_filter<Sub>::insert_run(std::span<const std::string_view> keys,
                                                 std::uint64_t current, bool* added) {
  // The current slice's slot first, then the older live ones: a key is new unless one of them
  // holds it, and a repeat within the run is not new, exactly as a loop of insert().
  const taken_slot taken = take_slot(current);
  Sub& target = slots_[taken.slot];
  if (taken.stale) target.clear();
  std::vector<const Sub*> slots = {&target};
  // The window's live slices, which a backfill's slice (current) need not be the newest of.
  for_each_live(newest_slice(), [&](const Sub& f) {
    if (&f != &target) slots.push_back(&f);
  });
  return detail::slot_paths<Sub>::insert_many(target, slots, keys, added);
}

template <class Sub>
bool basic_window_filter<Sub>::insert(std::string_view key) {
  const std::string_view keys[] = {key};
  return insert_many(keys) == 1;
}

template <class Sub>
std::size_t basic_window_filter<Sub>::insert_many(std::span<const std::string_view> keys) {
  detail::require_writable(read_only());
  return insert_runs(keys.size(), [&](std::size_t first, std::size_t count, std::uint64_t slice) {
    return insert_run(keys.subspan(first, count), slice, nullptr);
  });
}

template <class Sub>
std::size_t basic_window_filter<Sub>::insert_many(std::span<const std::string_view> keys,
                                                  std::span<bool> added) {
  detail::require_writable(read_only());
  detail::require_result_slots(keys.size(), added.size());
  return insert_runs(keys.size(), [&](std::size_t first, std::size_t count, std::uint64_t slice) {
    return insert_run(keys.subspan(first, count), slice, added.data() + first);
  });
}

template <class Sub>
bool basic_window_filter<Sub>::contains(std::string_view key) const {
  const digest_type digest = Sub::digest_of(key);
  bool present = false;
  for_each_live(current_slice(),
                [&](const Sub& f) { present = present || f.contains_digest_unchecked(digest); });
  check_sources();
  return present;
}

template <class Sub>
std::size_t basic_window_filter<Sub>::contains_many(std::span<const std::string_view> keys,
                                                    std::span<bool> results) const {
  detail::require_result_slots(keys.size(), results.size());
  const std::vector<const Sub*> live = live_slots(current_slice());
  if (live.empty()) {
    std::fill(results.begin(), results.end(), false);
    return 0;
  }
  const std::size_t present = detail::slot_paths<Sub>::contains_many(live, keys, results.data());
  check_sources();
  return present;
}

template <class Sub>
void basic_window_filter<Sub>::merge(const basic_window_filter& other) {
  other.check_sources();
  refuse_merge();
}

template <class Sub>
void basic_window_filter<Sub>::intersect(const basic_window_filter& other) {
  other.check_sources();
  refuse_intersect();
}

template <class Sub>
void basic_window_filter<Sub>::clear() {
  detail::require_writable(read_only());
  for (Sub& f : slots_) f.clear();
  reset_slices();
}

template <class Sub>
std::uint64_t basic_window_filter<Sub>::inserted() const {
  std::uint64_t total = 0;
  for_each_live(current_slice(), [&](const Sub& f) { total += f.inserted(); });
  return total;
}

template <class Sub>
std::uint64_t basic_window_filter<Sub>::fullest_slice_keys() const {
  std::uint64_t most = 0;
  for_each_live(current_slice(), [&](const Sub& f) { most = std::max(most, f.inserted()); });
  return most;
}

template <class Sub>
double basic_window_filter<Sub>::estimated_fpp() const {
  double all_negative = 1;
  for_each_live(current_slice(), [&](const Sub& f) { all_negative *= 1 - f.estimated_fpp(); });
  return 1 - all_negative;
}

template <class Sub>
double basic_window_filter<Sub>::estimated_count() const {
  double total = 0;
  for_each_live(current_slice(), [&](const Sub& f) { total += f.estimated_count(); });
  return total;
}

template <class Sub>
double basic_window_filter<Sub>::fill_ratio() const {
  std::uint64_t set = 0;
  std::uint64_t cells = 0;
  for_each_live(current_slice(), [&](const Sub& f) {
    set += f.storage().count();
    cells += f.cells();
  });
  return cells == 0 ? 0 : static_cast<double>(set) / static_cast<double>(cells);
}

template <class Sub>
std::uint64_t basic_window_filter<Sub>::cells() const noexcept {
  return slots_.front().cells() * slots_.size();
}

template <class Sub>
std::size_t basic_window_filter<Sub>::byte_size() const noexcept {
  return slots_.front().byte_size() * slots_.size();
}

template <class Sub>
void basic_window_filter<Sub>::check_sources() const {
  for (const Sub& f : slots_) f.storage().check_source();
}

template class basic_window_filter<bloom_filter>;
template class basic_window_filter<blocked_bloom_filter>;

}  // namespace bloomkit
