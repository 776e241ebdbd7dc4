#include "bloomkit/window_filter.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "bloomkit/detail/result_slots.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/sizing.hpp"
#include "ceil_div.hpp"
#include "exact_double.hpp"
#include "filter_rules.hpp"
#include "window_kernels.hpp"

namespace bloomkit {
namespace {

// The 1-bits of the w-bit word at `word`.
std::uint32_t ones_of(const unsigned char* word, std::uint32_t word_bytes) noexcept {
  std::uint32_t ones = 0;
  std::uint32_t at = 0;
  for (; at + 8 <= word_bytes; at += 8) {
    std::uint64_t v;
    std::memcpy(&v, word + at, 8);
    ones += static_cast<std::uint32_t>(std::popcount(v));
  }
  for (; at < word_bytes; ++at) ones += static_cast<std::uint32_t>(std::popcount(word[at]));
  return ones;
}

}  // namespace

window_groups window_filter::group_shape(std::uint32_t slices) noexcept {
  window_groups g;
  const std::uint64_t count = slices + std::uint64_t{1};
  // 14 bytes (112 bits) per slot at least; whole lines; words of at most 256 bits.
  g.lines = static_cast<std::uint32_t>(detail::ceil_div(14 * count, 64));
  g.word_bytes = static_cast<std::uint32_t>(std::min<std::uint64_t>(32, g.group_bytes() / count));
  return g;
}

window_groups window_filter::groups_of(const window_config& c) {
  validate(c);
  window_groups g = group_shape(c.slices);
  const std::uint64_t keys = detail::ceil_div(c.capacity, c.slices);
  const double target = c.target_fpp / (c.slices + 1);
  try {
    const word_filter_params sized = word_filter_sizing(g.word_bits(), keys, target);
    if (sized.words > max_bits / 8 / g.group_bytes()) {
      throw error(errc::too_large,
                  std::to_string(sized.words) + " groups of " + std::to_string(g.group_bytes()) +
                      " bytes exceed the maximum of " + std::to_string(max_bits) + " bits");
    }
    g.groups = sized.words;
    g.hashes = sized.hashes;
  } catch (const error& e) {
    throw error(errc::too_large, "window filter: a slice of " + std::to_string(keys) +
                                     " keys at fpp " + detail::exact_double(target) + ": " +
                                     e.what());
  }
  return g;
}

window_filter::window_filter(const window_config& config)
    : window_slices(config),
      layout_(groups_of(config)),
      cells_((layout_.groups * layout_.group_bytes() + tail_bytes) * 8),
      slot_inserted_(slot_count(), 0) {
  set_simd(true);
}

window_filter::window_filter(const window_config& config, bit_array cells,
                             std::vector<std::uint64_t> slices,
                             std::vector<std::uint64_t> slot_inserted, std::uint64_t inserts)
    : window_slices(config, std::move(slices), inserts),
      layout_(groups_of(config)),
      cells_(std::move(cells)),
      slot_inserted_(std::move(slot_inserted)) {
  set_simd(true);
  const std::uint64_t bits = (layout_.groups * layout_.group_bytes() + tail_bytes) * 8;
  if (cells_.size() != bits) {
    invalid("the window needs " + std::to_string(bits) + " bits of groups, not " +
            std::to_string(cells_.size()));
  }
  if (slot_inserted_.size() != slot_count()) {
    invalid(std::to_string(slot_count()) + " slots, not " + std::to_string(slot_inserted_.size()));
  }
  for (std::size_t i = 0; i < slot_count(); ++i) {
    if (slot_slices()[i] == no_slice && slot_inserted_[i] != 0) {
      invalid("slot " + std::to_string(i) + " holds no slice but has keys");
    }
  }
}

bool window_filter::simd_supported() noexcept {
  return detail::avx2_window_kernels_if_supported() != nullptr;
}

bool window_filter::simd() const noexcept {
  return kernels_ != &detail::portable_window_kernels();
}

bool window_filter::set_simd(bool enable) noexcept {
  const detail::window_kernels* avx2 = detail::avx2_window_kernels_if_supported();
  kernels_ = enable && avx2 != nullptr ? avx2 : &detail::portable_window_kernels();
  return simd();
}

detail::window_group_view window_filter::group_view(unsigned char* base) const noexcept {
  return {base,          layout_.groups,      layout_.group_bytes(),
          layout_.lines, layout_.word_bits(), layout_.hashes};
}

std::size_t window_filter::live_offsets(std::uint64_t current, std::uint32_t* offsets) const {
  std::size_t live = 0;
  for_each_live_slot(current, [&](std::size_t slot) {
    offsets[live++] = static_cast<std::uint32_t>(slot * layout_.word_bytes);
  });
  return live;
}

std::size_t window_filter::insert_run(std::span<const std::string_view> keys, std::uint64_t current,
                                      bool* added) {
  const taken_slot taken = take_slot(current);
  unsigned char* base = reinterpret_cast<unsigned char*>(cells_.mutable_words().data());
  const std::uint32_t target = static_cast<std::uint32_t>(taken.slot * layout_.word_bytes);
  if (taken.stale) {
    // Rotation: the slot's word in every group.
    for (std::uint64_t g = 0; g < layout_.groups; ++g) {
      std::memset(base + g * layout_.group_bytes() + target, 0, layout_.word_bytes);
    }
    slot_inserted_[taken.slot] = 0;
  }
  std::array<std::uint32_t, max_slices + 1> others;
  std::size_t count = 0;
  // The window's live slices, which a backfill's slice (current) need not be the newest of.
  for_each_live_slot(newest_slice(), [&](std::size_t slot) {
    if (slot != taken.slot) others[count++] = static_cast<std::uint32_t>(slot * layout_.word_bytes);
  });
  const detail::window_insert_counts counts =
      kernels_->insert_many(group_view(base), target, others.data(), count, keys, added);
  slot_inserted_[taken.slot] += counts.changed;
  return counts.fresh;
}

bool window_filter::insert(std::string_view key) {
  const std::string_view keys[] = {key};
  return insert_many(keys) == 1;
}

std::size_t window_filter::insert_many(std::span<const std::string_view> keys) {
  detail::require_writable(read_only());
  return insert_runs(keys.size(), [&](std::size_t first, std::size_t count, std::uint64_t slice) {
    return insert_run(keys.subspan(first, count), slice, nullptr);
  });
}

std::size_t window_filter::insert_many(std::span<const std::string_view> keys,
                                       std::span<bool> added) {
  detail::require_writable(read_only());
  detail::require_result_slots(keys.size(), added.size());
  return insert_runs(keys.size(), [&](std::size_t first, std::size_t count, std::uint64_t slice) {
    return insert_run(keys.subspan(first, count), slice, added.data() + first);
  });
}

bool window_filter::contains(std::string_view key) const {
  bool answer = false;
  contains_many({&key, 1}, {&answer, 1});
  return answer;
}

std::size_t window_filter::contains_many(std::span<const std::string_view> keys,
                                         std::span<bool> results) const {
  detail::require_result_slots(keys.size(), results.size());
  std::array<std::uint32_t, max_slices + 1> offsets;
  const std::size_t live = live_offsets(current_slice(), offsets.data());
  // Lookups never write through the view.
  const std::size_t present = kernels_->contains_many(
      group_view(const_cast<unsigned char*>(reinterpret_cast<const unsigned char*>(cells_.data()))),
      offsets.data(), live, keys, results.data());
  check_sources();
  return present;
}

void window_filter::merge(const window_filter& other) {
  other.check_sources();
  refuse_merge();
}

void window_filter::intersect(const window_filter& other) {
  other.check_sources();
  refuse_intersect();
}

void window_filter::clear() {
  detail::require_writable(read_only());
  cells_.clear();
  std::fill(slot_inserted_.begin(), slot_inserted_.end(), 0);
  reset_slices();
}

std::uint64_t window_filter::slot_ones(std::size_t slot) const noexcept {
  const auto* base = reinterpret_cast<const unsigned char*>(cells_.data());
  const std::uint64_t offset = slot * layout_.word_bytes;
  std::uint64_t ones = 0;
  for (std::uint64_t g = 0; g < layout_.groups; ++g) {
    ones += ones_of(base + g * layout_.group_bytes() + offset, layout_.word_bytes);
  }
  return ones;
}

std::uint64_t window_filter::inserted() const {
  std::uint64_t total = 0;
  for_each_live_slot(current_slice(), [&](std::size_t slot) { total += slot_inserted_[slot]; });
  return total;
}

std::uint64_t window_filter::fullest_slice_keys() const {
  std::uint64_t most = 0;
  for_each_live_slot(current_slice(),
                     [&](std::size_t slot) { most = std::max(most, slot_inserted_[slot]); });
  return most;
}

double window_filter::estimated_fpp() const {
  // A key never inserted hits a word with c ones with probability C(c, k) / C(w, k).
  const std::uint32_t w = layout_.word_bits();
  const std::uint32_t k = layout_.hashes;
  std::vector<double> hit(w + 1, 0.0);
  for (std::uint32_t c = k; c <= w; ++c) {
    double p = 1;
    for (std::uint32_t j = 0; j < k; ++j) p *= static_cast<double>(c - j) / (w - j);
    hit[c] = p;
  }
  const auto* base = reinterpret_cast<const unsigned char*>(cells_.data());
  double all_negative = 1;
  for_each_live_slot(current_slice(), [&](std::size_t slot) {
    double sum = 0;
    for (std::uint64_t g = 0; g < layout_.groups; ++g) {
      sum += hit[ones_of(base + g * layout_.group_bytes() + slot * layout_.word_bytes,
                         layout_.word_bytes)];
    }
    all_negative *= 1 - sum / static_cast<double>(layout_.groups);
  });
  return 1 - all_negative;
}

double window_filter::estimated_count() const {
  double total = 0;
  const std::uint64_t m = layout_.groups * layout_.word_bits();
  for_each_live_slot(current_slice(), [&](std::size_t slot) {
    total += estimate_count(m, layout_.hashes, slot_ones(slot));
  });
  return total;
}

double window_filter::fill_ratio() const {
  std::uint64_t ones = 0;
  std::uint64_t bits = 0;
  for_each_live_slot(current_slice(), [&](std::size_t slot) {
    ones += slot_ones(slot);
    bits += layout_.groups * layout_.word_bits();
  });
  return bits == 0 ? 0 : static_cast<double>(ones) / static_cast<double>(bits);
}

double window_filter::slot_fill_ratio(std::size_t slot) const {
  if (slot >= slot_count()) throw error(errc::invalid_argument, "no slot " + std::to_string(slot));
  return static_cast<double>(slot_ones(slot)) /
         static_cast<double>(layout_.groups * layout_.word_bits());
}

}  // namespace bloomkit
