#pragma once
// The one access point of loaders (files, peers' formats, Redis mirrors) to filter internals:
// build a filter from its config, its cells and its inserted count; read its cells. Not part of
// the public API.

#include <cstdint>
#include <utility>

#include "bloomkit/bit_array.hpp"
#include "bloomkit/filter.hpp"

namespace bloomkit::detail {

struct filter_access {
  // A filter over existing storage. Throws errc::invalid_argument when the storage does not hold
  // the config's cells or the config is out of range for the filter's policies.
  template <class Filter>
  static Filter make(const filter_config& config, bit_array storage, std::uint64_t inserted) {
    return Filter(config, std::move(storage), inserted);
  }
  template <class Filter>
  static const bit_array& storage(const Filter& f) noexcept {
    return f.cells_;
  }
};

}  // namespace bloomkit::detail
