#include "bloomkit/hashing.hpp"

#include <array>

#include "enum_names.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace bloomkit {

namespace {

constexpr std::array<detail::enum_name<hash_scheme>, 16> scheme_names{{
    {hash_scheme::xxh3_128, "xxh3-128"},
    {hash_scheme::xxh3_64_split_block, "xxh3-64-split-block"},
    {hash_scheme::xxh3_128_window_groups, "xxh3-128-window-groups"},
    {hash_scheme::xxh3_64_binary_fuse, "xxh3-64-binary-fuse"},
    {hash_scheme::xxh3_64_cuckoo, "xxh3-64-cuckoo"},
    {hash_scheme::splitmix64_split_block, "splitmix64-split-block"},
    {hash_scheme::splitmix64_128, "splitmix64-128"},
    {hash_scheme::guava_murmur128_mitz_32, "guava-murmur128-mitz-32"},
    {hash_scheme::guava_murmur128_mitz_64, "guava-murmur128-mitz-64"},
    {hash_scheme::bits_and_blooms_v3, "bits-and-blooms-v3"},
    {hash_scheme::go_zero, "go-zero"},
    {hash_scheme::redisbloom, "redisbloom"},
    {hash_scheme::redisbloom_xxh3, "redisbloom-xxh3"},
    {hash_scheme::spark_v1, "spark-v1"},
    {hash_scheme::spark_v2, "spark-v2"},
    {hash_scheme::redis_sharded_xxh3, "redis-sharded-xxh3"},
}};

}  // namespace

std::string_view to_string(hash_scheme scheme) noexcept {
  return detail::name_in<hash_scheme>(scheme_names, scheme, "unknown");
}

bool is_known(hash_scheme scheme) noexcept {
  return to_string(scheme) != "unknown";
}

digest128 xxh3_128(std::string_view key) noexcept {
  const XXH128_hash_t h = XXH3_128bits(key.data(), key.size());
  return {h.low64, h.high64};
}

std::uint64_t xxh3_64(std::string_view key) noexcept {
  return XXH3_64bits(key.data(), key.size());
}

}  // namespace bloomkit
