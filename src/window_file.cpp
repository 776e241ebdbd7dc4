// Files of the window of grouped words (kind 5, scheme xxh3-128-window-groups, docs/FORMAT.md):
// the window in the header's kind_params, then a payload of the slot table, the group array at a
// 64-byte boundary (so that map() serves lookups from the mapping) and 64 zero bytes after it.

#include <cstring>
#include <string>
#include <vector>

#include "bloomkit/detail/filter_access.hpp"
#include "bloomkit/kinds.hpp"
#include "bloomkit/window_filter.hpp"
#include "file/file_io.hpp"
#include "file/header_codec.hpp"
#include "file/sub_filter_table.hpp"
#include "file/window_table.hpp"
#include "file/word_payload.hpp"

namespace bloomkit {
namespace detail {
namespace {

std::uint64_t groups_bytes(const window_groups& g) {
  return g.groups * g.group_bytes();
}

std::uint64_t payload_length(std::uint64_t count, const window_groups& g) {
  return slot_table_size(count) + groups_bytes(g) + window_filter::tail_bytes;
}

// The groups' bytes past the S + 1 words, and the tail, are zero.
file_check check_unused_bytes(const unsigned char* groups, const window_groups& g,
                              std::uint64_t count) {
  const std::uint64_t used = count * g.word_bytes;
  for (std::uint64_t i = 0; i < g.groups; ++i) {
    const unsigned char* group = groups + i * g.group_bytes();
    if (auto problem = check_zero(group + used, g.group_bytes() - used,
                                  "past the words of group " + std::to_string(i))) {
      return problem;
    }
  }
  return check_zero(groups + groups_bytes(g), window_filter::tail_bytes, "after the last group");
}

window_filter open_window(const filter_file& file, verify check, bool copy) {
  const mapped_payload payload = file.map_payload(check);
  const file_header& h = file.header();
  const std::string& source = file.source();
  return open_slot_table(payload, h, source, [&](const std::vector<slot_entry>& table) {
    const std::uint64_t count = table.size();
    const window_config window = window_of(h);
    const window_groups g = window_filter::groups_of(window);  // check_fields matched the header
    const std::uint64_t begin = slot_table_size(count);
    std::vector<std::uint64_t> slices;
    std::vector<std::uint64_t> inserted;
    for (std::uint64_t i = 0; i < count; ++i) {
      if (table[i].offset != i * g.word_bytes) {
        fail_file(errc::corrupt_file, source,
                  "inconsistent slot table: slot " + std::to_string(i) + " has offset " +
                      std::to_string(table[i].offset) + ", expected " +
                      std::to_string(i * g.word_bytes));
      }
      slices.push_back(table[i].slice);
      inserted.push_back(table[i].inserted);
    }
    if (check == verify::full) {
      throw_if(check_zero(payload.data + count * slot_entry_size + 8,
                          begin - count * slot_entry_size - 8, "after the slot table"),
               source);
      throw_if(check_unused_bytes(payload.data + begin, g, count), source);
    }
    const std::uint64_t bits = (groups_bytes(g) + window_filter::tail_bytes) * 8;
    return filter_access::make_grouped_window(
        window, sub_filter_bits(payload.data + begin, bits, payload.owner, copy), std::move(slices),
        std::move(inserted), h.kind_params[3]);
  });
}

}  // namespace

template struct file_io<window_filter>;

}  // namespace detail

detail::file_check kind_traits<window_filter>::check_fields(const file_header& h) {
  using detail::inconsistent_header;
  if (auto problem = detail::check_window_fields(h)) return problem;
  window_groups g;
  try {
    g = window_filter::groups_of(detail::window_of(h));
  } catch (const error& e) {
    return inconsistent_header(e.what());
  }
  const std::uint64_t count = detail::slot_count(h);
  if (h.hashes != g.hashes || h.bits != detail::groups_bytes(g) * 8) {
    return inconsistent_header(
        "bits " + std::to_string(h.bits) + " and hashes " + std::to_string(h.hashes) +
        " are not those of the window's slots (" + std::to_string(g.groups) + " groups of " +
        std::to_string(g.group_bytes()) + " bytes, " + std::to_string(g.hashes) + " hashes)");
  }
  if (h.payload_length != detail::payload_length(count, g)) {
    return inconsistent_header("payload length " + std::to_string(h.payload_length) +
                               " is not the slot table, " + std::to_string(g.groups) +
                               " groups and the tail (" +
                               std::to_string(detail::payload_length(count, g)) + ")");
  }
  return {};
}

file_header kind_traits<window_filter>::header_of(const filter_type& f) {
  file_header h = detail::window_header(f, f.scheme());
  h.bits = f.cells();
  h.hashes = f.hashes();
  for (const std::uint64_t n : f.slot_inserted()) h.inserted += n;
  return h;
}

// The table, then the group array with its tail (a part pointing into the filter's storage).
detail::file_payload kind_traits<window_filter>::payload_of(const filter_type& f) {
  const std::uint64_t count = f.slot_slices().size();
  std::vector<detail::slot_entry> entries(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    entries[i] = {f.slot_slices()[i], f.slot_inserted(i), i * f.layout().word_bytes};
  }
  detail::file_payload payload;
  payload.owned = detail::slot_table(entries);
  payload.parts = {payload.owned};
  const auto words = detail::filter_access::storage(f).words();
  payload.parts.push_back(
      {reinterpret_cast<const unsigned char*>(words.data()), words.size_bytes()});
  return payload;
}

window_filter kind_traits<window_filter>::load(const detail::filter_file& file) {
  return detail::open_window(file, verify::full, true);
}

window_filter kind_traits<window_filter>::map(const detail::filter_file& file, verify check) {
  return detail::open_window(file, check, false);
}

}  // namespace bloomkit
