#pragma once
// Internal: writing a filter file (docs/FORMAT.md, "Writing a file") with the one writer
// (atomic_file.hpp): the header, zero padding up to payload_offset, the payload.

#include <filesystem>
#include <span>
#include <vector>

#include "bloomkit/file_header.hpp"

namespace bloomkit::detail {

// A payload as a kind lays it out: parts written back to back (one checksum covers them all),
// which may point into `owned` (bytes the kind builds for the file, such as a table) or into the
// filter's storage.
struct file_payload {
  std::vector<std::span<const unsigned char>> parts;
  std::vector<unsigned char> owned;
};

// `header` with the payload_length and payload_checksum of these parts, as a file records them.
file_header sealed_header(file_header header,
                          std::span<const std::span<const unsigned char>> parts);

// Writes the header and the payload's parts with the one writer: a temp file beside `path`'s
// target, fsynced and renamed into place, under the lock on it. Sets payload_checksum and
// payload_length; header.payload_offset must already be set.
void write_filter_file(const std::filesystem::path& path, file_header header,
                       std::span<const std::span<const unsigned char>> parts);

}  // namespace bloomkit::detail
