#include "filter_image.hpp"

#include <algorithm>
#include <string>

#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/detail/filter_access.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"
#include "shard_file.hpp"

namespace bloomkit::redis::detail {

namespace {

unsigned char* bytes_of(bit_array& bits) {
  return reinterpret_cast<unsigned char*>(bits.mutable_words().data());
}

// Counter i: Redis's high nibble of byte i / 2 for even i, the local filter's low nibble.
void swap_nibbles(unsigned char* bytes, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    bytes[i] = static_cast<unsigned char>((bytes[i] << 4) | (bytes[i] >> 4));
  }
}

filter_image load_counting(const std::filesystem::path& file) {
  const auto f = load<counting_bloom_filter>(file);
  filter_image out;
  filter_meta& m = out.meta;
  m.cell_bits = counter_bits;
  m.layout = {f.cells(), 1, f.hashes()};
  if (const std::string problem = m.stored().inconsistency(); !problem.empty()) {
    throw error(errc::unsupported, file.string() + ": " + std::to_string(f.cells()) +
                                       " counters do not fit one Redis string (" + problem +
                                       "); a counting filter pushed from a file is one shard");
  }
  m.capacity = f.capacity();
  m.target_fpp = f.target_fpp();
  m.inserted = f.inserted();
  out.bits = bloomkit::detail::filter_access::storage(f);
  swap_nibbles(bytes_of(out.bits), out.bits.byte_size());
  return out;
}

}  // namespace

filter_image load_image(const std::filesystem::path& file) {
  if (read_header(file).kind == filter_kind::counting) return load_counting(file);
  raw_filter raw = load_raw(file);
  const file_header& h = raw.header;
  filter_image out;
  out.meta.layout = layout_of_file(h, file.string());
  out.meta.capacity = h.capacity;
  out.meta.target_fpp = h.target_fpp;
  out.meta.inserted = h.inserted;
  out.bits = std::move(raw.bits);
  reverse_bits_in_bytes({bytes_of(out.bits), out.bits.byte_size()});
  return out;
}

void require_saveable(const std::string& name, const filter_meta& m) {
  if (m.cell_bits == 1 || m.layout.shard_count == 1) return;
  throw error(errc::unsupported,
              "filter '" + name + "': a counting filter of " +
                  std::to_string(m.layout.shard_count) +
                  " shards cannot be pulled (a counting file is one array of counters; "
                  "`bloomkit redis create --kind counting --shard-bits 32` makes one shard of up "
                  "to 2^30 counters)");
}

void save_image(const std::string& name, const filter_meta& m, bit_array bits,
                const std::filesystem::path& file) {
  require_saveable(name, m);
  const shard_layout stored = m.stored();
  unsigned char* bytes = bytes_of(bits);
  if (m.cell_bits == 1) {
    reverse_bits_in_bytes({bytes, bits.byte_size()});
  } else {
    swap_nibbles(bytes, bits.byte_size());
  }
  // A shard string is whole bytes; bits past its cells in the last byte (the guard bit among
  // them) must stay 0 in a file.
  if (stored.shard_bits % 8 != 0 && stored.shard_count == 1) {
    bytes[stored.shard_bytes() - 1] &=
        static_cast<unsigned char>((1u << (stored.shard_bits % 8)) - 1);
  }
  if (m.cell_bits == 1) {
    file_header h = header_for(m.layout);
    h.capacity = m.capacity;
    h.target_fpp = m.target_fpp;
    h.inserted = m.inserted;
    save_raw(h, bits, file);
    return;
  }
  const filter_config config{m.layout.shard_bits, m.layout.hashes, m.capacity, m.target_fpp};
  save(bloomkit::detail::filter_access::make<counting_bloom_filter>(config, std::move(bits),
                                                                    m.inserted),
       file);
}

}  // namespace bloomkit::redis::detail
