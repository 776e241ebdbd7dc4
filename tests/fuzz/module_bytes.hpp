#pragma once
// The module's RDB value (value_codec.hpp) as plain bytes, for the fuzz targets: an unsigned is
// 8 bytes little-endian, a string a 4-byte little-endian length and its bytes. BF.LOADCHUNK
// inputs are (iterator, data) pairs in the same framing.

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "module_value/filter_image.hpp"
#include "module_value/value_codec.hpp"

namespace bloomkit::test {

class byte_source final : public redis_module::value_source {
 public:
  explicit byte_source(std::string_view in) : in_(in) {}
  std::uint64_t read_unsigned() override {
    std::uint64_t value = 0;
    std::memcpy(&value, take(sizeof value).data(), sizeof value);
    return value;
  }
  std::string_view read_string() override {
    std::uint32_t size = 0;
    std::memcpy(&size, take(sizeof size).data(), sizeof size);
    return take(size);
  }
  bool empty() const noexcept { return in_.empty(); }

 private:
  std::string_view take(std::size_t n) {
    if (in_.size() < n) throw redis_module::image_error("short read");
    const std::string_view out = in_.substr(0, n);
    in_.remove_prefix(n);
    return out;
  }
  std::string_view in_;
};

class byte_sink final : public redis_module::value_sink {
 public:
  void write_unsigned(std::uint64_t value) override {
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void write_string(std::string_view bytes) override {
    const auto size = static_cast<std::uint32_t>(bytes.size());
    out.append(reinterpret_cast<const char*>(&size), sizeof size);
    out.append(bytes);
  }
  std::string out;
};

}  // namespace bloomkit::test
