#pragma once
// Apache Spark's BloomFilter vectors (tests/data/spark, README there): index.json, one manifest
// per filter, the writeTo bytes in .bin files. Read from BLOOMKIT_SPARK_VECTORS when set (another
// directory of the same schema), else from the source tree's copy. The item lists are rebuilt
// from their rules and checked against the manifests' SHA-256 of them.

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "support/json.hpp"
#include "support/sha256.hpp"
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

// The items of a list: their bytes as Spark hashes them (UTF-8, byte arrays; longs as their 8
// little-endian bytes, which putLong hashes), and for longs the values.
struct spark_items {
  std::string type;  // "string", "long" or "binary"
  std::vector<std::string> bytes;
  std::vector<std::int64_t> longs;
};

namespace spark_detail {

inline std::string le_bytes(std::uint64_t v) {
  std::string out;
  for (int i = 0; i < 8; ++i, v >>= 8) out.push_back(static_cast<char>(v & 0xff));
  return out;
}

inline void put_be(std::string& out, std::uint64_t v, int size) {
  for (int i = size - 1; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// An item rule, its fields read once: generate(i) appends item i.
class item_rule {
 public:
  item_rule(const json& g, const std::string& type) {
    const std::string& rule = g["rule"].str();
    if (rule == "prefix_decimal_suffix") {
      form_ = form::decimal;
      prefix_ = g["prefix"].str();
      suffix_ = g["suffix"].str();
    } else if (rule == "mul_add_wrapping") {
      form_ = form::wrapping;
      mul_ = static_cast<std::uint64_t>(std::stoll(g["mul"].number()));
      add_ = static_cast<std::uint64_t>(std::stoll(g["add"].number()));
    } else if (rule == "lead_int32_tail") {
      form_ = form::int32_tail;
      prefix_ = unhex(g["lead_hex"].str());
      big_endian_ = g["int32_byte_order"].str() == "big";
      tail_mod_ = g["tail_mod"].u64();
      mul_ = g["tail_mul"].u64();
    } else {
      throw std::runtime_error("unknown item rule " + rule + " for " + type);
    }
  }

  void generate(std::uint64_t i, spark_items& out) const {
    if (form_ == form::decimal) {
      out.bytes.push_back(prefix_ + std::to_string(i) + suffix_);
    } else if (form_ == form::wrapping) {
      const std::uint64_t v = i * mul_ + add_;
      out.longs.push_back(static_cast<std::int64_t>(v));
      out.bytes.push_back(le_bytes(v));
    } else {
      std::string item = prefix_;
      const auto x = static_cast<std::uint32_t>(i);
      if (big_endian_) {
        put_be(item, x, 4);
      } else {
        item += le_bytes(x).substr(0, 4);
      }
      for (std::uint64_t t = 0; t < i % tail_mod_; ++t) {
        item.push_back(static_cast<char>(0x80 | ((i * mul_ + t) & 0x7f)));
      }
      out.bytes.push_back(std::move(item));
    }
  }

 private:
  enum class form { decimal, wrapping, int32_tail } form_ = form::decimal;
  std::string prefix_, suffix_;
  std::uint64_t mul_ = 0, add_ = 0, tail_mod_ = 1;
  bool big_endian_ = true;
};

}  // namespace spark_detail

// The `count` items of a list: its specials, then its generated items (a prefix of them for the
// big filter's lists). Throws when their SHA-256 is not the manifest's.
inline spark_items spark_item_list(const json& list) {
  const std::uint64_t limit = list["count"].u64();
  spark_items out;
  out.type = list["type"].str();
  const json& specials = list["specials"];
  if (out.type == "long") {
    for (const json& v : specials["values"].items) {
      out.longs.push_back(std::stoll(v.number()));
      out.bytes.push_back(spark_detail::le_bytes(static_cast<std::uint64_t>(out.longs.back())));
    }
  } else {
    for (const json& v : specials["hex"].items) out.bytes.push_back(unhex(v.str()));
  }
  const json& g = list["generated"];
  const std::uint64_t start = g["start"].u64(), count = g["count"].u64();
  const spark_detail::item_rule rule(g, out.type);
  out.bytes.reserve(limit);
  for (std::uint64_t i = start; i < start + count && out.bytes.size() < limit; ++i) {
    rule.generate(i, out);
  }
  if (out.bytes.size() != limit) throw std::runtime_error("the item list is short");
  std::string all;
  std::size_t size = 0;
  for (const std::string& b : out.bytes) size += 4 + b.size();
  all.reserve(size);
  for (const std::string& b : out.bytes) {
    if (out.type == "long") {
      all += std::string(b.rbegin(), b.rend());  // i64be
    } else {
      spark_detail::put_be(all, b.size(), 4);
      all += b;
    }
  }
  const auto* p = reinterpret_cast<const unsigned char*>(all.data());
  if (sha256_of({p, all.size()}) != list["sha256"].str()) {
    throw std::runtime_error("the item list's SHA-256 is not the manifest's");
  }
  return out;
}

}  // namespace bloomkit::test
