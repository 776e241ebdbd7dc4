#pragma once
// The meta hash N:meta of a native filter (internal; docs/REDIS.md, "Layout"): its fields,
// decoded and checked. A meta this build cannot read (another format version or hash scheme) is
// errc::unsupported; a field missing, not a number or inconsistent is errc::corrupt_file (the
// meta is corrupt); a valid meta of other parameters than asked is the caller's error.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/hashing.hpp"
#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/redis/shard_layout.hpp"

namespace bloomkit::redis::detail {

// The layout of the Redis strings that hold `cells` of `cell_bits` bits each.
inline shard_layout stored_layout(const shard_layout& cells, std::uint32_t cell_bits) noexcept {
  return {cells.shard_bits * cell_bits, cells.shard_count, cells.hashes};
}

// The kind field of a counting filter's meta (a bit filter's meta has none).
inline constexpr const char* counting_kind = "counting";
inline constexpr std::uint32_t counter_bits = 4;

struct filter_meta {
  std::uint32_t format_version = meta_format_version;
  hash_scheme scheme = sharded_scheme;
  shard_layout layout;
  std::uint64_t capacity = 0;
  double target_fpp = 0;
  std::uint64_t generation = 1;
  std::uint64_t next_generation = 0;
  std::int64_t created = 0;
  std::uint64_t inserted = 0;
  // The generation whose shards carry a guard bit (shard_layout::guard_bit), 0 for none.
  // Filters made before guards, shards of 2^32 bits, and a generation an older bloomkit rebuilt
  // have none: their shards are checked by length instead.
  std::uint64_t guard_generation = 0;
  // Bits per cell: 1, or 4 for a counting filter (field kind = counting; `layout` counts its
  // counters, and its strings hold 4 bits per counter: stored()).
  std::uint32_t cell_bits = 1;

  bool guarded() const noexcept { return guard_generation != 0 && guard_generation == generation; }
  // The layout of the shard strings in bits (guard bit, lengths, transfers).
  shard_layout stored() const noexcept { return stored_layout(layout, cell_bits); }
  // The hash fields, as HSET arguments.
  std::vector<std::string> fields() const;
};

// A handle takes the meta's parameters and generations (open, info, rebuild).
void adopt(filter_state& f, const filter_meta& m);

// The meta a filter of these parameters has (created left 0): shards of at most 2^shard_bits
// bits of Redis string, so a counting filter's shards hold at most 2^(shard_bits - 2) counters.
filter_meta meta_for(std::uint64_t capacity, double fpp, unsigned shard_bits,
                     std::uint32_t cell_bits = 1);
// Decodes the fields of filter `name`'s meta (HGETALL).
filter_meta decode_meta(const std::string& name, const std::map<std::string, std::string>& fields);
// Reads N:meta: nullopt when it does not exist; errc::wrong_type when it is not a hash.
std::optional<filter_meta> read_meta(client& c, const std::string& name);
// read_meta, and errc::not_found when there is none.
filter_meta require_meta(client& c, const std::string& name);
// "capacity 1000 (asked 2000), hashes 7 (asked 10)": what differs between two metas.
std::string differences(const filter_meta& have, const filter_meta& want);
// The list differences() and window_differences() build: "field have (asked want), ...".
class difference_list {
 public:
  void add(const char* field, const std::string& have, const std::string& want);
  void add(const char* field, std::uint64_t have, std::uint64_t want);
  void add(const char* field, double have, double want);  // exactly (exact_double)
  void add_layout(const shard_layout& have, const shard_layout& want);
  const std::string& text() const noexcept { return out_; }

 private:
  std::string out_;
};

// A whole number as Redis stores one (decimal digits, at most 2^64 - 1).
bool parse_u64(const std::string& text, std::uint64_t& out);

// The fields of filter `name`'s meta hash, read for a decoder: every problem is an error naming
// the meta (errc::corrupt_file; errc::unsupported for a format version or scheme this build does
// not read).
class meta_fields {
 public:
  meta_fields(const std::string& name, const std::map<std::string, std::string>& fields);
  const std::string& source() const noexcept { return source_; }
  bool has(const char* field) const { return fields_.count(field) != 0; }
  error corrupt(const std::string& problem) const;
  // The field's text / whole number; a missing or malformed field is corrupt.
  const std::string& text(const char* field) const;
  std::uint64_t number(const char* field) const;
  // target_fpp as a number, or nullopt when it is not one (the caller names the range).
  std::optional<double> real(const char* field) const;
  // format_version (meta_format_version .. newest) and hash_scheme are ones this build reads
  // (unsupported otherwise); returns the version.
  std::uint32_t check_version_and_scheme(std::uint32_t newest = meta_format_version) const;
  // bits_per_shard, shard_count and hashes, consistent with each other.
  shard_layout layout() const;

 private:
  std::string source_;
  const std::map<std::string, std::string>& fields_;
};

}  // namespace bloomkit::redis::detail
