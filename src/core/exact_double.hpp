#pragma once
// Doubles in error messages and stored metadata, exactly: "%.17g" round-trips every double.

#include <cstdio>
#include <string>

namespace bloomkit::detail {

inline std::string exact_double(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace bloomkit::detail
