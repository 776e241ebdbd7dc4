// Files of cuckoo filters (kind 8, scheme xxh3-64-cuckoo, docs/FORMAT.md "Kind 8"): the first
// table's bucket size, the kick bound, the expansion and the table count in the header's
// kind_params; a payload of the table of tables (per table its buckets, fingerprint bits, bucket
// size, capacity, items and payload offset; then the table's XXH64, zeros to 64 bytes) and each
// table's words at a 64-byte boundary. map() serves lookups from the mapping (read-only); every
// field a hostile file can set is checked before a table is read through it.

#include <bit>
#include <string>
#include <vector>

#include "../file/file_io.hpp"
#include "../file/header_codec.hpp"
#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit/kinds.hpp"
#include "cuckoo_buckets.hpp"
#include "sub_filter_table.hpp"
#include "word_payload.hpp"

namespace bloomkit {
namespace detail {
namespace {

// buckets u64, fingerprint_bits u32, bucket_size u32, capacity u64, items u64, offset u64.
constexpr std::uint64_t cuckoo_entry_size = 40;

struct cuckoo_entry {
  std::uint64_t buckets = 0;
  std::uint32_t fingerprint_bits = 0;
  std::uint32_t bucket_size = 0;
  std::uint64_t capacity = 0;
  std::uint64_t items = 0;
  std::uint64_t offset = 0;
};

cuckoo_options cuckoo_options_of(const file_header& h) {
  return {.capacity = h.capacity,
          .target_fpp = h.target_fpp,
          .bucket_size = static_cast<std::uint32_t>(h.kind_params[0]),
          .expansion = static_cast<std::uint32_t>(h.kind_params[2]),
          .max_kicks = static_cast<std::uint32_t>(h.kind_params[1])};
}

std::vector<unsigned char> cuckoo_entries(const cuckoo_filter& f) {
  const auto& tables = f.tables();
  std::vector<unsigned char> bytes(table_size(tables.size(), cuckoo_entry_size), 0);
  std::uint64_t offset = bytes.size();
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const cuckoo_table& t = tables[i];
    unsigned char* e = bytes.data() + i * cuckoo_entry_size;
    put_le<std::uint64_t>(e, 0, t.buckets());
    put_le<std::uint32_t>(e, 8, t.fingerprint_bits());
    put_le<std::uint32_t>(e, 12, t.bucket_size());
    put_le<std::uint64_t>(e, 16, t.capacity());
    put_le<std::uint64_t>(e, 24, t.items());
    put_le<std::uint64_t>(e, 32, offset);
    offset = align_up(offset + t.words().byte_size());
  }
  const std::uint64_t end = tables.size() * cuckoo_entry_size;
  put_le<std::uint64_t>(bytes.data(), end, table_checksum(bytes.data(), end));
  return bytes;
}

cuckoo_entry read_cuckoo_entry(const unsigned char* e) {
  return {get_le<std::uint64_t>(e, 0),  get_le<std::uint32_t>(e, 8),  get_le<std::uint32_t>(e, 12),
          get_le<std::uint64_t>(e, 16), get_le<std::uint64_t>(e, 24), get_le<std::uint64_t>(e, 32)};
}

// What is wrong with entry i of a chain of `o`, expected at `offset` in a payload of `length`
// bytes, if anything.
std::optional<std::string> cuckoo_entry_problem(const cuckoo_entry& e, std::uint64_t i,
                                                const cuckoo_options& o, std::uint64_t offset,
                                                std::uint64_t length) {
  const std::string table = "table " + std::to_string(i) + " ";
  cuckoo_sizing s;
  std::uint64_t capacity = 0;
  try {
    capacity = cuckoo_filter::table_capacity(o, i);
    s = cuckoo_filter::table_sizing(o, i);
  } catch (const error& e) {
    return table + "cannot exist: " + e.what();
  }
  if (e.bucket_size != s.bucket_size || e.fingerprint_bits != s.fingerprint_bits ||
      e.buckets != s.buckets || e.capacity != capacity) {
    return table + "has " + std::to_string(e.buckets) + " buckets of " +
           std::to_string(e.bucket_size) + " " + std::to_string(e.fingerprint_bits) +
           "-bit slots for " + std::to_string(e.capacity) + " keys, its sizing makes " +
           std::to_string(s.buckets) + " of " + std::to_string(s.bucket_size) + " " +
           std::to_string(s.fingerprint_bits) + "-bit slots for " + std::to_string(capacity);
  }
  if (e.items > e.buckets * e.bucket_size) {
    return table + "holds " + std::to_string(e.items) + " items in " +
           std::to_string(e.buckets * e.bucket_size) + " slots";
  }
  if (e.offset != offset) {
    return table + "is at offset " + std::to_string(e.offset) + ", expected " +
           std::to_string(offset) + " (tables at 64-byte boundaries after the table of tables)";
  }
  const std::uint64_t bytes = cuckoo_table::bytes_for(e.buckets, e.bucket_size, e.fingerprint_bits);
  if (offset > length || bytes > length - offset) {
    return table + "ends past the payload's " + std::to_string(length) + " bytes";
  }
  return std::nullopt;
}

// Full checks of table i's bytes: zero bits past its slots, and as many non-zero slots as it
// says it holds items.
file_check check_cuckoo_table(const cuckoo_table& t, std::uint64_t i) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(t.words().data());
  if (auto problem =
          check_padding_bits(bytes, t.slots() * t.fingerprint_bits(), t.words().byte_size(),
                             "past the slots of table " + std::to_string(i))) {
    return problem;
  }
  std::uint64_t stored = 0;
  for (std::uint64_t b = 0; b < t.buckets(); ++b) {
    for (std::uint32_t j = 0; j < t.bucket_size(); ++j) stored += t.slot(b, j) != 0;
  }
  if (stored != t.items()) {
    return file_problem{errc::corrupt_file, "table " + std::to_string(i) + " says it holds " +
                                                std::to_string(t.items()) + " items, its slots " +
                                                std::to_string(stored)};
  }
  return {};
}

cuckoo_filter open_cuckoo(const filter_file& file, verify check, bool copy) {
  const file_header& h = file.header();
  const std::string& source = file.source();
  const mapped_payload mapping = file.map_payload(copy ? verify::full : check);
  const unsigned char* payload = mapping.data;
  const auto corrupt = [&](const std::string& problem) {
    mapping.owner->check();  // a file that changed meanwhile is not "corrupt"
    fail_file(errc::corrupt_file, source, problem);
  };
  const cuckoo_options o = cuckoo_options_of(h);
  const std::uint64_t count = h.kind_params[3];
  const std::uint64_t entries = count * cuckoo_entry_size;
  if (get_le<std::uint64_t>(payload, entries) != table_checksum(payload, entries)) {
    corrupt("table of tables checksum mismatch (the table is corrupt)");
  }
  const bool full = check == verify::full || copy;
  std::vector<cuckoo_table> tables;
  std::uint64_t offset = table_size(count, cuckoo_entry_size), gap = entries + 8;
  std::uint64_t items = 0, bits = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    const cuckoo_entry e = read_cuckoo_entry(payload + i * cuckoo_entry_size);
    if (auto problem = cuckoo_entry_problem(e, i, o, offset, h.payload_length)) {
      corrupt("inconsistent table of tables: " + *problem);
    }
    if (full)
      throw_if(check_zero(payload + gap, offset - gap, "before table " + std::to_string(i)),
               source);
    const std::uint64_t bytes =
        cuckoo_table::bytes_for(e.buckets, e.bucket_size, e.fingerprint_bits);
    const cuckoo_sizing s{e.bucket_size, e.fingerprint_bits, e.buckets,
                          cuckoo_filter::design_load(e.bucket_size)};
    const cuckoo_sizing first =
        tables.empty() ? s
                       : cuckoo_sizing{tables[0].bucket_size(), tables[0].fingerprint_bits(),
                                       tables[0].buckets(), s.load};
    tables.emplace_back(s, e.capacity,
                        sub_filter_bits(payload + offset, bytes * 8, mapping.owner, copy), e.items,
                        &first);
    items += e.items;
    bits += e.buckets * e.bucket_size * e.fingerprint_bits;
    gap = offset + bytes;
    offset = align_up(gap);
  }
  if (gap != h.payload_length) {
    corrupt("inconsistent table of tables: the tables end at " + std::to_string(gap) +
            ", the payload at " + std::to_string(h.payload_length));
  }
  if (items != h.inserted || bits != h.bits) {
    corrupt("inconsistent table of tables: the tables hold " + std::to_string(items) +
            " items in " + std::to_string(bits) + " bits, the header says " +
            std::to_string(h.inserted) + " items in " + std::to_string(h.bits));
  }
  if (full) {
    for (std::size_t i = 0; i < tables.size(); ++i) {
      throw_if(check_cuckoo_table(tables[i], i), source);
    }
  }
  mapping.owner->check();
  return cuckoo_filter::from_tables(o, std::move(tables));
}

}  // namespace

template struct file_io<cuckoo_filter>;

}  // namespace detail

detail::file_check kind_traits<cuckoo_filter>::check_fields(const file_header& h) {
  using detail::inconsistent_header;
  if (h.scheme != scheme) {
    return detail::file_problem{errc::unsupported, "a cuckoo filter with hash scheme " +
                                                       std::string(to_string(h.scheme)) +
                                                       " is not supported"};
  }
  if (auto problem = detail::check_flags(h, 0)) return problem;
  const std::uint64_t b = h.kind_params[0], kicks = h.kind_params[1];
  const std::uint64_t expansion = h.kind_params[2], tables = h.kind_params[3];
  if (b < cuckoo_filter::min_bucket_size || b > cuckoo_filter::max_bucket_size) {
    return inconsistent_header("bucket size " + std::to_string(b) + " is not in 2..8");
  }
  if (kicks < 1 || kicks > cuckoo_filter::max_kicks_limit) {
    return inconsistent_header("max kicks " + std::to_string(kicks) + " is not in 1..65536");
  }
  if (expansion > 32768) {
    return inconsistent_header("expansion " + std::to_string(expansion) + " is not in 0..32768");
  }
  if (tables < 1 || tables > cuckoo_filter::max_tables || (expansion == 0 && tables != 1)) {
    return inconsistent_header("table count " + std::to_string(tables) + " is not in 1.." +
                               std::to_string(cuckoo_filter::max_tables) +
                               " (1 when the expansion is 0)");
  }
  if (h.hashes != 2) {
    return inconsistent_header("hashes " + std::to_string(h.hashes) + " is not 2");
  }
  if (h.capacity < 1) return inconsistent_header("capacity 0 (at least 1 key)");
  if (!(h.target_fpp > 0 && h.target_fpp < 1)) {
    return inconsistent_header("target fpp " + std::to_string(h.target_fpp) + " is not in (0, 1)");
  }
  if (h.payload_length < detail::table_size(tables, detail::cuckoo_entry_size) + 16 * tables ||
      h.payload_length % 8 != 0) {
    return inconsistent_header("payload length " + std::to_string(h.payload_length) +
                               " is not a whole number of words holding the table of " +
                               std::to_string(tables) + " tables");
  }
  return {};
}

file_header kind_traits<cuckoo_filter>::header_of(const filter_type& f) {
  file_header h;
  h.kind = kind;
  h.scheme = scheme;
  h.bits = f.cells();
  h.hashes = f.hashes();
  h.capacity = f.options().capacity;
  h.target_fpp = f.target_fpp();
  h.inserted = f.items();
  h.payload_offset = file_header_size;
  h.kind_params = {f.bucket_size(), f.max_kicks(), f.expansion(), f.tables().size()};
  return h;
}

detail::file_payload kind_traits<cuckoo_filter>::payload_of(const filter_type& f) {
  static constexpr unsigned char zeros[detail::payload_alignment] = {};
  detail::file_payload payload;
  payload.owned = detail::cuckoo_entries(f);
  payload.parts.push_back({payload.owned.data(), payload.owned.size()});
  const auto& tables = f.tables();
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const auto words = tables[i].words().words();
    payload.parts.push_back(
        {reinterpret_cast<const unsigned char*>(words.data()), words.size_bytes()});
    const std::uint64_t gap = detail::align_up(words.size_bytes()) - words.size_bytes();
    if (i + 1 < tables.size() && gap > 0) {
      payload.parts.push_back({zeros, static_cast<std::size_t>(gap)});
    }
  }
  return payload;
}

cuckoo_filter kind_traits<cuckoo_filter>::load(const detail::filter_file& file) {
  return detail::open_cuckoo(file, verify::full, true);
}

cuckoo_filter kind_traits<cuckoo_filter>::map(const detail::filter_file& file, verify check) {
  return detail::open_cuckoo(file, check, false);
}

}  // namespace bloomkit
