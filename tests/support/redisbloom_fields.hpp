#pragma once
// RedisBloom's RDB fields held in memory (redisbloom.hpp's field_source and field_sink), for the
// tests of its RDB codec: what save_fields wrote, read back by load_fields, or hand-made fields.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "bloomkit/compat/redisbloom.hpp"
#include "bloomkit/error.hpp"

namespace bloomkit::test {

struct redisbloom_fields final : redisbloom::field_source, redisbloom::field_sink {
  std::vector<std::variant<std::uint64_t, double, std::string>> fields;
  std::size_t at = 0;
  std::uint64_t read_unsigned() override { return std::get<std::uint64_t>(next()); }
  double read_double() override { return std::get<double>(next()); }
  std::string_view read_string() override { return std::get<std::string>(next()); }
  void write_unsigned(std::uint64_t v) override { fields.emplace_back(v); }
  void write_double(double v) override { fields.emplace_back(v); }
  void write_string(std::string_view s) override { fields.emplace_back(std::string(s)); }
  const std::variant<std::uint64_t, double, std::string>& next() {
    if (at >= fields.size()) throw error(errc::corrupt_file, "fields end");
    return fields[at++];
  }
};

}  // namespace bloomkit::test
