#pragma once
// The image of a module filter, the one encoding of RDB values, AOF rewrites (as BF.LOADCHUNK
// commands) and BF.SCANDUMP / BF.LOADCHUNK: a header (magic, version, kind, parameters, each
// sub-filter's config and count, payload length and XXH64, then the XXH64 of the header itself),
// then the payload: every sub-filter's words in order, little-endian. Any size: the payload is
// written and read in pieces, so a filter past Redis's 512 MB string limit round-trips.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/bit_array.hpp"
#include "module_filter.hpp"

namespace bloomkit::redis_module {

// The image version the module writes (tests/data/golden/module keeps each version's bytes).
inline constexpr std::uint32_t image_version_written = 1;

// A bad header or payload; what() says what is wrong.
struct image_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Whether a filter of this kind and hash scheme has an image (image_header throws image_error for
// one that has not).
bool has_image(filter_kind kind, hash_scheme scheme) noexcept;

// The header of `f` and its payload as byte views of its words (no copy).
std::string image_header(const module_filter& f);
std::vector<std::string_view> image_payload(const module_filter& f);
// The tag of the image's shape (its kind and part sizes) that BF.SCANDUMP's iterators carry
// (chunk_iterator.hpp): image_loader::shape_tag() of its header.
std::uint32_t image_shape_tag(const module_filter& f);

// Calls emit(bytes) for the payload in order, in slices of at most `limit` bytes (a slice never
// spans two pieces): the BF.LOADCHUNK commands of an AOF rewrite and of `redis push --module`.
template <class Emit>
void for_each_payload_slice(const std::vector<std::string_view>& pieces, std::size_t limit,
                            Emit emit) {
  for (std::string_view piece : pieces) {
    while (!piece.empty()) {
      const std::size_t n = piece.size() < limit ? piece.size() : limit;
      emit(piece.substr(0, n));
      piece.remove_prefix(n);
    }
  }
}

// Rebuilds a filter from its header and payload bytes, in pieces of any size.
class image_loader {
 public:
  // Throws image_error when the header is malformed, has a bad checksum or inconsistent fields.
  explicit image_loader(std::string_view header);

  const std::string& header() const noexcept { return header_; }
  std::uint64_t payload_bytes() const noexcept { return payload_bytes_; }
  std::uint64_t loaded_bytes() const noexcept { return loaded_; }
  bool complete() const noexcept { return loaded_ == payload_bytes_; }
  // Bytes of the parts allocated so far, as their allocator counts them (MEMORY USAGE).
  std::size_t allocated_bytes() const noexcept;
  // The sizes of the parts that append() of `bytes` more bytes would allocate (a check of the
  // memory before it allocates).
  std::vector<std::uint64_t> allocations_for(std::uint64_t bytes) const;
  // A tag of the image's shape (kind and part sizes): chunk_iterator.hpp.
  std::uint32_t shape_tag() const noexcept;
  // The payload received so far, as byte views.
  std::vector<std::string_view> loaded_payload() const;

  // Appends bytes after loaded_bytes(), allocating each sub-filter when its first byte arrives
  // (the header alone allocates nothing). Throws image_error past the payload's end (nothing
  // appended) or when a sub-filter cannot be allocated (the bytes before it stay appended).
  void append(std::string_view bytes);
  // The filter, once complete(): throws image_error when the payload's checksum or the filter's
  // fields do not hold.
  module_filter finish();

 private:
  std::string header_;
  std::uint8_t kind_ = 0;
  bool nonscaling_ = false;
  scalable_config chain_;
  window_config window_;
  std::uint64_t window_inserts_ = 0;
  std::vector<filter_config> configs_;
  std::vector<std::uint64_t> inserted_;
  std::vector<std::uint64_t> slot_slices_;
  std::vector<std::uint64_t> part_bits_;
  std::vector<std::uint64_t> part_bytes_;
  // The parts allocated so far: one per part whose first byte has arrived (append).
  std::vector<bit_array> words_;
  std::uint64_t payload_bytes_ = 0;
  std::uint64_t payload_hash_ = 0;
  std::uint64_t loaded_ = 0;
};

}  // namespace bloomkit::redis_module
