#pragma once
// What the parts of the service share (service.cpp: loading the filter; service_recovery.cpp:
// trusting and reloading it; service_routes.cpp: the HTTP handlers).

#include <chrono>

#include "bloomkit/error.hpp"

namespace cache_guard {

using clock = std::chrono::steady_clock;

// Errors that say the filter is missing or broken (rather than Redis being unreachable or
// busy): a reload recreates it.
inline bool filter_is_broken(bloomkit::errc code) {
  using bloomkit::errc;
  return code == errc::not_found || code == errc::wrong_type || code == errc::incompatible ||
         code == errc::corrupt_file;  // a corrupt meta
}

inline double seconds_since(clock::time_point start) {
  return std::chrono::duration<double>(clock::now() - start).count();
}

}  // namespace cache_guard
