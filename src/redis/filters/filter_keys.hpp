#pragma once
// The Redis keys of a native filter named N (docs/REDIS.md, "Layout"): N:meta and the shards
// N:<generation>:<shard>; and finding every key of those shapes on a server or cluster, orphans
// without a meta included (drop).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/redis/client.hpp"

namespace bloomkit::redis::detail {

std::string meta_key(const std::string& name);
std::string shard_key(const std::string& name, std::uint64_t generation, std::uint64_t shard);
// shard_key(name, generation, j) for j in [0, count).
std::vector<std::string> shard_keys(const std::string& name, std::uint64_t generation,
                                    std::uint64_t count);

// Whether `key` is N:meta or N:<generation>:<shard> of the filter named `name`, the numbers
// written as shard_key writes them (decimal, no leading zero).
bool is_filter_key(std::string_view name, std::string_view key);
// `text` as a glob pattern (SCAN MATCH) that matches exactly `text`.
std::string glob_literal(std::string_view text);
// Every key of filter `name` (is_filter_key) on every master, found with SCAN MATCH N:*.
std::vector<std::string> find_filter_keys(client& c, const std::string& name);

}  // namespace bloomkit::redis::detail
