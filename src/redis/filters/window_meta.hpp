#pragma once
// The meta hash N:meta of a window filter (internal; docs/REDIS.md, "Window filters"): its
// fields, decoded and checked as a native filter's are (filter_meta.hpp): a format version other
// than 1 (bits) or 2 (words) or another hash scheme is errc::unsupported, a field missing or
// inconsistent errc::corrupt_file, a native filter's meta errc::incompatible.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/window_filter.hpp"

namespace bloomkit::redis::detail {

// The value of the meta's `kind` field for window filters (native metas have none).
inline constexpr const char* window_kind = "window";
// format_version of a words-format window (1, meta_format_version, is the bits format). An older
// bloomkit refuses it as unsupported rather than reading its words as bits.
inline constexpr std::uint32_t window_words_format_version = 2;

struct window_meta {
  redis_window_config config;
  shard_layout layout;
  std::int64_t created = 0;
  // The hash fields, as HSET arguments.
  std::vector<std::string> fields() const;
};

// Throws errc::invalid_argument naming the first parameter out of range.
void validate_window(const redis_window_config& config);
// The meta a window of this configuration has (created left 0): every slice sized for
// ceil(capacity / S) keys at p / (S + 1): words, word_filter_sizing's words in shards of whole
// words; bits, the sharded layout of a native filter.
window_meta window_meta_for(const redis_window_config& config);
window_meta decode_window_meta(const std::string& name,
                               const std::map<std::string, std::string>& fields);
// HGETALL N:meta: nullopt when it does not exist; errc::wrong_type when it is not a hash.
std::optional<std::map<std::string, std::string>> read_meta_fields(client& c,
                                                                   const std::string& name);
// "window 3600 (asked 7200), slices 8 (asked 4)": what differs between two metas. The slice
// format is not compared: a filter of the same parameters in the other format is opened as is.
std::string window_differences(const window_meta& have, const window_meta& want);

}  // namespace bloomkit::redis::detail
