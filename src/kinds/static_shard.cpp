// The construction of one binary fuse table (Graf & Lemire 2022): peel the 3-hypergraph of the
// keys' cells, then assign fingerprints in reverse peeling order.
//
// Keys are handled as x = mix(h + seed) (detail/binary_fuse.hpp), sorted: x's top bits choose its
// first segment, so in sorted order the cells a key touches are near those of the key before,
// and the counting pass walks the table almost sequentially (the paper's sort by segment).
// Sorting also puts duplicate hashes side by side (mix is a bijection). x gives h back (unmix),
// so x is all a key needs to be.

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "bloomkit/bit_array.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/static_filter.hpp"
#include "static/sort_distinct.hpp"

namespace bloomkit {

namespace {

using detail::fuse_cells;
using detail::fuse_geometry;

constexpr std::uint64_t max_shard_build_keys = std::uint64_t{1} << 31;

void check_bits(std::uint32_t bits) {
  if (bits < 1 || bits > static_shard::max_fingerprint_bits) {
    throw error(errc::invalid_argument,
                "static filter: fingerprint bits must be 1 to 32, not " + std::to_string(bits));
  }
}

// A table's bytes (a multiple of 8), zeroed: a bit_array, so that a large table gets huge pages
// (bit_array.cpp) and a lookup's three cells cost no TLB misses.
std::shared_ptr<bit_array> zero_table(std::uint64_t size) {
  return std::make_shared<bit_array>(size * 8);
}

// The peeling order of the keys xs (sorted, distinct) in geometry g: per peeled key, x and which
// of its cells is its own; empty if the graph does not peel (this seed fails).
struct peeled {
  std::vector<std::uint64_t> keys;
  std::vector<std::uint8_t> own_cell;
};

bool peel(std::span<const std::uint64_t> xs, fuse_geometry g, peeled& order) {
  const std::uint64_t cells = g.cells();
  // Per cell: 4 * (keys on it) + XOR of which cell (0..2) it is for each of them, and the XOR of
  // their x: when one key is left, these name it and its cell.
  std::vector<std::uint8_t> count(cells, 0);
  std::vector<std::uint64_t> xor_keys(cells, 0);
  for (const std::uint64_t x : xs) {
    const auto at = fuse_cells(x, g);
    for (std::uint8_t j = 0; j < 3; ++j) {
      count[at[j]] = static_cast<std::uint8_t>((count[at[j]] + 4) ^ j);
      xor_keys[at[j]] ^= x;
    }
  }
  // Cells of one key, a stack: a cell enters it once (counts only fall).
  std::vector<std::uint32_t> alone;
  alone.reserve(cells);
  for (std::uint64_t i = 0; i < cells; ++i) {
    if ((count[i] >> 2) == 1) alone.push_back(static_cast<std::uint32_t>(i));
  }
  order.keys.resize(xs.size());
  order.own_cell.resize(xs.size());
  std::size_t peeled_keys = 0;
  while (!alone.empty()) {
    const std::uint32_t i = alone.back();
    alone.pop_back();
    if ((count[i] >> 2) != 1) continue;  // emptied since it was pushed
    const std::uint64_t x = xor_keys[i];
    const std::uint8_t own = count[i] & 3;
    const auto at = fuse_cells(x, g);
    // A count past 63 keys wraps; a wrong key here then fails the seed instead of the filter.
    if (at[own] != i || peeled_keys == xs.size()) return false;
    order.keys[peeled_keys] = x;
    order.own_cell[peeled_keys] = own;
    ++peeled_keys;
    for (std::uint8_t j = 0; j < 3; ++j) {
      const std::uint64_t c = at[j];
      count[c] = static_cast<std::uint8_t>((count[c] - 4) ^ j);
      xor_keys[c] ^= x;
      if (j != own && (count[c] >> 2) == 1) alone.push_back(static_cast<std::uint32_t>(c));
    }
  }
  return peeled_keys == xs.size();
}

}  // namespace

std::uint64_t static_shard::next_seed(std::uint64_t seed) noexcept {
  // splitmix64's step and finalizer: seeds far apart for any first seed.
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t static_shard::bytes_for(std::uint64_t n, std::uint32_t fingerprint_bits) noexcept {
  return detail::fuse_table_bytes(detail::fuse_geometry_for(n).cells(), fingerprint_bits);
}

std::uint64_t static_shard::build_memory(std::uint64_t n) noexcept {
  const std::uint64_t cells = detail::fuse_geometry_for(n).cells();
  // Input hashes and the peeling order (8 + 9 bytes per key); per cell a count, an XOR of keys
  // and a stack slot (1 + 8 + 4 bytes); the table at 32 bits.
  return 17 * n + 13 * cells + detail::fuse_table_bytes(cells, max_fingerprint_bits);
}

std::optional<static_shard> static_shard::try_build(std::span<std::uint64_t> hashes,
                                                    std::uint32_t fingerprint_bits,
                                                    std::uint64_t seed) {
  check_bits(fingerprint_bits);
  if (hashes.size() > max_shard_build_keys) {
    throw error(errc::too_large, "static filter: a shard holds at most 2^31 keys, not " +
                                     std::to_string(hashes.size()));
  }
  for (auto& h : hashes) h = detail::fuse_key(h, seed);
  // Sorted and distinct (the builder's sort: bench numbers in sort_distinct.hpp); its scratch is
  // freed before the peeling allocates (build_memory: 8 bytes per key either way).
  const auto distinct = [&] {
    std::vector<std::uint64_t> scratch;
    return hashes.first(detail::sort_distinct(hashes, 0, scratch));
  }();
  const fuse_geometry g = detail::fuse_geometry_for(distinct.size());
  // Back to hashes, the dropped duplicates' places holding copies of the first: the same set.
  const auto restore = [&] {
    for (auto& x : distinct) x = detail::fuse_unmix(x) - seed;
    std::fill(hashes.begin() + static_cast<std::ptrdiff_t>(distinct.size()), hashes.end(),
              distinct.empty() ? 0 : distinct.front());
  };

  peeled order;
  if (!peel(distinct, g, order)) {
    restore();
    return std::nullopt;
  }
  const std::uint64_t size = detail::fuse_table_bytes(g.cells(), fingerprint_bits);
  auto table = zero_table(size);
  unsigned char* bytes = reinterpret_cast<unsigned char*>(table->mutable_words().data());
  // Reverse peeling order: a key's own cell is set after every key peeled later, which are the
  // only ones that could still change its other two cells.
  for (std::size_t k = order.keys.size(); k-- > 0;) {
    const std::uint64_t x = order.keys[k];
    const std::uint8_t own = order.own_cell[k];
    const auto at = fuse_cells(x, g);
    const std::uint64_t h = detail::fuse_unmix(x) - seed;
    const std::uint32_t others = detail::load_cell(bytes, at[(own + 1) % 3], fingerprint_bits) ^
                                 detail::load_cell(bytes, at[(own + 2) % 3], fingerprint_bits);
    detail::store_cell(bytes, at[own], fingerprint_bits,
                       detail::fuse_fingerprint(h, fingerprint_bits) ^ others);
  }
  restore();

  static_shard shard;
  shard.bytes_ = bytes;
  shard.size_ = static_cast<std::size_t>(size);
  shard.owner_ = std::move(table);
  shard.geometry_ = g;
  shard.bits_ = fingerprint_bits;
  shard.seed_ = seed;
  shard.keys_ = distinct.size();
  return shard;
}

static_shard static_shard::build(std::span<std::uint64_t> hashes, std::uint32_t fingerprint_bits,
                                 std::uint64_t first_seed) {
  std::uint64_t seed = first_seed;
  for (int attempt = 0; attempt < max_attempts; ++attempt, seed = next_seed(seed)) {
    if (auto shard = try_build(hashes, fingerprint_bits, seed)) return std::move(*shard);
  }
  throw error(errc::invalid_argument, "static filter: no seed of " + std::to_string(max_attempts) +
                                          " builds a shard of " + std::to_string(hashes.size()) +
                                          " hashes (are they the hashes of distinct keys?)");
}

static_shard static_shard::view(std::shared_ptr<const void> owner,
                                std::span<const unsigned char> bytes,
                                detail::fuse_geometry geometry, std::uint32_t fingerprint_bits,
                                std::uint64_t seed, std::uint64_t keys) {
  check_bits(fingerprint_bits);
  if (bytes.size() != detail::fuse_table_bytes(geometry.cells(), fingerprint_bits)) {
    throw error(errc::invalid_argument,
                "static filter: a shard's table is " + std::to_string(bytes.size()) +
                    " bytes, not " +
                    std::to_string(detail::fuse_table_bytes(geometry.cells(), fingerprint_bits)));
  }
  static_shard shard;
  shard.owner_ = std::move(owner);
  shard.bytes_ = bytes.data();
  shard.size_ = bytes.size();
  shard.geometry_ = geometry;
  shard.bits_ = fingerprint_bits;
  shard.seed_ = seed;
  shard.keys_ = keys;
  return shard;
}

bool operator==(const static_shard& a, const static_shard& b) noexcept {
  return a.seed_ == b.seed_ && a.keys_ == b.keys_ && a.bits_ == b.bits_ &&
         a.geometry_.segment_length == b.geometry_.segment_length &&
         a.geometry_.segment_count == b.geometry_.segment_count && a.size_ == b.size_ &&
         std::memcmp(a.bytes_, b.bytes_, a.size_) == 0;
}

}  // namespace bloomkit
