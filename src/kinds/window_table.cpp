#include "window_table.hpp"

#include "../file/header_codec.hpp"
#include "bloomkit/error.hpp"
#include "sub_filter_table.hpp"
#include "word_payload.hpp"

namespace bloomkit::detail {

window_config window_of(const file_header& h) {
  return {h.capacity, h.target_fpp, h.kind_params[0], static_cast<window_unit>(h.kind_params[1]),
          static_cast<std::uint32_t>(h.kind_params[2])};
}

file_check check_window_fields(const file_header& h, std::uint32_t allowed_flags) {
  if (auto problem = check_flags(h, allowed_flags)) return problem;
  if (h.kind_params[2] < 1 || h.kind_params[2] > window_slices::max_slices) {
    return inconsistent_header("slices " + std::to_string(h.kind_params[2]) + " is not in 1.." +
                               std::to_string(window_slices::max_slices));
  }
  if (h.kind_params[1] > 1) {
    return inconsistent_header("window unit " + std::to_string(h.kind_params[1]) +
                               " is neither 0 (seconds) nor 1 (inserts)");
  }
  if (auto problem = header_problem_of([&] { window_slices::validate(window_of(h)); })) {
    return problem;
  }
  if (h.kind_params[1] == 0 && h.kind_params[3] != 0) {
    return inconsistent_header("a time window records an insert count of " +
                               std::to_string(h.kind_params[3]) + ", must be 0");
  }
  return {};
}

file_header window_header(const window_slices& f, hash_scheme scheme) {
  file_header h;
  h.kind = filter_kind::window;
  h.scheme = scheme;
  h.capacity = f.capacity();
  h.target_fpp = f.target_fpp();
  h.payload_offset = file_header_size;
  h.kind_params = {f.length(), static_cast<std::uint64_t>(f.unit()), f.slices(), f.insert_count()};
  return h;
}

std::vector<slot_entry> read_slot_table(const mapped_payload& payload, std::uint64_t count,
                                        const std::string& source) {
  const unsigned char* table = payload.data;
  if (get_le<std::uint64_t>(table, count * slot_entry_size) !=
      table_checksum(table, count * slot_entry_size)) {
    payload.owner->check();
    fail_file(errc::corrupt_file, source, "slot table checksum mismatch (the table is corrupt)");
  }
  std::vector<slot_entry> entries(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    const unsigned char* entry = table + i * slot_entry_size;
    entries[i] = {get_le<std::uint64_t>(entry, 0), get_le<std::uint64_t>(entry, 8),
                  get_le<std::uint64_t>(entry, 16)};
  }
  return entries;
}

std::uint64_t slot_table_size(std::uint64_t count) {
  return table_size(count, slot_entry_size);
}

std::vector<unsigned char> slot_table(std::span<const slot_entry> entries) {
  std::vector<unsigned char> table(slot_table_size(entries.size()), 0);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    unsigned char* entry = table.data() + i * slot_entry_size;
    put_le<std::uint64_t>(entry, 0, entries[i].slice);
    put_le<std::uint64_t>(entry, 8, entries[i].inserted);
    put_le<std::uint64_t>(entry, 16, entries[i].offset);
  }
  put_le<std::uint64_t>(table.data(), entries.size() * slot_entry_size,
                        table_checksum(table.data(), entries.size() * slot_entry_size));
  return table;
}

}  // namespace bloomkit::detail
