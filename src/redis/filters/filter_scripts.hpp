#pragma once
// The Lua scripts of the native filters (internal; docs/REDIS.md). None runs on the hot path:
// once per create (the meta), once per rebuild (the flip), and on error paths (removing what a
// write to a missing shard created).

#include <string>
#include <utility>
#include <vector>

#include "bloomkit/redis/client.hpp"

namespace bloomkit::redis::detail {

// Creates the meta only if it does not exist: two clients creating the same filter at once
// cannot overwrite each other's meta (the loser compares parameters instead).
inline constexpr const char* create_meta_script =
    "if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end "
    "redis.call('HSET', KEYS[1], unpack(ARGV)) return 1";

// The rebuild's flip: one atomic step from generation g to the rebuilt one.
inline constexpr const char* flip_script =
    "if redis.call('HGET', KEYS[1], 'next_generation') ~= ARGV[1] then return 0 end "
    "redis.call('HSET', KEYS[1], 'generation', ARGV[1], 'inserted', ARGV[2], "
    "'shard_guard', ARGV[3]) "
    "redis.call('HDEL', KEYS[1], 'next_generation') return 1";

// A static filter's rebuild marks its meta: next_generation and the new delta's fields
// (ARGV: field, value, ...) in one step, so no writer sees the one without the others. 0: a
// rebuild is running; -1: the filter is gone.
inline constexpr const char* static_mark_script =
    "if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end "
    "if redis.call('HEXISTS', KEYS[1], 'next_generation') == 1 then return 0 end "
    "redis.call('HSET', KEYS[1], unpack(ARGV)) return 1";

// A static filter's flip: ARGV[1] the rebuilt generation, then field, value, ... (generation,
// its tables, its delta); the marks go.
inline constexpr const char* static_flip_script =
    "if redis.call('HGET', KEYS[1], 'next_generation') ~= ARGV[1] then return 0 end "
    "redis.call('HSET', KEYS[1], unpack(ARGV, 2)) "
    "redis.call('HDEL', KEYS[1], 'next_generation', 'next_delta_bits_per_shard', "
    "'next_delta_shard_count', 'next_delta_hashes') return 1";

// Deletes KEYS[1] unless its bit ARGV[1] is set (ARGV[1] = -1: unconditionally). A script so
// that the test and the delete are one step: a shard that a concurrent create preallocated
// between our write and this cleanup has its guard bit and stays.
inline constexpr const char* remove_orphan_script =
    "local guard = tonumber(ARGV[1]) "
    "if guard >= 0 and redis.call('GETBIT', KEYS[1], guard) == 1 then return 0 end "
    "return redis.call('DEL', KEYS[1])";

// Deletes a meta that lacks format_version (a count sent to a dropped filter made it).
inline constexpr const char* remove_stray_meta_script =
    "if redis.call('HEXISTS', KEYS[1], 'format_version') == 1 then return 0 end "
    "return redis.call('DEL', KEYS[1])";

// EVAL of `script` on one key (routed by it in a cluster) with arguments `argv`.
inline command eval_command(const char* script, const std::string& key,
                            std::vector<std::string> argv) {
  std::vector<std::string> args = {"EVAL", script, "1", key};
  for (auto& a : argv) args.push_back(std::move(a));
  return command{std::move(args), 3};
}

}  // namespace bloomkit::redis::detail
