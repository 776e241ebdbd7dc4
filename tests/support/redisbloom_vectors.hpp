#pragma once
// The RedisBloom vectors (tests/data/redisbloom, README there): one JSON file per filter key,
// read from BLOOMKIT_REDISBLOOM_VECTORS when set (another directory of the same schema), else
// from the source tree's copy.

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/json.hpp"

#ifndef BLOOMKIT_REDISBLOOM_DATA
#error "BLOOMKIT_REDISBLOOM_DATA must name tests/data/redisbloom"
#endif

namespace bloomkit::test {

inline std::filesystem::path redisbloom_vectors_dir() {
  const char* env = std::getenv("BLOOMKIT_REDISBLOOM_VECTORS");
  return env != nullptr && *env != '\0' ? std::filesystem::path(env)
                                        : std::filesystem::path(BLOOMKIT_REDISBLOOM_DATA);
}

// Every key file, sorted by name.
inline std::vector<std::filesystem::path> redisbloom_key_files() {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(redisbloom_vectors_dir() / "keys")) {
    if (e.path().extension() == ".json") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace bloomkit::test
