// Files of RedisBloom's chain (kind 6, docs/FORMAT.md "Kind 6: redisbloom"): the chain's fields
// in the header's kind_params, then a payload of a link table followed by every link's bit
// array, each at a 64-byte boundary. The codec checks every field before it allocates.

#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "../file/file_io.hpp"
#include "../kinds/sub_filter_table.hpp"
#include "../kinds/word_payload.hpp"
#include "bloomkit/compat/redisbloom_kind.hpp"
#include "redisbloom_slot.hpp"

namespace bloomkit {
namespace detail {
namespace {

constexpr std::uint64_t link_entry_size = 64;

// One row of the link table; offsets count from the start of the payload.
struct link_entry {
  redisbloom::link_fields fields;
  std::uint64_t offset = 0;
};

void encode_link(const link_entry& e, unsigned char* out) {
  const redisbloom::link_fields& f = e.fields;
  const std::uint64_t error = std::bit_cast<std::uint64_t>(f.error);
  const std::uint64_t bpe = std::bit_cast<std::uint64_t>(f.bpe);
  std::memcpy(out + 0, &f.bytes, 8);
  std::memcpy(out + 8, &f.bits, 8);
  std::memcpy(out + 16, &f.entries, 8);
  std::memcpy(out + 24, &f.size, 8);
  std::memcpy(out + 32, &error, 8);
  std::memcpy(out + 40, &bpe, 8);
  std::memcpy(out + 48, &e.offset, 8);
  std::memcpy(out + 56, &f.hashes, 4);
  out[60] = f.n2;
}

link_entry decode_link(const unsigned char* in) {
  link_entry e;
  redisbloom::link_fields& f = e.fields;
  std::uint64_t error = 0;
  std::uint64_t bpe = 0;
  std::memcpy(&f.bytes, in + 0, 8);
  std::memcpy(&f.bits, in + 8, 8);
  std::memcpy(&f.entries, in + 16, 8);
  std::memcpy(&f.size, in + 24, 8);
  std::memcpy(&error, in + 32, 8);
  std::memcpy(&bpe, in + 40, 8);
  std::memcpy(&e.offset, in + 48, 8);
  std::memcpy(&f.hashes, in + 56, 4);
  f.n2 = in[60];
  f.error = std::bit_cast<double>(error);
  f.bpe = std::bit_cast<double>(bpe);
  return e;
}

bool zero(const unsigned char* p, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

redisbloom::chain read_links(const filter_file& file, verify check) {
  const file_header& h = file.header();
  const std::string& source = file.source();
  throw_if(kind_traits<redisbloom::chain>::check_fields(h), source);
  const std::uint64_t count = h.kind_params[2];
  const mapped_payload payload = file.map_payload(check);
  const unsigned char* data = payload.data;
  auto inconsistent = [&](const std::string& what) {
    fail_file(errc::corrupt_file, source, "inconsistent link table: " + what);
  };
  std::uint64_t stored = 0;
  std::memcpy(&stored, data + count * link_entry_size, 8);
  if (stored != table_checksum(data, count * link_entry_size)) {
    fail_file(errc::corrupt_file, source, "link table checksum mismatch (the table is corrupt)");
  }
  if (check == verify::full) {
    const std::uint64_t end = count * link_entry_size + 8;
    if (!zero(data + end, table_size(count, link_entry_size) - end)) {
      inconsistent("non-zero bytes after the table");
    }
  }
  std::vector<link_entry> table;
  table.reserve(count);
  std::uint64_t expected = table_size(count, link_entry_size);
  std::uint64_t total_bits = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    const unsigned char* row = data + i * link_entry_size;
    link_entry e = decode_link(row);
    const std::string name = "link " + std::to_string(i) + ": ";
    if (!zero(row + 61, 3)) inconsistent(name + "reserved bytes set");
    if (auto problem = redisbloom::storage_problem(e.fields)) inconsistent(name + *problem);
    if (e.offset != expected) {
      inconsistent(name + "offset " + std::to_string(e.offset) + ", expected " +
                   std::to_string(expected));
    }
    const std::uint64_t end = e.offset + e.fields.bytes;
    if (end > h.payload_length) inconsistent(name + "bits past the payload's end");
    if (check == verify::full && i + 1 < count && !zero(data + end, align_up(end) - end)) {
      inconsistent(name + "non-zero padding");
    }
    expected = align_up(end);
    total_bits += e.fields.bits;
    table.push_back(e);
  }
  const std::uint64_t end = table.back().offset + table.back().fields.bytes;
  if (end != h.payload_length || total_bits != h.bits) {
    inconsistent("the links end at byte " + std::to_string(end) + " with " +
                 std::to_string(total_bits) + " bits; the header says " +
                 std::to_string(h.payload_length) + " and " + std::to_string(h.bits));
  }
  redisbloom::chain c =
      redisbloom::chain_access::empty(h.inserted, static_cast<std::uint32_t>(h.kind_params[0]),
                                      static_cast<std::uint32_t>(h.kind_params[1]));
  for (std::size_t i = 0; i < table.size(); ++i) {
    redisbloom::chain_access::append(c, table[i].fields);
    std::memcpy(redisbloom::chain_access::slot(c, i).data(), data + table[i].offset,
                table[i].fields.bytes);
  }
  payload.owner->check();  // nothing copied came from a file that changed meanwhile
  return c;
}

}  // namespace

template struct file_io<redisbloom::chain>;

}  // namespace detail

detail::file_check kind_traits<redisbloom::chain>::check_fields(const file_header& h) {
  using detail::inconsistent_header;
  if (auto problem = detail::check_flags(h, 0)) return problem;
  if (h.hashes != 0) {
    return inconsistent_header("hashes is " + std::to_string(h.hashes) +
                               ", must be 0 for a RedisBloom filter (each link has its own)");
  }
  if ((h.kind_params[0] & ~std::uint64_t{redisbloom::known_options}) != 0) {
    return inconsistent_header("RedisBloom options " + std::to_string(h.kind_params[0]));
  }
  const bool bloomkit_hash = (h.kind_params[0] & redisbloom::option_bloomkit_hash) != 0;
  if (bloomkit_hash != (h.scheme == hash_scheme::redisbloom_xxh3)) {
    return inconsistent_header("RedisBloom options " + std::to_string(h.kind_params[0]) +
                               " do not match hash scheme " + std::string(to_string(h.scheme)));
  }
  if (h.kind_params[1] > 0xffffffffULL) {
    return inconsistent_header("RedisBloom growth " + std::to_string(h.kind_params[1]));
  }
  const std::uint64_t count = h.kind_params[2];
  if (count < 1 || count > redisbloom::max_chain_links) {
    return inconsistent_header("link count " + std::to_string(count) + " is not in 1.." +
                               std::to_string(redisbloom::max_chain_links));
  }
  if (h.kind_params[3] != 0) return inconsistent_header("kind_params[3] is not 0");
  // The table and at least one word per link; the table decides the exact length.
  if (h.payload_length < detail::table_size(count, detail::link_entry_size) + 8 * count) {
    return inconsistent_header("payload length " + std::to_string(h.payload_length) +
                               " cannot hold " + std::to_string(count) + " links");
  }
  return {};
}

file_header kind_traits<redisbloom::chain>::header_of(const filter_type& c) {
  file_header h;
  h.kind = filter_kind::redisbloom;
  h.scheme = c.file_scheme();
  h.bits = c.cells();
  h.hashes = 0;
  h.capacity = std::max<std::uint64_t>(c.capacity(), 1);
  h.target_fpp = c.target_fpp();
  h.inserted = c.items();
  h.payload_offset = file_header_size;
  h.kind_params = {c.options(), c.growth(), c.filters(), 0};
  return h;
}

detail::file_payload kind_traits<redisbloom::chain>::payload_of(const filter_type& c) {
  static constexpr unsigned char zeros[detail::payload_alignment] = {};
  detail::file_payload payload;
  std::vector<unsigned char>& table = payload.owned;
  table.assign(detail::table_size(c.filters(), detail::link_entry_size), 0);
  payload.parts = {table};
  std::uint64_t offset = table.size();
  for (std::size_t i = 0; i < c.filters(); ++i) {
    const redisbloom::link_fields f = c.link(i);
    detail::encode_link({f, offset}, table.data() + i * detail::link_entry_size);
    payload.parts.push_back(c.link_bits(i));
    const std::uint64_t gap = detail::align_up(f.bytes) - f.bytes;
    if (i + 1 < c.filters() && gap > 0) {
      payload.parts.push_back({zeros, static_cast<std::size_t>(gap)});
    }
    offset += detail::align_up(f.bytes);
  }
  const std::uint64_t checksum =
      detail::table_checksum(table.data(), c.filters() * detail::link_entry_size);
  std::memcpy(table.data() + c.filters() * detail::link_entry_size, &checksum, 8);
  return payload;
}

redisbloom::chain kind_traits<redisbloom::chain>::load(const detail::filter_file& file) {
  return detail::read_links(file, verify::full);
}

redisbloom::chain kind_traits<redisbloom::chain>::map(const detail::filter_file& file,
                                                      verify check) {
  return detail::read_links(file, check);
}

}  // namespace bloomkit
