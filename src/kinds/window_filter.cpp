#include "bloomkit/window_filter.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "../core/ceil_div.hpp"
#include "../core/exact_double.hpp"
#include "../storage/storage_ops.hpp"
#include "bloomkit/detail/result_slots.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/sizing.hpp"
#include "filter_rules.hpp"
#include "slot_paths.hpp"

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
  const auto context = [&] {
    return "window filter: a slice of " + std::to_string(keys) + " keys at fpp " +
           detail::exact_double(target) + ": ";
  };
  detail::with_context(errc::too_large, context, [&] {
    const word_filter_params sized = word_filter_sizing(g.word_bits(), keys, target);
    if (sized.words > max_bits / 8 / g.group_bytes()) {
      throw error(errc::too_large,
                  std::to_string(sized.words) + " groups of " + std::to_string(g.group_bytes()) +
                      " bytes exceed the maximum of " + std::to_string(max_bits) + " bits");
    }
    g.groups = sized.words;
    g.hashes = sized.hashes;
  });
  return g;
}

window_filter::window_filter(const window_config& config)
    : window_slices(config),
      layout_(groups_of(config)),
      cells_((layout_.groups * layout_.group_bytes() + tail_bytes) * 8),
      slot_inserted_(slot_count(), 0),
      overflow_(slot_count()) {
  detail::window_group_storage_ops::init(kernels_);
}

window_filter::window_filter(const window_config& config, bit_array cells,
                             std::vector<std::uint64_t> slices,
                             std::vector<std::uint64_t> slot_inserted, std::uint64_t inserts,
                             std::vector<std::vector<blocked_bloom_filter>> overflow)
    : window_slices(config, std::move(slices), inserts),
      layout_(groups_of(config)),
      cells_(std::move(cells)),
      slot_inserted_(std::move(slot_inserted)),
      overflow_(std::move(overflow)) {
  detail::window_group_storage_ops::init(kernels_);
  if (overflow_.empty()) overflow_.resize(slot_count());
  if (overflow_.size() != slot_count()) {
    invalid(std::to_string(overflow_.size()) + " overflow lists for " +
            std::to_string(slot_count()) + " slots");
  }
  std::optional<filter_config> part;  // sized once, only for a window that has parts
  for (std::size_t i = 0; i < slot_count(); ++i) {
    if (overflow_[i].size() > max_overflow_parts) {
      invalid("slot " + std::to_string(i) + " has " + std::to_string(overflow_[i].size()) +
              " overflow parts, more than " + std::to_string(max_overflow_parts));
    }
    if (!overflow_[i].empty() && slot_slices()[i] == no_slice) {
      invalid("slot " + std::to_string(i) + " holds no slice but has overflow parts");
    }
    for (const blocked_bloom_filter& f : overflow_[i]) {
      if (!part) part = overflow_config();
      if (f.config() != *part) {
        invalid("an overflow part of slot " + std::to_string(i) +
                " is not a blocked filter of the slice's share");
      }
    }
  }
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
  return detail::window_group_storage_ops::simd_supported();
}

bool window_filter::simd() const noexcept {
  return detail::window_group_storage_ops::simd(kernels_);
}

bool window_filter::set_simd(bool enable) noexcept {
  return detail::window_group_storage_ops::set_simd(kernels_, enable);
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
  if (taken.stale) {
    // Rotation: the slot's word in every group, and its overflow parts.
    unsigned char* base = reinterpret_cast<unsigned char*>(cells_.mutable_words().data());
    const std::uint64_t target = taken.slot * layout_.word_bytes;
    for (std::uint64_t g = 0; g < layout_.groups; ++g) {
      std::memset(base + g * layout_.group_bytes() + target, 0, layout_.word_bytes);
    }
    slot_inserted_[taken.slot] = 0;
    overflow_[taken.slot].clear();
  }
  // Runs of at most the room left in the part they go to: the words, then overflow parts (a key
  // adds at most one to its part's count, so no part passes its share).
  const std::uint64_t share = slice_share();
  std::size_t fresh = 0;
  for (std::size_t at = 0; at < keys.size();) {
    std::vector<blocked_bloom_filter>& parts = overflow_[taken.slot];
    const std::uint64_t words_held = slot_inserted_[taken.slot];
    std::uint64_t room = 0;
    bool into_words = false;
    if (parts.empty() && words_held < share) {
      room = share - words_held;
      into_words = true;
    } else {
      if (parts.empty() ||
          (parts.back().inserted() >= share && parts.size() < max_overflow_parts)) {
        const filter_config part = overflow_config();
        parts.push_back(
            detail::filter_access::make<blocked_bloom_filter>(part, bit_array(part.cells), 0));
      }
      const std::uint64_t held = parts.back().inserted();
      room = held < share ? share - held : keys.size();  // the last part allowed takes the rest
    }
    const std::size_t take =
        static_cast<std::size_t>(std::min<std::uint64_t>(room, keys.size() - at));
    const auto run = keys.subspan(at, take);
    bool* answers = added == nullptr ? nullptr : added + at;
    fresh += into_words ? insert_into_words(run, taken.slot, answers)
                        : insert_into_overflow(run, taken.slot, answers);
    at += take;
  }
  return fresh;
}

std::size_t window_filter::insert_into_words(std::span<const std::string_view> keys,
                                             std::size_t slot, bool* added) {
  unsigned char* base = reinterpret_cast<unsigned char*>(cells_.mutable_words().data());
  const std::uint32_t target = static_cast<std::uint32_t>(slot * layout_.word_bytes);
  std::array<std::uint32_t, max_slices + 1> others;
  std::size_t count = 0;
  // The window's live slices, which a backfill's slice need not be the newest of.
  const std::uint64_t newest = newest_slice();
  for_each_live_slot(newest, [&](std::size_t s) {
    if (s != slot) others[count++] = static_cast<std::uint32_t>(s * layout_.word_bytes);
  });
  const std::vector<const blocked_bloom_filter*> parts = live_overflow(newest);
  std::unique_ptr<bool[]> own;  // answers the caller did not ask for, needed below
  if (added == nullptr && !parts.empty()) {
    own = std::make_unique<bool[]>(keys.size());
    added = own.get();
  }
  const detail::window_insert_counts counts = detail::window_group_storage_ops::insert_into_slot(
      kernels_, group_view(base), target, others.data(), count, keys, added);
  slot_inserted_[slot] += counts.changed;
  if (parts.empty() || counts.fresh == 0) return counts.fresh;
  // A key new to every live slot's words may be in an overflow part.
  auto held = std::make_unique<bool[]>(keys.size());
  detail::slot_paths<blocked_bloom_filter>::contains_many(parts, keys, held.get());
  std::size_t fresh = counts.fresh;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (added[i] && held[i]) {
      added[i] = false;
      --fresh;
    }
  }
  return fresh;
}

std::size_t window_filter::insert_into_overflow(std::span<const std::string_view> keys,
                                                std::size_t slot, bool* added) {
  const std::uint64_t newest = newest_slice();
  // Held in a live slot's words (this slot's included)?
  std::array<std::uint32_t, max_slices + 1> offsets;
  const std::size_t live = live_offsets(newest, offsets.data());
  auto in_words = std::make_unique<bool[]>(keys.size());
  detail::window_group_storage_ops::contains_in_slots(
      kernels_, group_view(reinterpret_cast<unsigned char*>(cells_.mutable_words().data())),
      offsets.data(), live, keys, in_words.get());
  std::unique_ptr<bool[]> own;
  if (added == nullptr) {
    own = std::make_unique<bool[]>(keys.size());
    added = own.get();
  }
  // Into the last part, the other live parts asked as the window's other slots are.
  blocked_bloom_filter& target = overflow_[slot].back();
  std::vector<const blocked_bloom_filter*> parts = {&target};
  for (const blocked_bloom_filter* f : live_overflow(newest)) {
    if (f != &target) parts.push_back(f);
  }
  std::size_t fresh =
      detail::slot_paths<blocked_bloom_filter>::insert_many(target, parts, keys, added);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (added[i] && in_words[i]) {
      added[i] = false;
      --fresh;
    }
  }
  return fresh;
}

std::vector<const blocked_bloom_filter*> window_filter::live_overflow(std::uint64_t current) const {
  std::vector<const blocked_bloom_filter*> parts;
  for_each_live_slot(current, [&](std::size_t slot) {
    for (const blocked_bloom_filter& f : overflow_[slot]) parts.push_back(&f);
  });
  return parts;
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
  const std::uint64_t current = current_slice();
  const std::size_t live = live_offsets(current, offsets.data());
  // Lookups never write through the view.
  std::size_t present = detail::window_group_storage_ops::contains_in_slots(
      kernels_,
      group_view(const_cast<unsigned char*>(reinterpret_cast<const unsigned char*>(cells_.data()))),
      offsets.data(), live, keys, results.data());
  if (present < keys.size()) {
    // The overflow parts of live slices (a burst's), for the keys the words do not hold.
    const std::vector<const blocked_bloom_filter*> parts = live_overflow(current);
    if (!parts.empty()) {
      auto held = std::make_unique<bool[]>(keys.size());
      detail::slot_paths<blocked_bloom_filter>::contains_many(parts, keys, held.get());
      for (std::size_t i = 0; i < keys.size(); ++i) {
        if (!results[i] && held[i]) {
          results[i] = true;
          ++present;
        }
      }
    }
  }
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
  for (auto& parts : overflow_) parts.clear();
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
  for_each_live_slot(current_slice(), [&](std::size_t slot) {
    total += slot_inserted_[slot];
    for (const blocked_bloom_filter& f : overflow_[slot]) total += f.inserted();
  });
  return total;
}

std::size_t window_filter::byte_size() const noexcept {
  std::size_t bytes = cells_.byte_size();
  for (const auto& parts : overflow_) {
    for (const blocked_bloom_filter& f : parts) bytes += f.byte_size();
  }
  return bytes;
}

void window_filter::check_sources() const {
  cells_.check_source();
  for (const auto& parts : overflow_) {
    for (const blocked_bloom_filter& f : parts) f.storage().check_source();
  }
}

std::uint64_t window_filter::fullest_slice_keys() const {
  std::uint64_t most = 0;
  for_each_live_slot(current_slice(), [&](std::size_t slot) {
    most = std::max(most, slot_inserted_[slot]);
    for (const blocked_bloom_filter& f : overflow_[slot]) most = std::max(most, f.inserted());
  });
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
    for (const blocked_bloom_filter& f : overflow_[slot]) all_negative *= 1 - f.estimated_fpp();
  });
  return 1 - all_negative;
}

double window_filter::estimated_count() const {
  double total = 0;
  const std::uint64_t m = layout_.groups * layout_.word_bits();
  for_each_live_slot(current_slice(), [&](std::size_t slot) {
    total += estimate_count(m, layout_.hashes, slot_ones(slot));
    for (const blocked_bloom_filter& f : overflow_[slot]) total += f.estimated_count();
  });
  return total;
}

double window_filter::fill_ratio() const {
  std::uint64_t ones = 0;
  std::uint64_t bits = 0;
  for_each_live_slot(current_slice(), [&](std::size_t slot) {
    ones += slot_ones(slot);
    bits += layout_.groups * layout_.word_bits();
    for (const blocked_bloom_filter& f : overflow_[slot]) {
      ones += f.storage().count();
      bits += f.cells();
    }
  });
  return bits == 0 ? 0 : static_cast<double>(ones) / static_cast<double>(bits);
}

double window_filter::slot_fill_ratio(std::size_t slot) const {
  if (slot >= slot_count()) throw error(errc::invalid_argument, "no slot " + std::to_string(slot));
  return static_cast<double>(slot_ones(slot)) /
         static_cast<double>(layout_.groups * layout_.word_bits());
}

}  // namespace bloomkit
