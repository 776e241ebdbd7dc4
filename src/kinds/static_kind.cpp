// Files of static filters (kind 7, scheme xxh3-64-binary-fuse, docs/FORMAT.md): b and s in the
// header's kind_params, then a payload of the shard table (per shard its seed, keys, segment
// length and count, slots and payload offset; then the table's XXH64, zeros to 64 bytes) and the
// shards' packed tables back to back (each a multiple of 8 bytes). map() serves lookups from the
// mapping; every field a hostile file can set is checked before a table is read through it.

#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "../file/file_io.hpp"
#include "../file/header_codec.hpp"
#include "bloomkit/kinds.hpp"
#include "bloomkit/static_filter.hpp"
#include "sub_filter_table.hpp"
#include "word_payload.hpp"

namespace bloomkit {
namespace detail {
namespace {

// seed u64, keys u64, segment_length u32, segment_count u32, slots u64, offset u64.
constexpr std::uint64_t shard_entry_size = 40;

struct shard_entry {
  std::uint64_t seed = 0;
  std::uint64_t keys = 0;
  std::uint32_t segment_length = 0;
  std::uint32_t segment_count = 0;
  std::uint64_t slots = 0;
  std::uint64_t offset = 0;
};

std::uint32_t fingerprint_bits_of(const file_header& h) {
  return static_cast<std::uint32_t>(h.kind_params[0]);
}
std::uint32_t shard_bits_of(const file_header& h) {
  return static_cast<std::uint32_t>(h.kind_params[1]);
}
std::uint64_t shard_count_of(const file_header& h) {
  return std::uint64_t{1} << shard_bits_of(h);
}
std::uint64_t shard_table_size(std::uint64_t shards) {
  return table_size(shards, shard_entry_size);
}

std::vector<unsigned char> shard_table(std::span<const shard_entry> entries) {
  std::vector<unsigned char> table(shard_table_size(entries.size()), 0);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    unsigned char* e = table.data() + i * shard_entry_size;
    put_le<std::uint64_t>(e, 0, entries[i].seed);
    put_le<std::uint64_t>(e, 8, entries[i].keys);
    put_le<std::uint32_t>(e, 16, entries[i].segment_length);
    put_le<std::uint32_t>(e, 20, entries[i].segment_count);
    put_le<std::uint64_t>(e, 24, entries[i].slots);
    put_le<std::uint64_t>(e, 32, entries[i].offset);
  }
  const std::uint64_t bytes = entries.size() * shard_entry_size;
  put_le<std::uint64_t>(table.data(), bytes, table_checksum(table.data(), bytes));
  return table;
}

shard_entry read_entry(const unsigned char* e) {
  return {get_le<std::uint64_t>(e, 0),  get_le<std::uint64_t>(e, 8),  get_le<std::uint32_t>(e, 16),
          get_le<std::uint32_t>(e, 20), get_le<std::uint64_t>(e, 24), get_le<std::uint64_t>(e, 32)};
}

// What is wrong with entry i, expected at `offset` in a payload of `length` bytes, if anything.
std::optional<std::string> entry_problem(const shard_entry& e, std::uint64_t i,
                                         std::uint64_t offset, std::uint32_t bits,
                                         std::uint64_t length) {
  const std::string shard = "shard " + std::to_string(i) + " ";
  const std::uint64_t max_length = std::uint64_t{1} << fuse_max_segment_bits;
  if (e.segment_length == 0 || (e.segment_length & (e.segment_length - 1)) != 0 ||
      e.segment_length > max_length) {
    return shard + "has segment length " + std::to_string(e.segment_length) +
           " (a power of two up to 2^18 expected)";
  }
  if (e.segment_count == 0) return shard + "has no segment";
  const fuse_geometry g{e.segment_length, e.segment_count};
  if (e.slots != g.cells()) {
    return shard + "has " + std::to_string(e.slots) + " slots, its segments make " +
           std::to_string(g.cells());
  }
  if (e.keys > e.slots) {
    return shard + "holds " + std::to_string(e.keys) + " keys in " + std::to_string(e.slots) +
           " slots";
  }
  if (e.offset != offset) {
    return shard + "is at offset " + std::to_string(e.offset) + ", expected " +
           std::to_string(offset) + " (tables back to back after the shard table)";
  }
  const std::uint64_t bytes = fuse_table_bytes(e.slots, bits);
  if (offset > length || bytes > length - offset) {
    return shard + "ends past the payload's " + std::to_string(length) + " bytes";
  }
  return std::nullopt;
}

// The padding bits past a table's slots are zero.
file_check check_table_padding(const unsigned char* table, std::uint64_t slots, std::uint32_t bits,
                               std::uint64_t i) {
  return check_padding_bits(table, slots * bits, fuse_table_bytes(slots, bits),
                            "past the slots of shard " + std::to_string(i));
}

static_filter open_static(const filter_file& file, verify check, bool copy) {
  const file_header& h = file.header();
  const std::string& source = file.source();
  const mapped_payload mapping = file.map_payload(copy ? verify::full : check);
  const unsigned char* payload = mapping.data;
  std::shared_ptr<const void> owner = mapping.owner;
  if (copy) {  // load: the filter owns a copy, the mapping goes
    // A bit_array: huge pages for a large filter (bit_array.cpp); the payload is whole words.
    auto bytes = std::make_shared<bit_array>(h.payload_length * 8);
    auto* words = reinterpret_cast<unsigned char*>(bytes->mutable_words().data());
    std::memcpy(words, mapping.data, h.payload_length);
    mapping.owner->check();
    payload = words;
    owner = std::move(bytes);
  }
  const auto corrupt = [&](const std::string& problem) {
    mapping.owner->check();  // a file that changed meanwhile is not "corrupt"
    fail_file(errc::corrupt_file, source, problem);
  };
  const std::uint32_t bits = fingerprint_bits_of(h);
  const std::uint64_t count = shard_count_of(h);
  if (get_le<std::uint64_t>(payload, count * shard_entry_size) !=
      table_checksum(payload, count * shard_entry_size)) {
    corrupt("shard table checksum mismatch (the table is corrupt)");
  }
  if (check == verify::full || copy) {
    const std::uint64_t end = count * shard_entry_size + 8;
    throw_if(check_zero(payload + end, shard_table_size(count) - end, "after the shard table"),
             source);
  }
  std::vector<static_shard> shards;
  shards.reserve(count);
  std::uint64_t offset = shard_table_size(count), keys = 0, slots = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    const shard_entry e = read_entry(payload + i * shard_entry_size);
    if (auto problem = entry_problem(e, i, offset, bits, h.payload_length)) {
      corrupt("inconsistent shard table: " + *problem);
    }
    const std::uint64_t bytes = fuse_table_bytes(e.slots, bits);
    shards.push_back(static_shard::view(owner, {payload + offset, static_cast<std::size_t>(bytes)},
                                        {e.segment_length, e.segment_count}, bits, e.seed, e.keys));
    offset += bytes;
    keys += e.keys;
    slots += e.slots;
  }
  if (offset != h.payload_length) {
    corrupt("inconsistent shard table: the tables end at " + std::to_string(offset) +
            ", the payload at " + std::to_string(h.payload_length));
  }
  if (keys != h.inserted || slots * bits != h.bits) {
    corrupt("inconsistent shard table: the shards hold " + std::to_string(keys) + " keys in " +
            std::to_string(slots * bits) + " bits, the header says " + std::to_string(h.inserted) +
            " keys in " + std::to_string(h.bits));
  }
  if (check == verify::full || copy) {
    for (std::uint64_t i = 0; i < count; ++i) {
      const auto table = shards[i].bytes();
      throw_if(check_table_padding(table.data(), shards[i].cells(), bits, i), source);
    }
  }
  mapping.owner->check();
  if (copy)
    return static_filter::from_shards(h.target_fpp, bits, shard_bits_of(h), std::move(shards));
  return static_filter::over_file(h.target_fpp, bits, shard_bits_of(h), std::move(shards),
                                  mapping.owner.get());
}

}  // namespace

template struct file_io<static_filter>;

}  // namespace detail

static_filter kind_traits<static_filter>::create(const kind_request&) {
  throw error(errc::invalid_argument,
              "a static filter is built from its whole key set, never created empty: use "
              "bloomkit build FILE --kind static --fpp P KEYFILE... (or static_filter::build)");
}

detail::file_check kind_traits<static_filter>::check_fields(const file_header& h) {
  using detail::inconsistent_header;
  if (h.scheme != scheme) {
    return detail::file_problem{errc::unsupported, "a static filter with hash scheme " +
                                                       std::string(to_string(h.scheme)) +
                                                       " is not supported"};
  }
  if (auto problem = detail::check_flags(h, 0)) return problem;
  const std::uint64_t bits = h.kind_params[0], shard_bits = h.kind_params[1];
  if (bits < 1 || bits > static_shard::max_fingerprint_bits) {
    return inconsistent_header("fingerprint bits " + std::to_string(bits) + " is not in 1..32");
  }
  if (shard_bits > static_filter::max_shard_bits) {
    return inconsistent_header("shard bits " + std::to_string(shard_bits) + " is not in 0..32");
  }
  if (h.kind_params[2] != 0 || h.kind_params[3] != 0) {
    return inconsistent_header("kind_params[2] and kind_params[3] must be 0");
  }
  if (h.hashes != 3) {
    return inconsistent_header("hashes " + std::to_string(h.hashes) + " is not 3");
  }
  if (h.capacity != std::max<std::uint64_t>(h.inserted, 1)) {
    return inconsistent_header("capacity " + std::to_string(h.capacity) +
                               " is not the keys it holds (" + std::to_string(h.inserted) + ")");
  }
  const std::uint64_t shards = std::uint64_t{1} << shard_bits;
  // Each shard has at least 3 slots and 8 bytes of padding past them.
  if (h.bits % bits != 0 || h.bits / bits < 3 * shards) {
    return inconsistent_header("bits " + std::to_string(h.bits) + " is not " +
                               std::to_string(shards) + " shards' slots of " +
                               std::to_string(bits) + " bits");
  }
  if (h.payload_length < detail::shard_table_size(shards) + 8 * shards ||
      h.payload_length % 8 != 0) {
    return inconsistent_header("payload length " + std::to_string(h.payload_length) +
                               " is not a whole number of words at least as long as the table of " +
                               std::to_string(shards) + " shards");
  }
  return {};
}

file_header kind_traits<static_filter>::header_of(const filter_type& f) {
  file_header h;
  h.kind = kind;
  h.scheme = scheme;
  h.bits = f.bits();
  h.hashes = f.hashes();
  h.capacity = std::max<std::uint64_t>(f.size(), 1);
  h.target_fpp = f.target_fpp();
  h.inserted = f.size();
  h.payload_offset = file_header_size;
  h.kind_params = {f.fingerprint_bits(), f.shard_bits(), 0, 0};
  return h;
}

detail::file_payload kind_traits<static_filter>::payload_of(const filter_type& f) {
  std::vector<detail::shard_entry> entries;
  entries.reserve(f.shards().size());
  std::uint64_t offset = detail::shard_table_size(f.shards().size());
  for (const static_shard& s : f.shards()) {
    const auto g = s.geometry();
    entries.push_back({s.seed(), s.keys(), g.segment_length, g.segment_count, s.cells(), offset});
    offset += s.bytes().size();
  }
  detail::file_payload payload;
  payload.owned = detail::shard_table(entries);
  payload.parts.push_back({payload.owned.data(), payload.owned.size()});
  for (const static_shard& s : f.shards()) payload.parts.push_back(s.bytes());
  return payload;
}

static_filter kind_traits<static_filter>::load(const detail::filter_file& file) {
  return detail::open_static(file, verify::full, true);
}

static_filter kind_traits<static_filter>::map(const detail::filter_file& file, verify check) {
  return detail::open_static(file, check, false);
}

}  // namespace bloomkit
