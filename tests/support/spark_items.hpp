#pragma once
// The item lists of Apache Spark's BloomFilter vectors (spark_vectors.hpp): each manifest gives a
// list as a few special items and a rule that generates the rest, with the SHA-256 of the whole
// list. Made in spark_items.cpp, at the build's optimization level (tests/support/CMakeLists.txt):
// under ASan the test programs compile at -O0, where making the lists was 70% of the vector
// tests' time.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/json.hpp"

namespace bloomkit::test {

// The items of a list: their bytes as Spark hashes them (UTF-8, byte arrays; longs as their 8
// little-endian bytes, which putLong hashes), and for longs the values. The bytes are views of
// one buffer the items own, so they are moved, never copied.
class spark_items {
 public:
  std::string type;  // "string", "long" or "binary"
  std::vector<std::string_view> bytes;
  std::vector<std::int64_t> longs;

  spark_items() = default;
  spark_items(spark_items&&) = default;
  spark_items& operator=(spark_items&&) = default;
  spark_items(const spark_items&) = delete;
  spark_items& operator=(const spark_items&) = delete;

  // Room for the next item, of `size` bytes, at the end of the buffer.
  char* append(std::size_t size);
  // Sets `bytes`, once every item is appended.
  void seal();
  std::size_t size() const { return ends_.size(); }

 private:
  std::vector<char> storage_;  // a move keeps its address, so the views stay valid
  std::vector<std::size_t> ends_;
};

// The `count` items of a list: its specials, then its generated items (a prefix of them for the
// big filter's lists). Throws when their SHA-256 is not the manifest's.
spark_items spark_item_list(const json& list);

}  // namespace bloomkit::test
