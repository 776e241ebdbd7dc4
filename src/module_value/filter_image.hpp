#pragma once
// The image of a module filter, the one encoding of RDB values, AOF rewrites (as BF.LOADCHUNK
// commands), DUMP / RESTORE and BF.SCANDUMP / BF.LOADCHUNK (docs/REDIS.md, "Images"). Version 2,
// written today: a 16-byte module prefix (magic "BKRM", version, the module's flags, 0), then
// exactly the bytes save() writes for a file of the filter (docs/FORMAT.md: the 128-byte header,
// zero padding to the payload offset, the payload). The image's header is the prefix and the
// file's bytes before its payload; its payload is the file's. Version 1 images (written before,
// tests/data/golden/module) still load and are converted on read. Any size: the payload is
// written and read in pieces, so a filter past Redis's 512 MB string limit round-trips.

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "module_filter.hpp"

namespace bloomkit::redis_module {

// The image version the module writes (tests/data/golden/module keeps each version's bytes).
inline constexpr std::uint32_t image_version_written = 2;

// A bad header or payload; what() says what is wrong.
struct image_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An image's payload as byte views, in order, and the bytes built for it (a chain's or window's
// table) that they may point into: move-only, so that the views stay valid.
struct image_pieces {
  std::vector<std::string_view> pieces;
  std::vector<unsigned char> owned;

  image_pieces() = default;
  image_pieces(std::vector<std::string_view> p, std::vector<unsigned char> o = {})
      : pieces(std::move(p)), owned(std::move(o)) {}
  image_pieces(image_pieces&&) = default;
  image_pieces& operator=(image_pieces&&) = default;
  image_pieces(const image_pieces&) = delete;
  image_pieces& operator=(const image_pieces&) = delete;
  auto begin() const noexcept { return pieces.begin(); }
  auto end() const noexcept { return pieces.end(); }
};

// The header of `f` and its payload (views of its words, no copy).
std::string image_header(const module_filter& f);
image_pieces image_payload(const module_filter& f);
// The tag of the image's shape that BF.SCANDUMP's iterators carry (chunk_iterator.hpp): what
// image_loader::shape_tag() says of its header.
std::uint32_t image_shape_tag(const module_filter& f);

// The file header of a version 2 image's header (decoded and checked as a file's); none for a
// version 1 image. Throws image_error when it is not a valid image header.
std::optional<file_header> image_file_header(std::string_view header);

// Calls emit(bytes) for the payload in order, in slices of at most `limit` bytes (a slice never
// spans two pieces): the BF.LOADCHUNK commands of an AOF rewrite and of `redis push --module`.
template <class Pieces, class Emit>
void for_each_payload_slice(const Pieces& pieces, std::size_t limit, Emit emit) {
  for (std::string_view piece : pieces) {
    while (!piece.empty()) {
      const std::size_t n = piece.size() < limit ? piece.size() : limit;
      emit(piece.substr(0, n));
      piece.remove_prefix(n);
    }
  }
}

// Rebuilds a filter from its header and payload bytes, in pieces of any size, from an image of
// any version.
class image_loader {
 public:
  // Throws image_error when the header is malformed, has a bad checksum or inconsistent fields.
  explicit image_loader(std::string_view header);
  ~image_loader();
  image_loader(const image_loader&) = delete;
  image_loader& operator=(const image_loader&) = delete;

  const std::string& header() const noexcept;
  std::uint64_t payload_bytes() const noexcept;
  std::uint64_t loaded_bytes() const noexcept;
  bool complete() const noexcept { return loaded_bytes() == payload_bytes(); }
  // Bytes allocated so far, as their allocator counts them (MEMORY USAGE).
  std::size_t allocated_bytes() const noexcept;
  // The sizes of what append() of `bytes` more bytes would allocate (a check of the memory
  // before it allocates).
  std::vector<std::uint64_t> allocations_for(std::uint64_t bytes) const;
  // A tag of the image's shape (kind and sizes): chunk_iterator.hpp.
  std::uint32_t shape_tag() const noexcept;
  // The payload received so far, as byte views.
  std::vector<std::string_view> loaded_payload() const;

  // Appends bytes after loaded_bytes(), allocating memory when the first bytes that need it
  // arrive (the header alone allocates nothing). Throws image_error past the payload's end
  // (nothing appended) or when memory cannot be allocated (the bytes before stay appended).
  void append(std::string_view bytes);
  // The filter, once complete(): throws image_error when the payload's checksum or the filter's
  // fields do not hold.
  module_filter finish();

  // The reader of one image version (image_reader.hpp).
  class reader;

 private:
  std::unique_ptr<reader> reader_;
};

}  // namespace bloomkit::redis_module
