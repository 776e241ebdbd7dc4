#pragma once
// Storing a static filter as a generation of a Redis filter (internal; docs/REDIS.md, "Static
// filters"): what rebuild and push share. A new filter gets generation 1 and its meta last (only
// if none exists); an existing one gets generation g+1: its delta preallocated, the meta marked
// (writers then fill the new delta too), the tables built and written, every string checked,
// then one atomic flip; g expires rebuild_grace later. A failure removes what it wrote and the
// mark.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "static_meta.hpp"
#include "static_scheme.hpp"

namespace bloomkit::redis::detail {

struct static_store {
  double fpp = 0;         // target p of the whole filter
  double static_fpp = 0;  // of the tables about to be built: the delta takes p - static_fpp
  std::uint64_t delta_capacity = 0;
  unsigned shard_bits = default_shard_bits_log2;
  bool allow_empty = false;
};

// `build` is called after the mark and returns the tables (and counts the source's keys).
void store_static(client& c, const std::string& name, const std::optional<static_meta>& old,
                  const static_store& o, const filter_options& options,
                  const std::function<static_image(std::uint64_t&)>& build);

}  // namespace bloomkit::redis::detail
