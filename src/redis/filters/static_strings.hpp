#pragma once
// The strings of a static generation (internal; docs/REDIS.md, "Static filters"): their keys and
// lengths, the tables' cells written into them and read back, the check that every one is
// whole, and the error naming one that is not. A table's cells are packed low bit first (as
// bloomkit::static_filter holds them); Redis numbers bits MSB-first, so every byte is reversed
// on the way (reverse_bits_in_bytes) and a field reads back bit-reversed (reverse_field).

#include <cstdint>
#include <string>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "static_meta.hpp"

namespace bloomkit::redis::detail {

// The layout (bits, one shard) of string number `string` of generation g: a delta shard or a
// static string.
shard_layout string_layout(const static_generation& g, std::uint64_t string);

// Cells per string for b-bit cells in strings of at most 2^shard_bits bits: a multiple of 8, so
// that every string starts on a byte of its table.
std::uint64_t fields_per_string_for(unsigned shard_bits, std::uint32_t bits);

// errc::not_found naming string `key` of f's generation g, missing or short.
error broken_string_error(const filter_state& f, const static_generation& g,
                          const std::string& key);
// Strings of generation `generation` (described by g) that are missing, short or lack their
// guard bit: one pipelined round trip.
std::vector<std::string> broken_strings(client& c, const std::string& name,
                                        std::uint64_t generation, const static_generation& g);

// Writes the tables' cells (one byte vector per table, packed low bit first) into the static
// strings of `generation` and sets each string's guard bit; `created` gets every key written.
void write_tables(client& c, const std::string& name, std::uint64_t generation,
                  const static_generation& g, const std::vector<std::vector<unsigned char>>& cells,
                  std::vector<std::string>& created);
// Reads them back (pull): errc::not_found for a string missing or short.
std::vector<std::vector<unsigned char>> read_tables(client& c, const filter_state& f,
                                                    const static_generation& g);

}  // namespace bloomkit::redis::detail
