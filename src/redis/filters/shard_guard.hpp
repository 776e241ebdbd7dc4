#pragma once
// Shards that are missing, short, or were just made by a write (internal; docs/REDIS.md,
// "Missing shards"). A guarded filter's shards end with a guard bit that create sets and nothing
// else writes (shard_layout::guard_bit); filters without one (older filters, shards of 2^32
// bits) are checked by string length.

#include <string>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/shard_layout.hpp"

namespace bloomkit::redis::detail {

// The command that sizes a new shard to its full length, zero-filled, and sets its guard bit
// (without a guard: sizes it only). Harmless on a shard that exists.
command preallocate_command(const std::string& key, const shard_layout& layout, bool guarded);

// The error of a lookup or write that met shard `key` of filter `name` missing or short:
// errc::not_found, "filter 'N': shard 'N:g:j' is missing (evicted or deleted): the filter cannot
// answer; rebuild or push it again". With a client, asks the shard's length (one round trip, on
// the error path only) to tell a short shard from a missing one.
error broken_shard_error(const std::string& name, const std::string& key, client* c,
                         const shard_layout& layout, bool guarded);

// Shards of `keys` that are missing, short or lack their guard bit: one pipelined round trip.
std::vector<std::string> broken_shards(client& c, const std::vector<std::string>& keys,
                                       const shard_layout& layout, bool guarded);

// Deletes shards a write may just have created: with a guard, only those whose guard bit is
// still 0 (a script: a shard another client preallocated meanwhile stays); without, all of them.
// Best effort (the caller throws the error that matters): returns "" or why some could not be
// removed (e.g. an ACL user without EVAL).
std::string remove_orphan_shards(client& c, const std::vector<std::string>& keys,
                                 const shard_layout& layout, bool guarded);

// Deletes N:meta if it lacks format_version (a count sent to a filter dropped meanwhile made a
// hash of that one field), in one script. Best effort, like remove_orphan_shards.
std::string remove_stray_meta(client& c, const std::string& meta_key);

}  // namespace bloomkit::redis::detail
