#pragma once
// A native Redis filter's shard strings as a local filter file and back (internal;
// docs/REDIS.md, "Push and pull"): a bit filter is a classic file, a counting filter a counting
// file, of one shard or of the sharded scheme (shard_file.hpp). Only the byte order differs:
// Redis numbers bits MSB-first (u4 counter i is the high nibble of byte i / 2 for even i), the
// local filters LSB-first.

#include <filesystem>

#include "bloomkit/bit_array.hpp"
#include "filter_meta.hpp"

namespace bloomkit::redis::detail {

struct filter_image {
  filter_meta meta;  // layout, cell_bits, capacity, target_fpp, inserted
  bit_array bits;    // meta.stored(): the shards' bits back to back, in Redis's order
};

// Loads a classic or counting filter file as the strings of a filter. errc::unsupported for a
// file no Redis filter can hold (other kinds and schemes, more cells than one string holds).
filter_image load_image(const std::filesystem::path& file);
// Saves the strings of a filter as a file.
void save_image(const filter_meta& m, bit_array bits, const std::filesystem::path& file);

}  // namespace bloomkit::redis::detail
