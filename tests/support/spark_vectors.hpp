#pragma once
// Apache Spark's BloomFilter vectors (tests/data/spark, README there): index.json, one manifest
// per filter, the writeTo bytes in .bin files. Read from BLOOMKIT_SPARK_VECTORS when set (another
// directory of the same schema), else from the source tree's copy. The item lists are rebuilt
// from their rules and checked against the manifests' SHA-256 of them (spark_items.hpp).

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <span>
#include <string>

#include "support/json.hpp"
#include "support/sha256.hpp"
#include "support/spark_items.hpp"
#include "support/temp_dir.hpp"  // read_bytes

#ifndef BLOOMKIT_SPARK_DATA
#error "BLOOMKIT_SPARK_DATA must name tests/data/spark"
#endif

namespace bloomkit::test {

inline std::filesystem::path spark_vectors_dir() {
  const char* env = std::getenv("BLOOMKIT_SPARK_VECTORS");
  return env != nullptr && *env != '\0' ? std::filesystem::path(env)
                                        : std::filesystem::path(BLOOMKIT_SPARK_DATA);
}

inline std::string sha256_of(std::span<const unsigned char> bytes) {
  return sha256_hex({reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()});
}

}  // namespace bloomkit::test
