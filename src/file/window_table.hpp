#pragma once
// Internal: what the files of both window layouts share (docs/FORMAT.md, "Kind 5: window"): the
// window in the header's kind_params and their checks, and the slot table (each slot's slice,
// key count and offset, then the table's XXH64) at the start of the payload.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bloomkit/file_header.hpp"
#include "bloomkit/window_slices.hpp"
#include "file_error.hpp"
#include "filter_file.hpp"

namespace bloomkit::detail {

// slice (u64, all ones: none), inserted (u64), offset (u64).
inline constexpr std::uint64_t slot_entry_size = 24;

struct slot_entry {
  std::uint64_t slice = window_slices::no_slice;
  std::uint64_t inserted = 0;
  std::uint64_t offset = 0;
};

inline std::uint64_t slot_count(const file_header& h) {
  return h.kind_params[2] + 1;
}
// Valid once check_window_fields has accepted the header.
window_config window_of(const file_header& h);
// The problem with the flags and the window fields (kind_params), if any.
file_check check_window_fields(const file_header& h);
// The header of a window: kind, scheme, capacity, p and the window fields; the caller sets bits,
// hashes and inserted.
file_header window_header(const window_slices& f, hash_scheme scheme);

// The entries of the table at the start of `payload` (S + 1 of them); a checksum mismatch is
// errc::corrupt_file naming `source` (unless the file changed under the mapping: io_error).
std::vector<slot_entry> read_slot_table(const mapped_payload& payload, std::uint64_t count,
                                        const std::string& source);
// The table of `entries` with its checksum and padding (table_size bytes).
std::vector<unsigned char> slot_table(std::span<const slot_entry> entries);
// Bytes of the table, its checksum and its padding to 64.
std::uint64_t slot_table_size(std::uint64_t count);

}  // namespace bloomkit::detail
