#pragma once
// What a client did besides plain commands (internal): tests use it to prove a path was taken
// (a MOVED followed, a retry, a reconnect). Not part of the public API.

#include <cstddef>

#include "bloomkit/redis/client.hpp"

namespace bloomkit::redis::detail {

struct client_stats {
  std::size_t moved = 0;               // MOVED redirections followed
  std::size_t ask = 0;                 // ASK redirections followed
  std::size_t retries = 0;             // commands retried (broken connection, TRYAGAIN, ...)
  std::size_t connects = 0;            // connections opened (the first ones included)
  std::size_t slot_map_refreshes = 0;  // CLUSTER SLOTS loads (the first one included)
  std::size_t master_lookups = 0;      // masters found through the sentinels (the first included)
};

// The access point to a client's internals (declared a friend by client).
struct client_access {
  static client_stats stats(const client& c);
};

inline client_stats stats_of(const client& c) {
  return client_access::stats(c);
}

}  // namespace bloomkit::redis::detail
