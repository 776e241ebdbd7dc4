#include "static_scheme.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <thread>
#include <utility>

#include "bloomkit/detail/binary_fuse.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/hashing.hpp"

namespace bloomkit::redis::detail {

namespace {

bloomkit::detail::fuse_geometry geometry_of(const static_table& t) noexcept {
  return {t.segment_length, t.segment_count};
}

}  // namespace

static_probe probe_table(const static_table& t, std::uint32_t bits, std::uint64_t h) noexcept {
  const auto cells = bloomkit::detail::fuse_key_cells(h, t.seed, geometry_of(t));
  return {bloomkit::detail::fuse_fingerprint(h, bits), cells};
}

std::uint32_t fingerprint_bits_for(double fpp) {
  return bloomkit::static_filter::fingerprint_bits_for(fpp);
}

double fingerprint_fpp(std::uint32_t bits) {
  return std::ldexp(1.0, -static_cast<int>(bits));
}

static_image image_of(const bloomkit::static_filter& f) {
  static_image out;
  static_generation& g = out.generation;
  g.fingerprint_bits = f.fingerprint_bits();
  g.shard_log2 = f.shard_bits();
  g.keys = f.size();
  out.target_fpp = f.target_fpp();
  for (const bloomkit::static_shard& s : f.shards()) {
    const auto geometry = s.geometry();
    g.tables.push_back({s.seed(), geometry.segment_length, geometry.segment_count, s.keys()});
    // The packed cells without the table's padding.
    const std::uint64_t n = (s.cells() * g.fingerprint_bits + 7) / 8;
    const auto bytes = s.bytes();
    out.cells.emplace_back(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
  }
  return out;
}

bloomkit::static_filter filter_of(const static_image& image) {
  const static_generation& g = image.generation;
  std::vector<bloomkit::static_shard> shards;
  shards.reserve(g.tables.size());
  for (std::size_t i = 0; i < g.tables.size(); ++i) {
    const static_table& t = g.tables[i];
    auto bytes = std::make_shared<std::vector<unsigned char>>(
        bloomkit::detail::fuse_table_bytes(t.cells(), g.fingerprint_bits), 0);
    std::copy(image.cells[i].begin(), image.cells[i].end(), bytes->begin());
    const std::span<const unsigned char> view(bytes->data(), bytes->size());
    shards.push_back(bloomkit::static_shard::view(bytes, view, geometry_of(t), g.fingerprint_bits,
                                                  t.seed, t.keys));
  }
  return bloomkit::static_filter::from_shards(image.target_fpp, g.fingerprint_bits, g.shard_log2,
                                              std::move(shards));
}

static_image build_image(const key_source& source, double fpp, std::uint64_t& given) {
  // Hashes only: 8 bytes a key, whatever the keys' lengths.
  std::vector<std::uint64_t> hashes;
  source([&](std::span<const std::string_view> batch) {
    given += batch.size();
    for (const std::string_view key : batch) hashes.push_back(xxh3_64(key));
  });
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  return image_of(bloomkit::static_filter::build_from_hashes(std::move(hashes), fpp, threads));
}

}  // namespace bloomkit::redis::detail
