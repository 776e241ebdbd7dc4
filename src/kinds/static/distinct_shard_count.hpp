#pragma once
// The shard count of a static filter is that of its distinct keys, known only once its shards are
// built (they drop repeats): shards are built for the count of every key given, and again in the
// rare case repeats change it, so a set gives the same bytes whatever its repeats and whichever
// path (static_filter::build_from_hashes, static_builder, the CLI) builds it.

#include <cstdint>
#include <vector>

#include "bloomkit/static_filter.hpp"

namespace bloomkit::detail {

struct distinct_shards {
  std::vector<static_shard> shards;
  std::uint32_t shard_bits = 0;
  std::uint64_t distinct = 0;  // keys the shards hold
  unsigned builds = 0;         // 1, or 2 when repeats changed the shard count
};

// build(shard_bits) builds every shard of the given count of keys for 2^shard_bits shards.
template <class Build>
distinct_shards build_for_distinct_keys(std::uint64_t keys_given, Build&& build) {
  distinct_shards out;
  out.shard_bits = static_filter::shard_bits_for(keys_given);
  while (true) {
    out.shards = build(out.shard_bits);
    ++out.builds;
    out.distinct = 0;
    for (const static_shard& shard : out.shards) out.distinct += shard.keys();
    const std::uint32_t distinct_bits = static_filter::shard_bits_for(out.distinct);
    if (distinct_bits == out.shard_bits) return out;
    out.shards.clear();
    out.shard_bits = distinct_bits;
  }
}

}  // namespace bloomkit::detail
