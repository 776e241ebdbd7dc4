#pragma once
// Internal: what the files of both window layouts share (docs/FORMAT.md, "Kind 5: window"): the
// window in the header's kind_params and their checks, and the slot table (each slot's slice,
// key count and offset, then the table's XXH64) at the start of the payload.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "../file/file_error.hpp"
#include "../file/filter_file.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file_header.hpp"
#include "bloomkit/window_slices.hpp"

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
// The problem with the flags (beyond `allowed`) and the window fields (kind_params), if any.
file_check check_window_fields(const file_header& h, std::uint32_t allowed_flags = 0);
// The header of a window: kind, scheme, capacity, p and the window fields; the caller sets bits,
// hashes and inserted.
file_header window_header(const window_slices& f, hash_scheme scheme);

// The entries of the table at the start of `payload` (S + 1 of them); a checksum mismatch is
// errc::corrupt_file naming `source` (unless the file changed under the mapping: io_error).
std::vector<slot_entry> read_slot_table(const mapped_payload& payload, std::uint64_t count,
                                        const std::string& source);
// A window from the slot table at the start of `payload`: reads it (read_slot_table), checks
// that its keys add up to the header's `inserted`, then returns build(entries). A build that
// throws errc::invalid_argument or too_large (the slots do not fit the window) is corrupt_file
// "inconsistent slot table: ..."; any error from a file that changed under the mapping is the
// mapping's io_error instead.
template <class Build>
auto open_slot_table(const mapped_payload& payload, const file_header& h, const std::string& source,
                     Build build) {
  const std::vector<slot_entry> table = read_slot_table(payload, slot_count(h), source);
  try {
    std::uint64_t inserted = 0;
    for (const slot_entry& e : table) inserted += e.inserted;
    if (inserted != h.inserted) {
      fail_file(errc::corrupt_file, source,
                "inconsistent slot table: the slots hold " + std::to_string(inserted) +
                    " keys, the header says " + std::to_string(h.inserted));
    }
    auto filter = build(table);
    payload.owner->check();  // nothing read (or copied) from the mapping came from a changed file
    return filter;
  } catch (const error& e) {
    payload.owner->check();  // a table read from a file that changed meanwhile is not "corrupt"
    if (e.code() != errc::invalid_argument && e.code() != errc::too_large) throw;
    fail_file(errc::corrupt_file, source, std::string("inconsistent slot table: ") + e.what());
  }
}
// The table of `entries` with its checksum and padding (table_size bytes).
std::vector<unsigned char> slot_table(std::span<const slot_entry> entries);
// Bytes of the table, its checksum and its padding to 64.
std::uint64_t slot_table_size(std::uint64_t count);

}  // namespace bloomkit::detail
