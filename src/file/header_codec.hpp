#pragma once
// Internal: the 128-byte header of a filter file (docs/FORMAT.md, "Layout"): encoding, decoding
// and the checks of the fields every kind has. The kind's own fields are checked by its
// kind_traits (kinds.hpp). encode_header / decode_header are reachable by tests (test-only
// include of src/) to forge headers.

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "bloomkit/file_header.hpp"
#include "file_error.hpp"

namespace bloomkit {

// The header's bytes, header checksum included.
std::array<unsigned char, file_header_size> encode_header(const file_header& header);
// Throws errc::corrupt_file / errc::unsupported naming `source` when the bytes are not a valid
// header (every check of docs/FORMAT.md, "Reading a file", steps 1-6).
file_header decode_header(std::span<const unsigned char> bytes, const std::string& source);

namespace detail {

inline constexpr std::uint64_t payload_alignment = 64;
inline constexpr std::size_t header_checksum_offset = 120;

// Little-endian field access at fixed offsets.
template <class T>
void put_le(unsigned char* out, std::size_t offset, T value) {
  std::memcpy(out + offset, &value, sizeof value);
}
template <class T>
T get_le(const unsigned char* in, std::size_t offset) {
  T value;
  std::memcpy(&value, in + offset, sizeof value);
  return value;
}

// The fields every kind has: capacity, target fpp, payload offset.
file_check check_common_fields(const file_header& h);
// The kind's own fields, by its kind_traits (a known kind).
file_check check_kind_fields(const file_header& h);
// A file of `file_size` bytes ends exactly where the header says its payload ends.
file_check check_file_size(const file_header& h, std::uint64_t file_size);

}  // namespace detail
}  // namespace bloomkit
