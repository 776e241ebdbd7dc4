#pragma once
// Making and unmaking a native filter's keys (internal; docs/REDIS.md, "Creating and opening"):
// shards preallocated one at a time, checked whole, the meta written last; used by create, push
// and rebuild.

#include <functional>
#include <string>
#include <vector>

#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/shard_layout.hpp"
#include "filter_meta.hpp"

namespace bloomkit::redis::detail {

// create / push: preallocates generation 1, fills it (push: `fill` gets the shard keys), then
// writes the meta last, only if none exists. Returns the meta now in Redis (ours, or an
// identical one a concurrent create wrote). On failure, unlinks every shard it made.
filter_meta create_with(client& c, const std::string& name, const filter_meta& want,
                        const std::function<void(const std::vector<std::string>&)>& fill);

// Preallocates shard strings one at a time (preallocate_command: full length, zero bits, the
// guard bit set), harmless even on a shard another client already uses. `created` gets every
// key this call may have allocated.
void preallocate(client& c, const std::vector<std::string>& keys, const shard_layout& layout,
                 bool guarded, std::vector<std::string>& created);

// Throws broken_shard_error for the first of `keys` that is missing or short.
void require_whole(client& c, const std::string& name, const std::vector<std::string>& keys,
                   const shard_layout& layout, bool guarded);

// Removes keys, best effort: used to undo a failed create or rebuild, where the original error
// is what the caller must see.
void unlink_quietly(client& c, const std::vector<std::string>& keys) noexcept;

void validate_name(const std::string& name);

}  // namespace bloomkit::redis::detail
