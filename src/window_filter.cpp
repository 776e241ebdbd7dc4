#include "bloomkit/window_filter.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "bloomkit/detail/multiply_high.hpp"
#include "bloomkit/detail/result_slots.hpp"
#include "bloomkit/detail/word_access.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/sizing.hpp"
#include "ceil_div.hpp"
#include "exact_double.hpp"
#include "filter_rules.hpp"
#include "word_mask.hpp"

namespace bloomkit {
namespace {

constexpr std::size_t max_lanes = 4;  // words of at most 256 bits
using mask_lanes = std::array<std::uint64_t, max_lanes>;

// Where one key is: its group's first byte, and its mask.
struct place {
  std::uint64_t group;
  mask_lanes mask;
};

// Keys ahead of the one being tested whose groups are being prefetched: a group is one or two
// lines (S <= 8), so a few dozen keys keep enough misses in flight to cover DRAM latency.
constexpr std::size_t pipeline_lag = 24;
constexpr std::size_t pipeline_ring = 32;  // a power of two > pipeline_lag

// The word operations for words of Lanes 64-bit lanes, read and written as whole lanes with
// memcpy (words sit at any byte offset). Bits of a lane past the word belong to the next word or
// group (or the tail bytes): a write puts back what it read there, which is why there is a
// single writer.
template <unsigned Lanes>
struct word_ops {
  // Whether some bit of the mask is 0 in v.
  static bool lacks(const std::uint64_t (&v)[Lanes], const mask_lanes& mask) noexcept {
    std::uint64_t missing = 0;
    for (unsigned i = 0; i < Lanes; ++i) missing |= mask[i] & ~v[i];
    return missing != 0;
  }
  static bool holds(const unsigned char* word, const mask_lanes& mask) noexcept {
    std::uint64_t v[Lanes];
    std::memcpy(v, word, sizeof v);
    return !lacks(v, mask);
  }
  // ORs the mask in; returns whether a bit was 0.
  static bool set(unsigned char* word, const mask_lanes& mask) noexcept {
    std::uint64_t v[Lanes];
    std::memcpy(v, word, sizeof v);
    if (!lacks(v, mask)) return false;
    for (unsigned i = 0; i < Lanes; ++i) v[i] |= mask[i];
    std::memcpy(word, v, sizeof v);
    return true;
  }
};

// What a batch needs of the filter: the group array, its shape and the slots to ask.
struct group_view {
  unsigned char* base;
  std::uint64_t groups;
  std::uint64_t group_bytes;
  std::uint32_t lines;
  std::uint32_t word_bits;
  std::uint32_t hashes;
  std::uint32_t field_bits;  // word_bits / hashes, once per batch rather than once per key

  static group_view of(unsigned char* base, const window_groups& l) noexcept {
    return {base,          l.groups, l.group_bytes(),         l.lines,
            l.word_bits(), l.hashes, l.word_bits() / l.hashes};
  }

  void locate(std::string_view key, place& at) const noexcept {
    const digest128 d = xxh3_128(key);
    at.group = detail::multiply_high(d.high, groups) * group_bytes;
    detail::word_mask_fields(d.low, field_bits, hashes, (word_bits + 63) / 64, at.mask.data());
  }
  void prefetch(const place& at, bool write) const noexcept {
    const unsigned char* line = base + at.group;
    for (std::uint32_t i = 0; i < lines; ++i, line += 64) {
      if (write) {
        detail::prefetch_write(line);
      } else {
        detail::prefetch_read(line);
      }
    }
  }
};

template <unsigned Lanes>
bool some_holds(const unsigned char* group, const std::uint32_t* offsets, std::size_t count,
                const mask_lanes& mask) noexcept {
  for (std::size_t s = 0; s < count; ++s) {
    if (word_ops<Lanes>::holds(group + offsets[s], mask)) return true;
  }
  return false;
}

// The batch pipeline of both paths: step i locates key i and prefetches its group (for writing
// when `write`), and hands key i - lag to visit(index, place), so that each group is in cache by
// the time its key is tested.
template <class Visit>
void pipeline_groups(const group_view& g, std::span<const std::string_view> keys, bool write,
                     Visit visit) {
  place ring[pipeline_ring];
  const std::size_t n = keys.size();
  const std::size_t lag = n > pipeline_lag ? pipeline_lag : 0;
  for (std::size_t i = 0; i < n + lag; ++i) {
    if (i < n) {
      place& at = ring[i % pipeline_ring];
      g.locate(keys[i], at);
      if (lag != 0) g.prefetch(at, write);
    }
    if (i >= lag) visit(i - lag, ring[(i - lag) % pipeline_ring]);
  }
}

// results[i]: whether a live slot holds keys[i].
template <unsigned Lanes>
std::size_t lookup_groups(const group_view& g, const std::uint32_t* offsets, std::size_t live,
                          std::span<const std::string_view> keys, bool* results) {
  std::size_t present = 0;
  pipeline_groups(g, keys, false, [&](std::size_t i, const place& at) {
    const bool hit = some_holds<Lanes>(g.base + at.group, offsets, live, at.mask);
    results[i] = hit;
    present += hit;
  });
  return present;
}

struct insert_counts {
  std::size_t changed = 0;  // keys that changed the current slot's word
  std::size_t fresh = 0;    // of those, the keys no other live slot holds
};

// Inserts the keys in order into the slot at byte `target` of each group; a key is new when it
// changed that word and no other live slot (`others`) holds it (a repeat within the batch is not
// new, as with a loop of inserts).
template <unsigned Lanes>
insert_counts insert_groups(const group_view& g, std::uint32_t target, const std::uint32_t* others,
                            std::size_t count, std::span<const std::string_view> keys) {
  insert_counts counts;
  pipeline_groups(g, keys, true, [&](std::size_t, const place& at) {
    unsigned char* group = g.base + at.group;
    if (word_ops<Lanes>::set(group + target, at.mask)) {
      ++counts.changed;
      counts.fresh += !some_holds<Lanes>(group, others, count, at.mask);
    }
  });
  return counts;
}

// Calls f.template operator()<Lanes>() for the lanes of w-bit words.
template <class F>
decltype(auto) with_lanes(std::uint32_t word_bits, F f) {
  switch ((word_bits + 63) / 64) {
    case 1:
      return f.template operator()<1>();
    case 2:
      return f.template operator()<2>();
    case 3:
      return f.template operator()<3>();
    default:
      return f.template operator()<4>();
  }
}

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
      slot_inserted_(slot_count(), 0) {}

window_filter::window_filter(const window_config& config, bit_array cells,
                             std::vector<std::uint64_t> slices,
                             std::vector<std::uint64_t> slot_inserted, std::uint64_t inserts)
    : window_slices(config, std::move(slices), inserts),
      layout_(groups_of(config)),
      cells_(std::move(cells)),
      slot_inserted_(std::move(slot_inserted)) {
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

std::size_t window_filter::live_offsets(std::uint64_t current, std::uint32_t* offsets) const {
  std::size_t live = 0;
  for_each_live_slot(current, [&](std::size_t slot) {
    offsets[live++] = static_cast<std::uint32_t>(slot * layout_.word_bytes);
  });
  return live;
}

std::size_t window_filter::insert_run(std::span<const std::string_view> keys,
                                      std::uint64_t current) {
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
  for_each_live_slot(current, [&](std::size_t slot) {
    if (slot != taken.slot) others[count++] = static_cast<std::uint32_t>(slot * layout_.word_bytes);
  });
  const group_view g = group_view::of(base, layout_);
  const insert_counts counts = with_lanes(layout_.word_bits(), [&]<unsigned Lanes>() {
    return insert_groups<Lanes>(g, target, others.data(), count, keys);
  });
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
    return insert_run(keys.subspan(first, count), slice);
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
  const group_view g = group_view::of(
      const_cast<unsigned char*>(reinterpret_cast<const unsigned char*>(cells_.data())), layout_);
  const std::size_t present = with_lanes(layout_.word_bits(), [&]<unsigned Lanes>() {
    return lookup_groups<Lanes>(g, offsets.data(), live, keys, results.data());
  });
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
