// Files of the window filter (kind 5): the window in the header's kind_params, then a payload of
// a slot table followed by the S + 1 slots' bit arrays, each at a 64-byte boundary so that map()
// serves them all from the mapping (docs/FORMAT.md). A window of blocked slices has scheme
// xxh3-64-split-block, one of classic slices xxh3-128; every slot has the same size.

#include <cstring>
#include <string>
#include <vector>

#include "bloomkit/detail/filter_access.hpp"
#include "bloomkit/kinds.hpp"
#include "bloomkit/window_filter.hpp"
#include "file/file_io.hpp"
#include "file/header_codec.hpp"
#include "file/sub_filter_table.hpp"
#include "file/word_payload.hpp"

namespace bloomkit {
namespace detail {
namespace {

// slice (u64, all ones: none), inserted (u64), offset of the bit array in the payload (u64).
constexpr std::uint64_t slot_entry_size = 24;

std::uint64_t slot_count(const file_header& h) {
  return h.kind_params[2] + 1;
}

// Valid once check_fields has accepted the header.
window_config window_of(const file_header& h) {
  return {h.capacity, h.target_fpp, h.kind_params[0], static_cast<window_unit>(h.kind_params[1]),
          static_cast<std::uint32_t>(h.kind_params[2])};
}

// Where slot i's bit array starts: the table, then one 64-byte-aligned stride per slot.
std::uint64_t slot_offset(std::uint64_t count, std::uint64_t slot_bits, std::uint64_t i) {
  return table_size(count, slot_entry_size) + i * align_up(bytes_for_bits(slot_bits));
}

std::uint64_t payload_length(std::uint64_t count, std::uint64_t slot_bits) {
  return slot_offset(count, slot_bits, count - 1) + bytes_for_bits(slot_bits);
}

template <class Sub>
basic_window_filter<Sub> open_window(const filter_file& file, verify check, bool copy) {
  const mapped_payload payload = file.map_payload(check);
  const file_header& h = file.header();
  const std::string& source = file.source();
  const std::uint64_t count = slot_count(h);
  const std::uint64_t slot_bits = h.bits / count;
  const unsigned char* table = payload.data;
  if (get_le<std::uint64_t>(table, count * slot_entry_size) !=
      table_checksum(table, count * slot_entry_size)) {
    payload.owner->check();
    fail_file(errc::corrupt_file, source, "slot table checksum mismatch (the table is corrupt)");
  }
  const filter_config config{slot_bits, h.hashes, 0, 0};
  std::vector<Sub> slots;
  std::vector<std::uint64_t> slices;
  std::uint64_t inserted = 0;
  try {
    const window_config window = window_of(h);
    const filter_config sized = basic_window_filter<Sub>::slice_config(window);
    for (std::uint64_t i = 0; i < count; ++i) {
      const unsigned char* entry = table + i * slot_entry_size;
      const std::uint64_t offset = get_le<std::uint64_t>(entry, 16);
      if (offset != slot_offset(count, slot_bits, i)) {
        fail_file(errc::corrupt_file, source,
                  "inconsistent slot table: slot " + std::to_string(i) + " has offset " +
                      std::to_string(offset) + ", expected " +
                      std::to_string(slot_offset(count, slot_bits, i)));
      }
      slices.push_back(get_le<std::uint64_t>(entry, 0));
      const std::uint64_t slot_inserted = get_le<std::uint64_t>(entry, 8);
      inserted += slot_inserted;
      slots.push_back(filter_access::make<Sub>(
          {config.cells, config.hashes, sized.capacity, sized.target_fpp},
          sub_filter_bits(payload.data + offset, slot_bits, payload.owner, copy), slot_inserted));
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
    if (inserted != h.inserted) {
      fail_file(errc::corrupt_file, source,
                "inconsistent slot table: the slots hold " + std::to_string(inserted) +
                    " keys, the header says " + std::to_string(h.inserted));
    }
    auto filter = filter_access::make_window<basic_window_filter<Sub>>(
        window, std::move(slots), std::move(slices), h.kind_params[3]);
    payload.owner->check();  // nothing read (or copied) from the mapping came from a changed file
    return filter;
  } catch (const error& e) {
    payload.owner->check();  // a table read from a file that changed meanwhile is not "corrupt"
    if (e.code() != errc::invalid_argument && e.code() != errc::too_large) throw;
    fail_file(errc::corrupt_file, source, std::string("inconsistent slot table: ") + e.what());
  }
}

}  // namespace

template struct file_io<window_filter>;
template struct file_io<classic_window_filter>;

}  // namespace detail

template <class Sub>
detail::file_check kind_traits<basic_window_filter<Sub>>::check_fields(const file_header& h) {
  using detail::inconsistent_header;
  if (auto problem = detail::check_flags(h, 0)) return problem;
  if (h.kind_params[2] < 1 || h.kind_params[2] > window_filter::max_slices) {
    return inconsistent_header("slices " + std::to_string(h.kind_params[2]) + " is not in 1.." +
                               std::to_string(window_filter::max_slices));
  }
  if (h.kind_params[1] > 1) {
    return inconsistent_header("window unit " + std::to_string(h.kind_params[1]) +
                               " is neither 0 (seconds) nor 1 (inserts)");
  }
  try {
    window_filter::validate(detail::window_of(h));
  } catch (const error& e) {
    return inconsistent_header(e.what());
  }
  if (h.kind_params[1] == 0 && h.kind_params[3] != 0) {
    return inconsistent_header("a time window records an insert count of " +
                               std::to_string(h.kind_params[3]) + ", must be 0");
  }
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
  file_header h;
  h.kind = filter_kind::window;
  h.scheme = f.scheme();
  h.bits = f.cells();
  h.hashes = f.hashes();
  h.capacity = f.capacity();
  h.target_fpp = f.target_fpp();
  for (const Sub& slot : f.slots()) h.inserted += slot.inserted();
  h.payload_offset = file_header_size;
  h.kind_params = {f.length(), static_cast<std::uint64_t>(f.unit()), f.slices(), f.insert_count()};
  return h;
}

// The table, then each slot's words (the payload's parts point into the table it owns and into
// the slots' storage).
template <class Sub>
detail::file_payload kind_traits<basic_window_filter<Sub>>::payload_of(const filter_type& f) {
  const auto slots = f.slots();
  const std::uint64_t count = slots.size();
  const std::uint64_t slot_bits = slots.front().cells();
  detail::file_payload payload;
  std::vector<unsigned char>& table = payload.owned;
  table.assign(detail::table_size(count, detail::slot_entry_size), 0);
  payload.parts = {table};
  for (std::uint64_t i = 0; i < count; ++i) {
    unsigned char* entry = table.data() + i * detail::slot_entry_size;
    detail::put_le<std::uint64_t>(entry, 0, f.slot_slices()[i]);
    detail::put_le<std::uint64_t>(entry, 8, slots[i].inserted());
    detail::put_le<std::uint64_t>(entry, 16, detail::slot_offset(count, slot_bits, i));
    detail::append_sub_filter_words(payload, slots[i], i + 1 == count);
  }
  detail::put_le<std::uint64_t>(
      table.data(), count * detail::slot_entry_size,
      detail::table_checksum(table.data(), count * detail::slot_entry_size));
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

template struct kind_traits<window_filter>;
template struct kind_traits<classic_window_filter>;

}  // namespace bloomkit
