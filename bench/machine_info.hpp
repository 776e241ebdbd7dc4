#pragma once
// Reading the machine's description (/proc/cpuinfo, /proc/meminfo, sysfs) for the machine line
// a benchmark reports its figures with.

#include <fstream>
#include <string>
#include <string_view>

namespace bloomkit::bench {

// The first line of `path` starting with `prefix` ("" if none).
inline std::string first_line_with(const char* path, std::string_view prefix) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(prefix, 0) == 0) return line;
  }
  return {};
}

// What follows "name:" in a "name : value" line, blanks trimmed (the line itself if no colon).
inline std::string after_colon(const std::string& line) {
  const auto colon = line.find(':');
  if (colon == std::string::npos) return line;
  const auto start = line.find_first_not_of(" \t", colon + 1);
  return start == std::string::npos ? std::string() : line.substr(start);
}

}  // namespace bloomkit::bench
