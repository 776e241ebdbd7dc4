#pragma once
// The check every batched lookup makes of the span it writes its answers to.

#include <cstddef>
#include <string>

#include "bloomkit/error.hpp"

namespace bloomkit::detail {

// Throws errc::invalid_argument unless there is exactly one result slot per key.
inline void require_result_slots(std::size_t keys, std::size_t slots,
                                 const char* operation = "contains_many") {
  if (slots != keys) {
    throw error(errc::invalid_argument, std::string(operation) + ": " + std::to_string(keys) +
                                            " keys but room for " + std::to_string(slots) +
                                            " results");
  }
}

}  // namespace bloomkit::detail
