// The RDB value of a module key (value_codec.hpp).

#include "value_codec.hpp"

#include <algorithm>
#include <string>

#include "filter_image.hpp"

namespace bloomkit::redis_module {

namespace {

constexpr std::uint64_t state_filter = 0;
constexpr std::uint64_t state_loading = 1;

}  // namespace

std::string header_of(const module_value& v) {
  return v.filter ? image_header(*v.filter) : v.loading->header();
}

image_pieces payload_of(const module_value& v) {
  if (v.filter) return image_payload(*v.filter);
  return {v.loading->loaded_payload()};
}

void encode_value(const module_value& v, value_sink& out, std::size_t piece_bytes) {
  const std::string header = header_of(v);
  const image_pieces payload = payload_of(v);
  std::uint64_t bytes = 0;
  for (std::string_view piece : payload) bytes += piece.size();
  out.write_unsigned(v.filter ? state_filter : state_loading);
  out.write_string(header);
  out.write_unsigned(bytes);
  for (std::string_view piece : payload) {
    while (!piece.empty()) {
      const std::size_t n = std::min(piece.size(), piece_bytes);
      out.write_string(piece.substr(0, n));
      piece.remove_prefix(n);
    }
  }
}

std::unique_ptr<module_value> decode_value(value_source& in) {
  const std::uint64_t state = in.read_unsigned();
  if (state != state_filter && state != state_loading) {
    throw image_error("unknown value state " + std::to_string(state));
  }
  auto loader = std::make_unique<image_loader>(in.read_string());
  const std::uint64_t bytes = in.read_unsigned();
  if (bytes > loader->payload_bytes() ||
      (state == state_filter && bytes != loader->payload_bytes())) {
    throw image_error("payload length " + std::to_string(bytes) + " does not match the header");
  }
  while (loader->loaded_bytes() < bytes) {
    const std::string_view piece = in.read_string();
    if (piece.empty() || piece.size() > bytes - loader->loaded_bytes()) {
      throw image_error("payload piece of a wrong length");
    }
    loader->append(piece);
  }
  auto value = std::make_unique<module_value>();
  if (state == state_filter) {
    value->filter = loader->finish();
  } else {
    value->loading = std::move(loader);
  }
  return value;
}

}  // namespace bloomkit::redis_module
