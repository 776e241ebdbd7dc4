// Files of the window of sub-filters (kind 5, schemes xxh3-64-split-block and xxh3-128): the
// window in the header's kind_params, then a payload of a slot table followed by the S + 1 slots'
// bit arrays, each at a 64-byte boundary so that map() serves them all from the mapping
// (docs/FORMAT.md). Every slot has the same size.

#include <cstring>
#include <string>
#include <vector>

#include "../file/file_io.hpp"
#include "../file/header_codec.hpp"
#include "bloomkit/basic_window_filter.hpp"
#include "bloomkit/detail/filter_access.hpp"
#include "bloomkit/kinds.hpp"
#include "sub_filter_table.hpp"
#include "window_table.hpp"
#include "word_payload.hpp"

namespace bloomkit {
namespace detail {
namespace {

// Where slot i's bit array starts: the table, then one 64-byte-aligned stride per slot.
std::uint64_t slot_offset(std::uint64_t count, std::uint64_t slot_bits, std::uint64_t i) {
  return slot_table_size(count) + i * align_up(bytes_for_bits(slot_bits));
}

std::uint64_t payload_length(std::uint64_t count, std::uint64_t slot_bits) {
  return slot_offset(count, slot_bits, count - 1) + bytes_for_bits(slot_bits);
}

template <class Sub>
basic_window_filter<Sub> open_window(const filter_file& file, verify check, bool copy) {
  const mapped_payload payload = file.map_payload(check);
  const file_header& h = file.header();
  const std::string& source = file.source();
  return open_slot_table(payload, h, source, [&](const std::vector<slot_entry>& table) {
    const std::uint64_t count = table.size();
    const std::uint64_t slot_bits = h.bits / count;
    const window_config window = window_of(h);
    const filter_config sized = basic_window_filter<Sub>::slice_config(window);
    std::vector<Sub> slots;
    std::vector<std::uint64_t> slices;
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::uint64_t offset = table[i].offset;
      if (offset != slot_offset(count, slot_bits, i)) {
        fail_file(errc::corrupt_file, source,
                  "inconsistent slot table: slot " + std::to_string(i) + " has offset " +
                      std::to_string(offset) + ", expected " +
                      std::to_string(slot_offset(count, slot_bits, i)));
      }
      slices.push_back(table[i].slice);
      slots.push_back(filter_access::make<Sub>(
          {slot_bits, h.hashes, sized.capacity, sized.target_fpp},
          sub_filter_bits(payload.data + offset, slot_bits, payload.owner, copy),
          table[i].inserted));
      if (check == verify::full) {
        const std::uint64_t begin =
            i == 0 ? count * slot_entry_size + 8
                   : slot_offset(count, slot_bits, i - 1) + bytes_for_bits(slot_bits);
        throw_if(
            check_zero(payload.data + begin, offset - begin, "before slot " + std::to_string(i)),
            source);
        throw_if(check_tail_bits(slot_bits, payload.data + offset, bytes_for_bits(slot_bits)),
                 source);
      }
    }
    return filter_access::make_window<basic_window_filter<Sub>>(
        window, std::move(slots), std::move(slices), h.kind_params[3]);
  });
}

}  // namespace

template struct file_io<blocked_window_filter>;
template struct file_io<classic_window_filter>;

}  // namespace detail

template <class Sub>
detail::file_check kind_traits<basic_window_filter<Sub>>::check_fields(const file_header& h) {
  using detail::inconsistent_header;
  if (auto problem = detail::check_window_fields(h)) return problem;
  const std::uint64_t count = detail::slot_count(h);
  if (h.bits == 0 || h.bits % count != 0 || h.bits / count > max_bits ||
      h.payload_length != detail::payload_length(count, h.bits / count)) {
    return inconsistent_header("bits " + std::to_string(h.bits) + " and payload length " +
                               std::to_string(h.payload_length) + " are not " +
                               std::to_string(count) + " equal slots and their table");
  }
  return {};
}

template <class Sub>
file_header kind_traits<basic_window_filter<Sub>>::header_of(const filter_type& f) {
  file_header h = detail::window_header(f, f.scheme());
  h.bits = f.cells();
  h.hashes = f.hashes();
  for (const Sub& slot : f.slots()) h.inserted += slot.inserted();
  return h;
}

// The table, then each slot's words (the payload's parts point into the table it owns and into
// the slots' storage).
template <class Sub>
detail::file_payload kind_traits<basic_window_filter<Sub>>::payload_of(const filter_type& f) {
  const auto slots = f.slots();
  const std::uint64_t count = slots.size();
  const std::uint64_t slot_bits = slots.front().cells();
  std::vector<detail::slot_entry> entries(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    entries[i] = {f.slot_slices()[i], slots[i].inserted(),
                  detail::slot_offset(count, slot_bits, i)};
  }
  detail::file_payload payload;
  payload.owned = detail::slot_table(entries);
  payload.parts = {payload.owned};
  for (std::uint64_t i = 0; i < count; ++i) {
    detail::append_sub_filter_words(payload, slots[i], i + 1 == count);
  }
  return payload;
}

template <class Sub>
basic_window_filter<Sub> kind_traits<basic_window_filter<Sub>>::load(
    const detail::filter_file& file) {
  return detail::open_window<Sub>(file, verify::full, true);
}

template <class Sub>
basic_window_filter<Sub> kind_traits<basic_window_filter<Sub>>::map(const detail::filter_file& file,
                                                                    verify check) {
  return detail::open_window<Sub>(file, check, false);
}

template struct kind_traits<blocked_window_filter>;
template struct kind_traits<classic_window_filter>;

}  // namespace bloomkit
