#include "static_layout.hpp"

#include <utility>

#include "bloomkit/hashing.hpp"
#include "filter_keys.hpp"
#include "static_scheme.hpp"

namespace bloomkit::redis::detail {

static_layout::static_layout(std::string name, std::uint64_t generation,
                             std::shared_ptr<const static_generation> g)
    : name_(std::move(name)), generation_(generation), g_(std::move(g)) {
  codec_.type = std::to_string(g_->fingerprint_bits);
  codec_.type.insert(codec_.type.begin(), 'u');
  codec_.cell_numbers = true;
  codec_.xor_reads = true;
}

void static_layout::place(std::string_view key, cell_op, placement_sink& out) const {
  const static_generation& g = *g_;
  const std::uint64_t h = xxh3_64(key);
  const std::uint64_t table = g.table_of(h);
  const static_probe p = probe_table(g.tables[table], g.fingerprint_bits, h);
  const std::uint64_t mask = reverse_field(p.fingerprint, g.fingerprint_bits);
  const std::uint64_t first = g.first_string[table];
  // The cells ascend, so a key's cells in one string are adjacent: one placement per string.
  std::size_t i = 0;
  while (i < p.cells.size()) {
    const std::uint64_t string = first + p.cells[i] / g.fields_per_string;
    std::size_t j = i + 1;
    while (j < p.cells.size() && first + p.cells[j] / g.fields_per_string == string) ++j;
    std::uint64_t* offsets = out.add(string, static_cast<std::uint32_t>(j - i), mask);
    for (std::size_t c = i; c < j; ++c) offsets[c - i] = p.cells[c] % g.fields_per_string;
    i = j;
  }
}

std::string static_layout::string_key(std::uint64_t string) const {
  return shard_key(name_, generation_, string);
}

std::uint64_t static_layout::guard_bit_of(std::uint64_t string) const {
  return string_guard_bit(g_->string_cells(string) * g_->fingerprint_bits);
}

}  // namespace bloomkit::redis::detail
