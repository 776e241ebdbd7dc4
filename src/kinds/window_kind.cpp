// Files of the window of grouped words (kind 5, scheme xxh3-128-window-groups, docs/FORMAT.md):
// the window in the header's kind_params, then a payload of the slot table, the group array at a
// 64-byte boundary (so that map() serves lookups from the mapping) and 64 zero bytes after it.

#include <cstring>
#include <string>
#include <vector>

#include "../file/file_io.hpp"
#include "../file/header_codec.hpp"
#include "bloomkit/detail/filter_access.hpp"
#include "bloomkit/kinds.hpp"
#include "bloomkit/window_filter.hpp"
#include "sub_filter_table.hpp"
#include "window_table.hpp"
#include "word_payload.hpp"

namespace bloomkit {
namespace detail {
namespace {

std::uint64_t groups_bytes(const window_groups& g) {
  return g.groups * g.group_bytes();
}

std::uint64_t payload_length(std::uint64_t count, const window_groups& g) {
  return slot_table_size(count) + groups_bytes(g) + window_filter::tail_bytes;
}

// Header flag bit 1: an overflow section follows the groups (FORMAT.md, "Overflow parts").
constexpr std::uint32_t has_overflow = 2;
// The section: its part count (u64) padded to 64 bytes, a slot table of the parts (slice: the
// slot the part belongs to, its keys, its payload offset), then each part's bits padded to 64.
constexpr std::uint64_t overflow_head_bytes = 64;

std::uint64_t padded(std::uint64_t bytes) {
  return (bytes + 63) / 64 * 64;
}

std::uint64_t overflow_section_bytes(std::uint64_t parts, std::uint64_t part_bytes) {
  return overflow_head_bytes + slot_table_size(parts) + parts * padded(part_bytes);
}

// The overflow parts the section at `at` holds, per slot; corrupt_file naming the problem.
std::vector<std::vector<blocked_bloom_filter>> read_overflow(const mapped_payload& payload,
                                                             std::uint64_t at, const file_header& h,
                                                             const filter_config& part,
                                                             std::uint64_t slots, bool copy,
                                                             const std::string& source) {
  const auto bad = [&](const std::string& problem) {
    fail_file(errc::corrupt_file, source, "inconsistent overflow section: " + problem);
  };
  const std::uint64_t left = h.payload_length - at;
  if (left < overflow_head_bytes) bad("it is cut short");
  const std::uint64_t count = get_le<std::uint64_t>(payload.data + at, 0);
  const std::uint64_t part_bytes = part.cells / 8;
  if (count == 0 || count > slots * window_filter::max_overflow_parts ||
      overflow_section_bytes(count, part_bytes) != left) {
    bad(std::to_string(count) + " parts of " + std::to_string(part_bytes) +
        " bytes do not fill its " + std::to_string(left) + " bytes");
  }
  const mapped_payload table_at{payload.data + at + overflow_head_bytes, payload.owner};
  const std::vector<slot_entry> table = read_slot_table(table_at, count, source);
  std::vector<std::vector<blocked_bloom_filter>> overflow(slots);
  std::uint64_t offset = at + overflow_head_bytes + slot_table_size(count);
  std::uint64_t last_slot = 0;
  for (const slot_entry& e : table) {
    if (e.slice >= slots || e.slice < last_slot || e.offset != offset) {
      bad("part of slot " + std::to_string(e.slice) + " at offset " + std::to_string(e.offset) +
          " (expected slots in order, the next part at " + std::to_string(offset) + ")");
    }
    last_slot = e.slice;
    overflow[e.slice].push_back(filter_access::make<blocked_bloom_filter>(
        part, sub_filter_bits(payload.data + offset, part.cells, payload.owner, copy), e.inserted));
    offset += padded(part_bytes);
  }
  return overflow;
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
    std::vector<std::vector<blocked_bloom_filter>> overflow;
    if ((h.flags & has_overflow) != 0) {
      overflow = read_overflow(payload, payload_length(count, g), h,
                               blocked_window_filter::slice_config(window), count, copy, source);
    }
    return filter_access::make_grouped_window(
        window, sub_filter_bits(payload.data + begin, bits, payload.owner, copy), std::move(slices),
        std::move(inserted), h.kind_params[3], std::move(overflow));
  });
}

}  // namespace

template struct file_io<window_filter>;

}  // namespace detail

detail::file_check kind_traits<window_filter>::check_fields(const file_header& h) {
  using detail::inconsistent_header;
  if (auto problem = detail::check_window_fields(h, detail::has_overflow)) return problem;
  window_groups g;
  if (auto problem =
          detail::header_problem_of([&] { g = window_filter::groups_of(detail::window_of(h)); })) {
    return problem;
  }
  const std::uint64_t count = detail::slot_count(h);
  if (h.hashes != g.hashes || h.bits != detail::groups_bytes(g) * 8) {
    return inconsistent_header(
        "bits " + std::to_string(h.bits) + " and hashes " + std::to_string(h.hashes) +
        " are not those of the window's slots (" + std::to_string(g.groups) + " groups of " +
        std::to_string(g.group_bytes()) + " bytes, " + std::to_string(g.hashes) + " hashes)");
  }
  // An overflow section's own length is checked as it is read.
  const bool overflow = (h.flags & detail::has_overflow) != 0;
  if (overflow ? h.payload_length <= detail::payload_length(count, g)
               : h.payload_length != detail::payload_length(count, g)) {
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
  for (std::size_t slot = 0; slot < f.slot_slices().size(); ++slot) {
    if (!f.overflow(slot).empty()) h.flags = detail::has_overflow;
  }
  return h;
}

// The table, then the group array with its tail (a part pointing into the filter's storage).
detail::file_payload kind_traits<window_filter>::payload_of(const filter_type& f) {
  const std::uint64_t count = f.slot_slices().size();
  std::vector<detail::slot_entry> entries(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    entries[i] = {f.slot_slices()[i], f.slot_inserted(i), i * f.layout().word_bytes};
  }
  // The overflow section's parts and table (none at a steady rate: the file is as before).
  std::vector<detail::slot_entry> parts;
  std::vector<const blocked_bloom_filter*> filters;
  const std::uint64_t groups_end =
      detail::slot_table_size(count) + f.cells() / 8 + window_filter::tail_bytes;
  const std::uint64_t part_bytes = f.overflow_config().cells / 8;
  for (std::uint64_t i = 0; i < count; ++i) {
    for (const blocked_bloom_filter& part : f.overflow(i)) filters.push_back(&part);
  }
  std::uint64_t offset =
      groups_end + detail::overflow_head_bytes + detail::slot_table_size(filters.size());
  for (std::uint64_t i = 0; i < count; ++i) {
    for (const blocked_bloom_filter& part : f.overflow(i)) {
      parts.push_back({i, part.inserted(), offset});
      offset += detail::padded(part_bytes);
    }
  }
  detail::file_payload payload;
  payload.owned = detail::slot_table(entries);
  const std::size_t slots_end = payload.owned.size();
  if (!filters.empty()) {
    std::vector<unsigned char> head(detail::overflow_head_bytes, 0);
    detail::put_le<std::uint64_t>(head.data(), 0, filters.size());
    const std::vector<unsigned char> table = detail::slot_table(parts);
    payload.owned.insert(payload.owned.end(), head.begin(), head.end());
    payload.owned.insert(payload.owned.end(), table.begin(), table.end());
    payload.owned.resize(payload.owned.size() + 64, 0);  // padding after a part's bits
  }
  const unsigned char* owned = payload.owned.data();
  payload.parts = {{owned, slots_end}};
  const auto words = detail::filter_access::storage(f).words();
  payload.parts.push_back(
      {reinterpret_cast<const unsigned char*>(words.data()), words.size_bytes()});
  if (!filters.empty()) {
    const std::size_t section = payload.owned.size() - 64 - slots_end;
    payload.parts.push_back({owned + slots_end, section});
    const unsigned char* zeros = owned + payload.owned.size() - 64;
    for (const blocked_bloom_filter* part : filters) {
      const auto bits = detail::filter_access::storage(*part).words();
      payload.parts.push_back({reinterpret_cast<const unsigned char*>(bits.data()),
                               static_cast<std::size_t>(part_bytes)});
      if (const std::uint64_t pad = detail::padded(part_bytes) - part_bytes; pad > 0) {
        payload.parts.push_back({zeros, static_cast<std::size_t>(pad)});
      }
    }
  }
  return payload;
}

window_filter kind_traits<window_filter>::load(const detail::filter_file& file) {
  return detail::open_window(file, verify::full, true);
}

window_filter kind_traits<window_filter>::map(const detail::filter_file& file, verify check) {
  return detail::open_window(file, check, false);
}

}  // namespace bloomkit
