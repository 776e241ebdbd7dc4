#include "pack_tables.hpp"

#include <cstring>
#include <memory>

#include "bloomkit/bit_array.hpp"

namespace bloomkit::detail {

void pack_tables(std::vector<static_shard>& shards) {
  constexpr std::uint64_t huge_page = std::uint64_t{2} << 20;
  if (shards.size() < 2) return;
  std::uint64_t total = 0;
  for (const static_shard& shard : shards) total += shard.bytes().size();
  if (total < huge_page) return;
  // Table sizes are multiples of 8 bytes (fuse_table_bytes): whole words.
  const auto arena = std::make_shared<bit_array>(total * 8);
  auto* const base = reinterpret_cast<unsigned char*>(arena->mutable_words().data());
  std::uint64_t at = 0;
  for (static_shard& shard : shards) {
    const auto bytes = shard.bytes();
    std::memcpy(base + at, bytes.data(), bytes.size());
    shard = static_shard::view(arena, {base + at, bytes.size()}, shard.geometry(),
                               shard.fingerprint_bits(), shard.seed(), shard.keys());
    at += bytes.size();
  }
}

}  // namespace bloomkit::detail
