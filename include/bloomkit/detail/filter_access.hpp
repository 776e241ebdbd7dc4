#pragma once
// The one access point of loaders (files, peers' formats, Redis mirrors) to filter internals:
// build a filter from its config, its cells and its inserted count (a scalable one from its
// chain parameters and sub-filters, a window from its slots); read its cells. Not part of the
// public API.

#include <cstdint>
#include <utility>
#include <vector>

#include "bloomkit/bit_array.hpp"
#include "bloomkit/filter.hpp"
#include "bloomkit/scalable_filter.hpp"
#include "bloomkit/window_filter.hpp"

namespace bloomkit::detail {

struct filter_access {
  // A filter over existing storage. Throws errc::invalid_argument when the storage does not hold
  // the config's cells or the config is out of range for the filter's policies.
  template <class Filter>
  static Filter make(const filter_config& config, bit_array storage, std::uint64_t inserted) {
    return Filter(config, std::move(storage), inserted);
  }
  // Throws errc::invalid_argument unless the sub-filters form a valid chain (check_chain).
  template <class Scalable, class SubFilter>
  static Scalable make_chain(const scalable_config& params, std::vector<SubFilter> sub_filters) {
    return Scalable(params, std::move(sub_filters));
  }
  // Throws errc::invalid_argument unless the slots fit the window's configuration.
  template <class Window, class SubFilter>
  static Window make_window(const window_config& config, std::vector<SubFilter> slots,
                            std::vector<std::uint64_t> slot_slices, std::uint64_t inserts) {
    return Window(config, std::move(slots), std::move(slot_slices), inserts);
  }
  // A grouped window over its words (window_filter.hpp). Throws errc::invalid_argument unless
  // they fit the window's configuration.
  static window_filter make_grouped_window(
      const window_config& config, bit_array cells, std::vector<std::uint64_t> slot_slices,
      std::vector<std::uint64_t> slot_inserted, std::uint64_t inserts,
      std::vector<std::vector<blocked_bloom_filter>> overflow = {}) {
    return window_filter(config, std::move(cells), std::move(slot_slices), std::move(slot_inserted),
                         inserts, std::move(overflow));
  }
  template <class Filter>
  static const bit_array& storage(const Filter& f) noexcept {
    return f.cells_;
  }
  // For pipelines over the slots of a window (src/kinds/slot_paths.hpp): a filter's words to write,
  // its count of inserts, and its storage's state (a blocked filter's kernels).
  template <class Filter>
  static std::uint64_t* writable_words(Filter& f) {
    return f.writable_words();
  }
  template <class Filter>
  static void add_inserted(Filter& f, std::uint64_t n) noexcept {
    f.template add_inserted<false>(n);
  }
  template <class Filter>
  static const auto& storage_state(const Filter& f) noexcept {
    return f.state_;
  }
};

}  // namespace bloomkit::detail
