#include "hash_units.hpp"

#include <algorithm>

namespace bloomkit::detail {

namespace {

// Hashes a split gathers per sub-unit before appending them: 512 KiB writes.
constexpr std::size_t split_chunk = std::size_t{1} << 16;

}  // namespace

void read_unit(const hash_spill& spill, const hash_unit& unit, std::span<std::uint64_t> out) {
  std::uint64_t at = 0;
  for (const spill_segment& segment : unit.segments) {
    spill.read(segment, out.subspan(at, segment.count));
    at += segment.count;
  }
}

std::vector<hash_unit> split_unit(hash_spill& spill, hash_unit& unit, unsigned extra_bits) {
  const std::size_t parts = std::size_t{1} << extra_bits;
  const unsigned bits = unit.bits + extra_bits;
  std::vector<hash_unit> out(parts);
  std::vector<std::vector<std::uint64_t>> pending(parts);
  for (std::size_t i = 0; i < parts; ++i) {
    out[i].bits = bits;
    out[i].prefix = (unit.prefix << extra_bits) | i;
    pending[i].reserve(split_chunk);
  }
  const auto flush = [&](std::size_t i) {
    if (pending[i].empty()) return;
    out[i].segments.push_back(spill.append(pending[i]));
    out[i].count += pending[i].size();
    pending[i].clear();
  };
  const std::uint64_t mask = parts - 1;
  std::vector<std::uint64_t> block;
  for (const spill_segment& segment : unit.segments) {
    block.resize(segment.count);
    spill.read(segment, block);
    for (const std::uint64_t h : block) {
      const std::size_t i = (h >> (64 - bits)) & mask;
      pending[i].push_back(h);
      if (pending[i].size() == split_chunk) flush(i);
    }
    spill.release(segment);
  }
  for (std::size_t i = 0; i < parts; ++i) flush(i);
  unit.segments.clear();
  unit.count = 0;
  return out;
}

}  // namespace bloomkit::detail
