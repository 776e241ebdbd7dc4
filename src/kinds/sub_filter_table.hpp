#pragma once
// Internal: the parts of a composite filter's file (scalable chain, window) that hold several
// sub-filters: a table of fixed-size entries followed by its XXH64 (so that map(verify::header),
// which skips the payload checksum, still cannot take a damaged table for a valid one), zeros up
// to a 64-byte boundary, then each sub-filter's bit array at a 64-byte boundary (docs/FORMAT.md).

#include <cstdint>
#include <cstring>
#include <memory>

#include "../file/header_codec.hpp"
#include "../file/write_filter_file.hpp"
#include "bloomkit/bit_array.hpp"
#include "bloomkit/mapped_file.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace bloomkit::detail {

constexpr std::uint64_t align_up(std::uint64_t bytes) {
  return (bytes + payload_alignment - 1) / payload_alignment * payload_alignment;
}

// Bytes of a table of `count` entries of `entry_size` bytes, its checksum and its padding.
constexpr std::uint64_t table_size(std::uint64_t count, std::uint64_t entry_size) {
  return align_up(count * entry_size + 8);
}

inline std::uint64_t table_checksum(const unsigned char* entries, std::uint64_t bytes) {
  return XXH64(entries, bytes, 0);
}

// The bit array of `bits` bits at `words` in a mapping owned by `owner`: a view into it, or an
// owned copy.
inline bit_array sub_filter_bits(const unsigned char* words, std::uint64_t bits,
                                 std::shared_ptr<const mapped_file> owner, bool copy) {
  bit_array view =
      bit_array::view(reinterpret_cast<const std::uint64_t*>(words), bits, std::move(owner));
  if (!copy) return view;
  bit_array owned(bits);
  std::memcpy(owned.mutable_words().data(), words, owned.byte_size());
  return owned;
}

// Appends sub-filter `sub`'s words to `payload` (pointing into its storage), then zeros up to
// the next 64-byte boundary unless it is the last sub-filter. The table being a multiple of 64
// bytes, every sub-filter then starts at a 64-byte boundary.
template <class Sub>
void append_sub_filter_words(file_payload& payload, const Sub& sub, bool last) {
  static constexpr unsigned char zeros[payload_alignment] = {};
  const auto words = sub.storage().words();
  payload.parts.push_back(
      {reinterpret_cast<const unsigned char*>(words.data()), words.size_bytes()});
  const std::uint64_t gap = align_up(words.size_bytes()) - words.size_bytes();
  if (!last && gap > 0) payload.parts.push_back({zeros, static_cast<std::size_t>(gap)});
}

}  // namespace bloomkit::detail
