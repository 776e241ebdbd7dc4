// The image of a module filter (filter_image.hpp): the loader of any version.

#include "filter_image.hpp"

#include <cstring>

#include "image_reader.hpp"

namespace bloomkit::redis_module {

image_loader::image_loader(std::string_view header) {
  std::uint32_t magic_version[2] = {0, 0};
  if (header.size() < sizeof magic_version) throw image_error("filter image header is truncated");
  std::memcpy(magic_version, header.data(), sizeof magic_version);
  if (magic_version[0] != image_magic) throw image_error("not a bloomkit filter image");
  switch (magic_version[1]) {
    case 1:
      reader_ = read_v1_image(header);
      break;
    case 2:
      reader_ = read_file_image(header);
      break;
    default:
      throw image_error("filter image version " + std::to_string(magic_version[1]) +
                        " is not supported");
  }
}

image_loader::~image_loader() = default;

const std::string& image_loader::header() const noexcept {
  return reader_->header();
}
std::uint64_t image_loader::payload_bytes() const noexcept {
  return reader_->payload_bytes();
}
std::uint64_t image_loader::loaded_bytes() const noexcept {
  return reader_->loaded_bytes();
}
std::size_t image_loader::allocated_bytes() const noexcept {
  return reader_->allocated_bytes();
}
std::vector<std::uint64_t> image_loader::allocations_for(std::uint64_t bytes) const {
  return reader_->allocations_for(bytes);
}
std::uint32_t image_loader::shape_tag() const noexcept {
  return reader_->shape_tag();
}
std::vector<std::string_view> image_loader::loaded_payload() const {
  return reader_->loaded_payload();
}
void image_loader::append(std::string_view bytes) {
  reader_->append(bytes);
}
module_filter image_loader::finish() {
  return reader_->finish();
}

}  // namespace bloomkit::redis_module
