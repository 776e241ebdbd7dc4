#pragma once
// The meta hash N:meta of a static filter in Redis (internal; docs/REDIS.md, "Static filters"):
// the filter's fields and those of its current generation (a static table per shard, without
// its cells, and the optional delta's layout), decoded and checked as a native filter's are
// (filter_meta.hpp): another format version or hash scheme is errc::unsupported, a field missing
// or inconsistent errc::corrupt_file, a native or window filter's meta errc::incompatible.
//
// Strings of generation g: N:g:0 .. N:g:D-1 are the delta's shards (a word-blocked filter of
// 64-bit words, static_layout.hpp's delta_layout), N:g:D .. are the static tables' cells, table
// after table, at most fields_per_string cells of b bits per string, each string followed by its
// guard bit.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/shard_layout.hpp"

namespace bloomkit::redis::detail {

// The meta's `kind` of a static filter.
inline constexpr const char* static_kind = "static";

// One shard of the static part, without its cells: what a client needs to find a key's cells.
struct static_table {
  std::uint64_t seed = 0;
  std::uint32_t segment_length = 0;
  std::uint32_t segment_count = 0;
  std::uint64_t keys = 0;  // distinct keys of the shard
  std::uint64_t cells() const noexcept {
    return (static_cast<std::uint64_t>(segment_count) + 2) * segment_length;
  }
  friend bool operator==(const static_table&, const static_table&) = default;
};

// What a generation holds: its static tables and its delta.
struct static_generation {
  std::uint32_t fingerprint_bits = 0;  // b
  std::uint32_t shard_log2 = 0;        // 2^shard_log2 tables; a key's table: h >> (64 - s)
  std::vector<static_table> tables;
  std::uint64_t fields_per_string = 0;  // cells per string (a table's last string may hold fewer)
  std::uint64_t keys = 0;               // distinct keys of the set it was built from
  // The delta (keys added since the rebuild): 64-bit words of k bits per key in shards of whole
  // words (delta_layout); shard_count 0: none.
  shard_layout delta;
  std::uint64_t delta_capacity = 0;
  double delta_fpp = 0;

  bool has_delta() const noexcept { return delta.shard_count != 0; }
  // Strings of the generation: the delta's shards, then the tables'. Valid after derive().
  std::uint64_t strings() const noexcept { return first_string.empty() ? 0 : first_string.back(); }
  std::uint64_t static_strings() const noexcept { return strings() - delta.shard_count; }
  // Cells of static string `string` (a string number >= delta.shard_count).
  std::uint64_t string_cells(std::uint64_t string) const;
  // The table of key hash h.
  std::uint64_t table_of(std::uint64_t h) const noexcept {
    return shard_log2 == 0 ? 0 : h >> (64 - shard_log2);
  }
  // Bits of the static part (cells only) and of the delta.
  std::uint64_t static_bits() const noexcept;
  // Computes first_string from the tables; errc::corrupt_file-worthy problems are returned ("").
  std::string derive();

  // For table j: the string holding its first cells (first_string[tables.size()] = strings()).
  std::vector<std::uint64_t> first_string;
};

struct static_meta {
  std::uint32_t format_version = 1;
  double target_fpp = 0;
  unsigned shard_bits = default_shard_bits_log2;  // strings of at most 2^shard_bits bits
  std::uint64_t generation = 1;
  std::uint64_t next_generation = 0;
  std::int64_t created = 0;
  std::uint64_t inserted = 0;  // new keys counted into the delta
  static_generation current;
  // While a rebuild runs: the delta of next_generation (writers fill it too); its tables are
  // known at the flip only.
  shard_layout next_delta;

  // The hash fields as HSET arguments (generation fields under their own names).
  std::vector<std::string> fields() const;
};

// The per-generation fields of `g` as HSET arguments, each name prefixed by `prefix` ("" for the
// current generation; the flip writes them).
std::vector<std::string> generation_fields(const static_generation& g);
// Names of the fields of the delta's layout that a rebuild marks as next_<name>.
std::vector<std::string> next_delta_fields(const shard_layout& delta);

// Whether a meta's fields are those of a static filter (field kind = static).
bool is_static_meta(const std::map<std::string, std::string>& fields);
// Decodes a static filter's meta; a meta of another kind is errc::incompatible naming it.
static_meta decode_static_meta(const std::string& name,
                               const std::map<std::string, std::string>& fields);
// HGETALL N:meta decoded: nullopt when there is none (errc::incompatible for another kind).
std::optional<static_meta> read_static_meta(client& c, const std::string& name);

// The bits of `value`'s low `bits` bits in reverse order: Redis reads a field MSB-first, the
// tables store it LSB-first (docs/REDIS.md, "Static filters").
constexpr std::uint64_t reverse_field(std::uint64_t value, std::uint32_t bits) noexcept {
  std::uint64_t out = 0;
  for (std::uint32_t i = 0; i < bits; ++i) out |= ((value >> i) & 1u) << (bits - 1 - i);
  return out;
}

}  // namespace bloomkit::redis::detail
