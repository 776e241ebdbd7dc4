#pragma once
// Internal: the local mirror of a sharded Redis filter, a classic file of hash scheme
// redis_sharded_xxh3 (docs/FORMAT.md, scheme 20) whose kind_params[0] is its shard count. The
// core file layer leaves that field to bloomkit::redis, which checks it where it uses it (push).

#include <string>

#include "bloomkit/file_header.hpp"

namespace bloomkit::redis::detail {

// The problem with the header's shard layout (2 or more equal shards of whole 64-bit words, at
// most 2^32 bits each), or "" when it holds.
std::string sharded_file_inconsistency(const file_header& h);

}  // namespace bloomkit::redis::detail
