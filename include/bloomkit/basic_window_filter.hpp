#pragma once
// The window as a composition of S + 1 sub-filters (slots) of one storage policy, the layout of
// window files before the grouped one (window_filter.hpp) and of the Redis module's windows:
//
//   blocked_window_filter  = basic_window_filter<blocked_bloom_filter>  (kind "window", scheme 2)
//   classic_window_filter  = basic_window_filter<bloom_filter>          (kind "window", scheme 1)
//
// The window semantics are window_filter's (window_slices.hpp): slice e in slot e mod (S + 1),
// inserts into the current slice (clearing its slot first when it held an older slice), lookups
// over the live slices current - S .. current. Every sub-filter is sized for ceil(capacity / S)
// keys at p / (S + 1): at the stated rate the union bound keeps a lookup's FPP at most p. A key's
// cells sit at the same offsets in every slot, so the batched paths locate a key once and
// prefetch its line in every live slot together (src/kinds/slot_paths.hpp); still one random line
// per slot, which is why window_filter groups a key's words of every slot in adjacent lines.
//
// Thread safety: single writer. A filter that maps a file is read-only and throws
// errc::io_error from lookups once the file changed under it.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "bloomkit/detail/key_bytes.hpp"
#include "bloomkit/filter.hpp"
#include "bloomkit/window_slices.hpp"

namespace bloomkit {

namespace detail {
struct filter_access;
}

template <class SubFilter>
class basic_window_filter : public window_slices,
                            public detail::integral_keys<basic_window_filter<SubFilter>> {
 public:
  using sub_filter_type = SubFilter;
  using policy_type = typename SubFilter::policy_type;
  using digest_type = typename SubFilter::digest_type;

  // Throws errc::invalid_argument naming the parameter when one is out of range, errc::too_large
  // when a slice cannot be sized.
  explicit basic_window_filter(const window_config& config);
  // m, k, capacity ceil(capacity / S) and target p / (S + 1) of every sub-filter.
  static filter_config slice_config(const window_config& config);

  // Inserts the key into the current slice; returns whether no live slice held it before.
  bool insert(std::string_view key);
  // true: probably inserted within the live slices (at least the last W); false: not within W.
  bool contains(std::string_view key) const;
  // Integral keys hash their little-endian bytes.
  using detail::integral_keys<basic_window_filter>::insert;
  using detail::integral_keys<basic_window_filter>::contains;
  // The same results as a loop of insert / contains (lookups batched over every live slice).
  std::size_t insert_many(std::span<const std::string_view> keys);
  // As above, and added[i]: whether keys[i] was new to the window (as insert(keys[i]) in order;
  // the Redis module's BF.MADD). Throws errc::invalid_argument unless added has a slot per key.
  std::size_t insert_many(std::span<const std::string_view> keys, std::span<bool> added);
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
  // Fraction of set cells of slot i (`bloomkit info`).
  double slot_fill_ratio(std::size_t slot) const { return slots_.at(slot).fill_ratio(); }
  // Keys of the fullest live slice: past slice_share() the FPP bound no longer holds (a burst).
  std::uint64_t fullest_slice_keys() const;
  // Cells and bytes of all S + 1 sub-filters.
  std::uint64_t cells() const noexcept;
  std::size_t byte_size() const noexcept;
  std::uint32_t hashes() const noexcept { return slots_.front().hashes(); }
  static constexpr hash_scheme scheme() noexcept { return policy_type::scheme; }
  bool read_only() const noexcept { return slots_.front().read_only(); }
  void check_sources() const;

  // The S + 1 slots, slot i holding slot_slices()[i].
  std::span<const SubFilter> slots() const noexcept { return slots_; }

  // Same configuration, slots and slices, bit for bit (not the clock).
  friend bool operator==(const basic_window_filter& a, const basic_window_filter& b) noexcept {
    return a.same_slices(b) && a.slots_ == b.slots_;
  }

 private:
  friend struct detail::filter_access;
  // A filter from existing slots (loaders). Throws errc::invalid_argument unless they fit the
  // configuration (check_slots).
  basic_window_filter(const window_config& config, std::vector<SubFilter> slots,
                      std::vector<std::uint64_t> slot_slices, std::uint64_t inserts);
  void check_slots() const;
  // Inserts keys (all in slice `current`); returns how many were new to the window, and each
  // key's answer in added unless it is nullptr.
  std::size_t insert_run(std::span<const std::string_view> keys, std::uint64_t current,
                         bool* added);
  // The slots of the live slices at slice `current`, newest first.
  std::vector<const SubFilter*> live_slots(std::uint64_t current) const;
  template <class Visit>
  void for_each_live(std::uint64_t current, Visit visit) const {
    this->for_each_live_slot(current, [&](std::size_t slot) { visit(slots_[slot]); });
  }

  std::vector<SubFilter> slots_;
};

using blocked_window_filter = basic_window_filter<blocked_bloom_filter>;
using classic_window_filter = basic_window_filter<bloom_filter>;

// Instantiated once, in the library (src/kinds/basic_window_filter.cpp).
extern template class basic_window_filter<bloom_filter>;
extern template class basic_window_filter<blocked_bloom_filter>;

static_assert(filter_like<blocked_window_filter>);
static_assert(filter_like<classic_window_filter>);

}  // namespace bloomkit
