#pragma once
// The non-zero counters of a counting filter's shard (internal; info's figures, which BITCOUNT
// cannot give for 4-bit cells): the string is read in chunks and counted here.

#include <cstdint>
#include <string>

#include "bloomkit/redis/client.hpp"

namespace bloomkit::redis::detail {

// Non-zero u4 counters among the first `counters` of string `key`: one pipelined round trip of
// GETRANGEs of 1 MiB (a shard of 2^25 counters is 16 MiB on the wire).
std::uint64_t nonzero_counters(client& c, const std::string& key, std::uint64_t counters);

}  // namespace bloomkit::redis::detail
