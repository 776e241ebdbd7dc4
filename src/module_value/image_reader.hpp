#pragma once
// Internal: the reader of one image version behind image_loader (filter_image.hpp): version 1
// (v1_image.cpp, converted on read) and version 2, the file format (file_image.cpp).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "filter_image.hpp"

namespace bloomkit::redis_module {

class image_loader::reader {
 public:
  explicit reader(std::string_view header) : header_(header) {}
  virtual ~reader() = default;

  const std::string& header() const noexcept { return header_; }
  std::uint64_t payload_bytes() const noexcept { return payload_bytes_; }
  std::uint64_t loaded_bytes() const noexcept { return loaded_; }
  virtual std::size_t allocated_bytes() const noexcept = 0;
  virtual std::vector<std::uint64_t> allocations_for(std::uint64_t bytes) const = 0;
  virtual std::uint32_t shape_tag() const noexcept = 0;
  virtual std::vector<std::string_view> loaded_payload() const = 0;
  virtual void append(std::string_view bytes) = 0;
  virtual module_filter finish() = 0;

 protected:
  std::string header_;
  std::uint64_t payload_bytes_ = 0;
  std::uint64_t loaded_ = 0;
};

inline constexpr std::uint32_t image_magic = 0x4d524b42;  // "BKRM"

// Readers of a header of version 1 and 2 (magic and version already checked).
std::unique_ptr<image_loader::reader> read_v1_image(std::string_view header);
std::unique_ptr<image_loader::reader> read_file_image(std::string_view header);

// The byte view of words.
inline std::string_view bytes_of(std::span<const std::uint64_t> words) {
  return {reinterpret_cast<const char*>(words.data()), words.size() * sizeof(std::uint64_t)};
}

}  // namespace bloomkit::redis_module
