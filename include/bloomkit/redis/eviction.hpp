#pragma once
// Whether a Redis server (every master of a cluster) may evict a filter's keys under memory
// pressure (docs/REDIS.md, "Eviction"). An evicted shard makes a bloomkit filter refuse to
// answer until it is rebuilt; an evicted go-zero key answers "absent" to everything.

#include <string>

#include "bloomkit/redis/client.hpp"

namespace bloomkit::redis {

// Reads maxmemory_policy (INFO memory) of every master. allkeys-* may evict any key; volatile-*
// only keys with a time to live (`keys_expire`); noeviction none. Returns "" when no master may
// evict the keys, else one warning that starts with `what` (e.g. "filter 'urls'") and names the
// policy ("maxmemory-policy allkeys-lru") and, on a cluster, the master. If the server refuses
// INFO (an ACL user without it), the warning says the policy could not be checked.
std::string eviction_warning(client& c, const std::string& what, bool keys_expire);

}  // namespace bloomkit::redis
