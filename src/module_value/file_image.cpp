// Version 2 images, the file format (filter_image.hpp): the module prefix, then the bytes save()
// writes, through the registry's traits (header_of / payload_of to write, load to read).

#include <cstring>
#include <memory>
#include <span>
#include <string>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/bit_array.hpp"
#include "bloomkit/error.hpp"
#include "chunk_iterator.hpp"
#include "file/header_codec.hpp"
#include "image_reader.hpp"
#include "kinds/word_payload.hpp"

namespace bloomkit::redis_module {

namespace {

// magic, version, module flags, 0.
constexpr std::size_t prefix_bytes = 16;
constexpr std::uint32_t flag_nonscaling = 1;

void put_u32(std::string& out, std::uint32_t value) {
  char bytes[sizeof value];
  std::memcpy(bytes, &value, sizeof value);
  out.append(bytes, sizeof value);
}

std::uint32_t get_u32(std::string_view in, std::size_t at) {
  std::uint32_t value = 0;
  std::memcpy(&value, in.data() + at, sizeof value);
  return value;
}

// The tag of a file image's shape (chunk_iterator.hpp): its kind, scheme, bits and payload length.
std::uint32_t file_shape_tag(const file_header& h) noexcept {
  const std::uint64_t shape[] = {static_cast<std::uint64_t>(h.scheme), h.bits, h.payload_length};
  return chunk_shape_tag(static_cast<std::uint8_t>(0x80 | static_cast<std::uint32_t>(h.kind)),
                         shape);
}

// The file's header and payload for `f`, as save() writes them.
struct file_image {
  file_header header;
  detail::file_payload payload;
};

file_image file_image_of(const module_filter& f) {
  return std::visit(
      []<class Filter>(const Filter& filter) {
        detail::file_payload payload = kind_traits<Filter>::payload_of(filter);
        const file_header h =
            detail::sealed_header(kind_traits<Filter>::header_of(filter), payload.parts);
        return file_image{h, std::move(payload)};
      },
      f.filter);
}

// Whether a module key can hold a filter of this kind and scheme.
template <class... Filters>
bool native(filter_kind kind, hash_scheme scheme, filter_list<Filters...>) {
  return ((kind_traits<Filters>::kind == kind && kind_traits<Filters>::scheme == scheme) || ...);
}

class file_reader final : public image_loader::reader {
 public:
  explicit file_reader(std::string_view header) : reader(header) {
    if (header.size() < prefix_bytes + file_header_size) {
      throw image_error("filter image header is truncated");
    }
    const std::uint32_t flags = get_u32(header, 8);
    if ((flags & ~flag_nonscaling) != 0 || get_u32(header, 12) != 0) {
      throw image_error("filter image has unknown module flags " + std::to_string(flags));
    }
    nonscaling_ = (flags & flag_nonscaling) != 0;
    const auto* file = reinterpret_cast<const unsigned char*>(header.data()) + prefix_bytes;
    try {
      file_ = decode_header({file, file_header_size}, "filter image");
    } catch (const error& e) {
      throw image_error(e.what());
    }
    if (header.size() - prefix_bytes != file_.payload_offset) {
      throw image_error("filter image header of " + std::to_string(header.size()) +
                        " bytes, its file header says " +
                        std::to_string(prefix_bytes + file_.payload_offset));
    }
    for (std::size_t i = prefix_bytes + file_header_size; i < header.size(); ++i) {
      if (header[i] != '\0') throw image_error("filter image padding is not zero");
    }
    if (!native(file_.kind, file_.scheme, module_filters{})) {
      throw image_error("filter image of a " + std::string(to_string(file_.kind)) +
                        " filter with hash scheme " + std::string(to_string(file_.scheme)) +
                        ", which the module cannot hold");
    }
    payload_bytes_ = file_.payload_length;
    // Nothing is allocated yet: the payload's memory arrives with its first byte (append), so a
    // header alone (a hostile BF.LOADCHUNK, a corrupt RDB value) never gets what it declares.
  }

  std::size_t allocated_bytes() const noexcept override {
    return received_ ? received_->allocated_bytes() : 0;
  }
  std::vector<std::uint64_t> allocations_for(std::uint64_t bytes) const override {
    if (received_ || bytes == 0 || payload_bytes_ == 0) return {};
    return {(payload_bytes_ + 7) / 8 * 8};  // its words
  }
  std::uint32_t shape_tag() const noexcept override { return file_shape_tag(file_); }
  std::vector<std::string_view> loaded_payload() const override {
    if (!received_) return {};
    return {bytes_of(received_->words()).substr(0, loaded_)};
  }

  void append(std::string_view bytes) override {
    if (bytes.size() > payload_bytes_ - loaded_) {
      throw image_error("filter image payload is longer than its header says");
    }
    if (bytes.empty()) return;
    if (!received_) {
      try {
        if (payload_bytes_ > max_payload_bytes) throw error(errc::too_large, "no such payload");
        received_.emplace(payload_bytes_ * 8);
      } catch (const error& e) {
        throw image_error(std::string("filter image cannot be allocated: ") + e.what());
      }
    }
    std::memcpy(reinterpret_cast<char*>(received_->mutable_words().data()) + loaded_, bytes.data(),
                bytes.size());
    loaded_ += bytes.size();
  }

  // The file's bytes go through the registry's loader, which checks every field and the
  // payload's checksum, reading the received bytes in place as an in-memory file.
  module_filter finish() override {
    if (loaded_ != payload_bytes_) throw image_error("filter image payload is incomplete");
    const auto header = std::string_view(header_).substr(prefix_bytes);
    bit_array payload = received_ ? std::move(*received_) : bit_array();
    received_.reset();
    try {
      const auto file = detail::filter_file_in_memory(
          "filter image", {reinterpret_cast<const unsigned char*>(header.data()), header.size()},
          std::move(payload), loaded_);
      return module_filter{read_any_of<module_filters>(*file, open_mode::load).filter, nonscaling_};
    } catch (const error& e) {
      throw image_error(e.what());
    }
  }

 private:
  // 2^46 bytes: more than a filter holds (the bound of bloomkit's sizes).
  static constexpr std::uint64_t max_payload_bytes = std::uint64_t{1} << 46;

  bool nonscaling_ = false;
  file_header file_;
  std::optional<bit_array> received_;
};

}  // namespace

std::string image_header(const module_filter& f) {
  const file_image image = file_image_of(f);
  std::string out;
  put_u32(out, image_magic);
  put_u32(out, 2);
  put_u32(out, f.nonscaling ? flag_nonscaling : 0);
  put_u32(out, 0);
  const auto encoded = encode_header(image.header);
  out.append(reinterpret_cast<const char*>(encoded.data()), encoded.size());
  out.append(image.header.payload_offset - file_header_size, '\0');
  return out;
}

// The payload and header are not sealed here: BF.SCANDUMP asks for them at every chunk, and
// sealing hashes the whole payload.
image_pieces image_payload(const module_filter& f) {
  detail::file_payload payload = std::visit(
      []<class Filter>(const Filter& filter) { return kind_traits<Filter>::payload_of(filter); },
      f.filter);
  std::vector<std::string_view> pieces;
  for (const auto& part : payload.parts) {
    pieces.emplace_back(reinterpret_cast<const char*>(part.data()), part.size());
  }
  return {std::move(pieces), std::move(payload.owned)};
}

std::uint32_t image_shape_tag(const module_filter& f) {
  return std::visit(
      []<class Filter>(const Filter& filter) {
        file_header h = kind_traits<Filter>::header_of(filter);
        h.payload_length = 0;
        for (const auto& part : kind_traits<Filter>::payload_of(filter).parts) {
          h.payload_length += part.size();
        }
        return file_shape_tag(h);
      },
      f.filter);
}

std::optional<file_header> image_file_header(std::string_view header) {
  const image_loader loader(header);  // checks it
  if (header.size() < prefix_bytes + file_header_size || get_u32(header, 4) != 2) {
    return std::nullopt;
  }
  const auto* file = reinterpret_cast<const unsigned char*>(header.data()) + prefix_bytes;
  return decode_header({file, file_header_size}, "filter image");
}

std::unique_ptr<image_loader::reader> read_file_image(std::string_view header) {
  return std::make_unique<file_reader>(header);
}

}  // namespace bloomkit::redis_module
