// Files of the scalable filter (kind 4): chain parameters in the header's kind_params, then a
// payload of a sub-filter table followed by every sub-filter's bit array, each at a 64-byte
// boundary so that map() serves them all from the mapping (docs/FORMAT.md). A chain of classic
// sub-filters has scheme xxh3-128 and 0 in each entry's sub-filter kind field (the bytes of files
// written before chains of other kinds); a chain of blocked sub-filters has scheme
// xxh3-64-split-block and kind 2 (blocked) in each entry.

#include <bit>
#include <cstring>
#include <limits>
#include <vector>

#include "../file/file_io.hpp"
#include "../file/header_codec.hpp"
#include "bloomkit/detail/filter_access.hpp"
#include "bloomkit/kinds.hpp"
#include "bloomkit/scalable_bloom_filter.hpp"
#include "sub_filter_table.hpp"
#include "word_payload.hpp"

namespace bloomkit {
namespace detail {
namespace {

constexpr std::uint64_t table_entry_size = 48;

constexpr std::uint64_t chain_table_size(std::uint64_t count) {
  return table_size(count, table_entry_size);
}

std::uint64_t chain_table_checksum(const unsigned char* entries, std::uint64_t count) {
  return table_checksum(entries, count * table_entry_size);
}

// One row of the sub-filter table; offsets count from the start of the payload.
struct table_entry {
  std::uint64_t bits = 0;
  std::uint32_t hashes = 0;
  std::uint32_t sub_kind = 0;  // 0: classic (the kind of the chain's first files), 2: blocked
  std::uint64_t capacity = 0;
  double target_fpp = 0;
  std::uint64_t inserted = 0;
  std::uint64_t offset = 0;
};

void encode_entry(const table_entry& e, unsigned char* out) {
  std::memcpy(out + 0, &e.bits, 8);
  std::memcpy(out + 8, &e.hashes, 4);
  std::memcpy(out + 12, &e.sub_kind, 4);
  std::memcpy(out + 16, &e.capacity, 8);
  std::memcpy(out + 24, &e.target_fpp, 8);
  std::memcpy(out + 32, &e.inserted, 8);
  std::memcpy(out + 40, &e.offset, 8);
}

table_entry decode_entry(const unsigned char* in) {
  table_entry e;
  std::memcpy(&e.bits, in + 0, 8);
  std::memcpy(&e.hashes, in + 8, 4);
  std::memcpy(&e.sub_kind, in + 12, 4);
  std::memcpy(&e.capacity, in + 16, 8);
  std::memcpy(&e.target_fpp, in + 24, 8);
  std::memcpy(&e.inserted, in + 32, 8);
  std::memcpy(&e.offset, in + 40, 8);
  return e;
}

// What each entry records as its sub-filter kind.
template <class Sub>
constexpr std::uint32_t sub_kind_field = Sub::blocked
                                             ? static_cast<std::uint32_t>(filter_kind::blocked)
                                             : 0;

// Valid once the kind's check_fields has accepted the header.
scalable_config chain_params(const file_header& h) {
  return {h.capacity, h.target_fpp, static_cast<std::uint32_t>(h.kind_params[0]),
          std::bit_cast<double>(h.kind_params[1]), h.kind_params[2]};
}

// Reads and validates the sub-filter table against the header, the chain formula and the
// payload's length, then builds the sub-filters: views into the mapping, or owned copies.
template <class Sub>
std::vector<Sub> read_chain(const filter_file& file, const mapped_payload& payload, verify check,
                            bool copy) {
  const file_header& h = file.header();
  const std::string& source = file.source();
  const scalable_config params = chain_params(h);
  const std::uint64_t count = h.kind_params[3];
  std::uint64_t stored_checksum;
  std::memcpy(&stored_checksum, payload.data + count * table_entry_size, 8);
  if (stored_checksum != chain_table_checksum(payload.data, count)) {
    fail_file(errc::corrupt_file, source,
              "sub-filter table checksum mismatch (the table is corrupt)");
  }
  std::vector<table_entry> table;
  std::vector<filter_config> configs;
  std::vector<std::uint64_t> inserted;
  for (std::uint64_t i = 0; i < count; ++i) {
    const table_entry e = decode_entry(payload.data + i * table_entry_size);
    if (e.sub_kind != sub_kind_field<Sub>) {
      fail_file(
          errc::corrupt_file, source,
          "inconsistent sub-filter table: entry " + std::to_string(i) +
              (sub_kind_field<Sub> == 0 ? std::string(" has its reserved field set")
                                        : " records sub-filter kind " + std::to_string(e.sub_kind) +
                                              ", expected " + std::to_string(sub_kind_field<Sub>) +
                                              " (" + std::string(Sub::storage_type::name) + ")"));
    }
    table.push_back(e);
    configs.push_back({e.bits, e.hashes, e.capacity, e.target_fpp});
    inserted.push_back(e.inserted);
  }
  detail::with_context(
      errc::corrupt_file, [&] { return source + ": inconsistent sub-filter table: "; },
      [&] { basic_scalable_filter<Sub>::check_chain(params, configs, inserted); });
  // Bit counts are now bounded by the chain formula, so these sums cannot overflow.
  std::uint64_t expected_offset = chain_table_size(count);
  std::uint64_t end = 0;
  std::uint64_t total_bits = 0;
  std::uint64_t total_inserted = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    if (table[i].offset != expected_offset) {
      fail_file(errc::corrupt_file, source,
                "inconsistent sub-filter table: entry " + std::to_string(i) + " has offset " +
                    std::to_string(table[i].offset) + ", expected " +
                    std::to_string(expected_offset) +
                    " (each bit array starts at the first 64-byte boundary after the previous)");
    }
    end = table[i].offset + bytes_for_bits(table[i].bits);
    expected_offset = align_up(end);
    total_bits += table[i].bits;
    total_inserted += table[i].inserted;
  }
  if (end != h.payload_length) {
    fail_file(errc::corrupt_file, source,
              "inconsistent sub-filter table: the sub-filters end at payload byte " +
                  std::to_string(end) + " but the payload is " + std::to_string(h.payload_length) +
                  " bytes");
  }
  if (total_bits != h.bits || total_inserted != h.inserted) {
    fail_file(errc::corrupt_file, source,
              "inconsistent sub-filter table: the sub-filters hold " + std::to_string(total_bits) +
                  " bits and " + std::to_string(total_inserted) + " keys, the header says " +
                  std::to_string(h.bits) + " and " + std::to_string(h.inserted));
  }
  if (check == verify::full) {
    std::uint64_t gap_begin = count * table_entry_size + 8;
    for (std::uint64_t i = 0; i < count; ++i) {
      throw_if(check_zero(payload.data + gap_begin, table[i].offset - gap_begin,
                          "before sub-filter " + std::to_string(i)),
               source);
      const std::uint64_t length = bytes_for_bits(table[i].bits);
      throw_if(check_tail_bits(table[i].bits, payload.data + table[i].offset, length), source);
      gap_begin = table[i].offset + length;
    }
  }
  std::vector<Sub> subs;
  subs.reserve(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    subs.push_back(filter_access::make<Sub>(
        configs[i],
        sub_filter_bits(payload.data + table[i].offset, table[i].bits, payload.owner, copy),
        table[i].inserted));
  }
  return subs;
}

template <class Sub>
basic_scalable_filter<Sub> open_scalable(const filter_file& file, verify check, bool copy) {
  const mapped_payload payload = file.map_payload(check);
  std::vector<Sub> chain;
  try {
    chain = read_chain<Sub>(file, payload, check, copy);
  } catch (const error&) {
    payload.owner->check();  // a table read from a file that changed meanwhile is not "corrupt"
    throw;
  }
  payload.owner->check();  // nothing read (or copied) from the mapping came from a changed file
  return filter_access::make_chain<basic_scalable_filter<Sub>>(chain_params(file.header()),
                                                               std::move(chain));
}

}  // namespace

template struct file_io<scalable_bloom_filter>;
template struct file_io<scalable_blocked_bloom_filter>;

}  // namespace detail

template <class Sub>
detail::file_check kind_traits<basic_scalable_filter<Sub>>::check_fields(const file_header& h) {
  using detail::inconsistent_header;
  if (auto problem = detail::check_flags(h, 0)) return problem;
  if (h.hashes != 0) {
    return inconsistent_header("hashes is " + std::to_string(h.hashes) +
                               ", must be 0 for a scalable filter (each sub-filter has its own)");
  }
  const std::uint64_t growth = h.kind_params[0];
  if (growth < 1 || growth > scalable_bloom_filter::max_growth) {
    return inconsistent_header("growth factor " + std::to_string(growth) + " is not in 1.." +
                               std::to_string(scalable_bloom_filter::max_growth));
  }
  if (auto problem = detail::header_problem_of(
          [&] { scalable_bloom_filter::validate(detail::chain_params(h)); })) {
    return problem;
  }
  const std::uint64_t count = h.kind_params[3];
  if (count < 1 || count > scalable_bloom_filter::max_sub_filters) {
    return inconsistent_header("sub-filter count " + std::to_string(count) + " is not in 1.." +
                               std::to_string(scalable_bloom_filter::max_sub_filters));
  }
  // The table and at least one word per sub-filter; the table decides the exact length.
  if (h.payload_length < detail::chain_table_size(count) + 8 * count || h.bits < count) {
    return inconsistent_header("payload length " + std::to_string(h.payload_length) + " and bits " +
                               std::to_string(h.bits) + " cannot hold " + std::to_string(count) +
                               " sub-filters");
  }
  return {};
}

template <class Sub>
file_header kind_traits<basic_scalable_filter<Sub>>::header_of(const filter_type& filter) {
  file_header h;
  h.kind = filter_kind::scalable;
  h.scheme = filter.scheme();
  h.bits = filter.cells();
  h.hashes = 0;
  h.capacity = filter.initial_capacity();
  h.target_fpp = filter.target_fpp();
  h.inserted = filter.inserted();
  h.payload_offset = file_header_size;
  h.kind_params = {filter.growth(), std::bit_cast<std::uint64_t>(filter.tightening()),
                   filter.memory_ceiling(), filter.sub_filter_count()};
  return h;
}

// The table, then each sub-filter's words (the payload's parts point into the table it owns and
// into the sub-filters' storage).
template <class Sub>
detail::file_payload kind_traits<basic_scalable_filter<Sub>>::payload_of(
    const filter_type& filter) {
  const auto subs = filter.sub_filters();
  detail::file_payload payload;
  std::vector<unsigned char>& table = payload.owned;
  table.assign(detail::chain_table_size(subs.size()), 0);
  payload.parts = {table};
  std::uint64_t offset = table.size();
  for (std::size_t i = 0; i < subs.size(); ++i) {
    const Sub& f = subs[i];
    detail::encode_entry({f.cells(), f.hashes(), detail::sub_kind_field<Sub>, f.capacity(),
                          f.target_fpp(), f.inserted(), offset},
                         table.data() + i * detail::table_entry_size);
    detail::append_sub_filter_words(payload, f, i + 1 == subs.size());
    offset += detail::align_up(f.storage().words().size_bytes());
  }
  const std::uint64_t checksum = detail::chain_table_checksum(table.data(), subs.size());
  std::memcpy(table.data() + subs.size() * detail::table_entry_size, &checksum, 8);
  return payload;
}

template <class Sub>
basic_scalable_filter<Sub> kind_traits<basic_scalable_filter<Sub>>::load(
    const detail::filter_file& file) {
  return detail::open_scalable<Sub>(file, verify::full, true);
}

template <class Sub>
basic_scalable_filter<Sub> kind_traits<basic_scalable_filter<Sub>>::map(
    const detail::filter_file& file, verify check) {
  return detail::open_scalable<Sub>(file, check, false);
}

template struct kind_traits<scalable_bloom_filter>;
template struct kind_traits<scalable_blocked_bloom_filter>;

}  // namespace bloomkit
