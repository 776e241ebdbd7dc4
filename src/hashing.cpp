#include "bloomkit/hashing.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace bloomkit {

std::string_view to_string(hash_scheme scheme) noexcept {
  switch (scheme) {
    case hash_scheme::xxh3_128:
      return "xxh3-128";
    case hash_scheme::redis_sharded_xxh3:
      return "redis-sharded-xxh3";
  }
  return "unknown";
}

bool is_known(hash_scheme scheme) noexcept {
  return scheme == hash_scheme::xxh3_128 || scheme == hash_scheme::redis_sharded_xxh3;
}

digest128 xxh3_128(std::string_view key) noexcept {
  const XXH128_hash_t h = XXH3_128bits(key.data(), key.size());
  return {h.low64, h.high64};
}

}  // namespace bloomkit
