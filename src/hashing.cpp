#include "bloomkit/hashing.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace bloomkit {

std::string_view to_string(hash_scheme scheme) noexcept {
  switch (scheme) {
    case hash_scheme::xxh3_128:
      return "xxh3-128";
    case hash_scheme::xxh3_64_split_block:
      return "xxh3-64-split-block";
    case hash_scheme::guava_murmur128_mitz_32:
      return "guava-murmur128-mitz-32";
    case hash_scheme::guava_murmur128_mitz_64:
      return "guava-murmur128-mitz-64";
    case hash_scheme::bits_and_blooms_v3:
      return "bits-and-blooms-v3";
    case hash_scheme::go_zero:
      return "go-zero";
  }
  return "unknown";
}

bool is_known(hash_scheme scheme) noexcept {
  switch (scheme) {
    case hash_scheme::xxh3_128:
    case hash_scheme::xxh3_64_split_block:
    case hash_scheme::guava_murmur128_mitz_32:
    case hash_scheme::guava_murmur128_mitz_64:
    case hash_scheme::bits_and_blooms_v3:
    case hash_scheme::go_zero:
      return true;
  }
  return false;
}

digest128 xxh3_128(std::string_view key) noexcept {
  const XXH128_hash_t h = XXH3_128bits(key.data(), key.size());
  return {h.low64, h.high64};
}

std::uint64_t xxh3_64(std::string_view key) noexcept {
  return XXH3_64bits(key.data(), key.size());
}

}  // namespace bloomkit
