#pragma once
// bloomkit::redis::guava_helper_filter: the filter Java services keep in Redis with the
// Guava-based SETBIT helper (the "BloomFilterHelper" pattern: murmur3_128, Guava's 32-bit double
// hashing, one SETBIT per offset on one Redis string), read and written in place
// (docs/INTEROP.md, "The Guava-based Redis helper").
//
//   auto c = bloomkit::redis::client::connect("redis://127.0.0.1:6379");
//   auto [bits, k] = bloomkit::guava_helper::optimal_params(1'000'000, 0.01);  // the helper's
//   bloomkit::redis::guava_helper_filter f(c, "users", bits, k);   // funnel: putString(UTF_8)
//   f.insert_many(keys);      // pipelined BITFIELDs: a key's k bits in one command
//
// The filter is the one Redis string `key` (single_string_filter.hpp), offset o of the helper's
// murmurHashOffset being SETBIT / BITFIELD offset o. Nothing in Redis records bitSize, k or the
// funnel: every user must pass the helper's values. With funnel::long_integer, keys are the 8
// little-endian bytes of the long (guava_helper::long_key).

#include <cstddef>
#include <cstdint>
#include <string>

#include "bloomkit/compat/guava_helper.hpp"
#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/single_string_filter.hpp"

namespace bloomkit::redis {

struct guava_helper_options {
  guava_helper::funnel funnel = guava_helper::funnel::string;
  // Keys per BITFIELD command in batches (as filter_options::keys_per_command).
  std::size_t keys_per_command = 16;
};

class guava_helper_filter : public single_string_filter {
 public:
  // Sends nothing. bits (the helper's bitSize) outside 1..guava_helper::max_bits or hashes
  // outside 1..guava_helper::max_hashes is errc::invalid_argument naming the key.
  guava_helper_filter(client& c, std::string key, std::uint64_t bits, std::uint32_t hashes,
                      guava_helper_options options = {});
};

}  // namespace bloomkit::redis
