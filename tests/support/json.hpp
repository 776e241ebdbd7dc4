#pragma once
// A small JSON reader for test vectors (tests/data/redisbloom, redisbloom-cuckoo, spark):
// objects, arrays, strings with escapes (\uXXXX to UTF-8), numbers kept as their text, true /
// false / null. Throws std::runtime_error naming the offset on malformed input. Compiled once, in
// bloomkit_test_support (json.cpp), at the build's own optimization level, not the test
// programs'.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace bloomkit::test {

struct json {
  enum class type { null, boolean, number, string, array, object };
  type kind = type::null;
  bool flag = false;
  std::string text;  // a string's value, or a number's text
  std::vector<json> items;
  std::map<std::string, json, std::less<>> fields;

  bool is_null() const { return kind == type::null; }
  const json& operator[](std::string_view name) const {
    auto it = fields.find(name);
    if (kind != type::object || it == fields.end()) {
      throw std::runtime_error("JSON: no field " + std::string(name));
    }
    return it->second;
  }
  const json& operator[](std::size_t i) const { return items.at(i); }
  bool has(std::string_view name) const { return fields.find(name) != fields.end(); }
  std::size_t size() const { return items.size(); }
  std::uint64_t u64() const { return std::stoull(number()); }
  double f64() const { return std::stod(number()); }
  const std::string& str() const {
    if (kind != type::string) throw std::runtime_error("JSON: not a string");
    return text;
  }
  const std::string& number() const {
    if (kind != type::number) throw std::runtime_error("JSON: not a number");
    return text;
  }

  // The document s, whole (trailing text is an error).
  static json parse(std::string_view s);
};

// A JSON file, parsed.
json read_json(const std::filesystem::path& path);

// The bytes of a hex string (the vectors' keys and bytes).
std::string unhex(std::string_view hex);

}  // namespace bloomkit::test
