#include "filter_image.hpp"

#include <span>
#include <string>

#include "bloomkit/file.hpp"
#include "shard_file.hpp"

namespace bloomkit::redis::detail {

namespace {

std::span<unsigned char> bytes_of(bit_array& bits) {
  return {reinterpret_cast<unsigned char*>(bits.mutable_words().data()), bits.byte_size()};
}

// Redis's order <-> the local filters' (an involution): bits MSB-first in a byte, or counter i
// the high nibble of byte i / 2 for even i.
void swap_cell_order(std::span<unsigned char> bytes, std::uint32_t cell_bits) {
  if (cell_bits == 1) {
    reverse_bits_in_bytes(bytes);
    return;
  }
  for (unsigned char& b : bytes) b = static_cast<unsigned char>((b << 4) | (b >> 4));
}

}  // namespace

filter_image load_image(const std::filesystem::path& file) {
  raw_filter raw = load_raw(file);
  const file_header& h = raw.header;
  filter_image out;
  out.meta.cell_bits = cell_bits_of_file(h, file.string());
  out.meta.layout = layout_of_file(h, file.string());
  out.meta.capacity = h.capacity;
  out.meta.target_fpp = h.target_fpp;
  out.meta.inserted = h.inserted;
  out.bits = std::move(raw.bits);
  swap_cell_order(bytes_of(out.bits), out.meta.cell_bits);
  return out;
}

void save_image(const filter_meta& m, bit_array bits, const std::filesystem::path& file) {
  const shard_layout stored = m.stored();
  const std::span<unsigned char> bytes = bytes_of(bits);
  swap_cell_order(bytes, m.cell_bits);
  // A shard string is whole bytes; bits past its cells in the last byte (the guard bit among
  // them) must stay 0 in a file.
  if (stored.shard_bits % 8 != 0 && stored.shard_count == 1) {
    bytes[stored.shard_bytes() - 1] &=
        static_cast<unsigned char>((1u << (stored.shard_bits % 8)) - 1);
  }
  file_header h = header_for(m.layout, m.cell_bits);
  h.capacity = m.capacity;
  h.target_fpp = m.target_fpp;
  h.inserted = m.inserted;
  save_raw(h, bits, file);
}

}  // namespace bloomkit::redis::detail
