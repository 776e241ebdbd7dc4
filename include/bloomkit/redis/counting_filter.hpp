#pragma once
// bloomkit::redis::redis_counting_filter: a counting Bloom filter in Redis, shared by every
// client that opens it by name, so keys can be removed (docs/REDIS.md, "Counting filters").
//
//   auto f = bloomkit::redis::redis_counting_filter::create(c, "items", 1'000'000, 0.01);
//   f.insert("item:42");      // BITFIELD OVERFLOW SAT INCRBY u4 ... 1: one command per key
//   f.remove("item:42");      // true: its counters were decremented (one script per key)
//   f.remove("item:7");       // false (almost always): definitely absent, nothing changed
//
// It is a redis_filter whose cells are 4-bit saturating counters instead of bits: the same
// sharded layout (a counter per probe position, all k counters of a key in one shard string of
// 4 bits per counter), the same meta (with kind = counting), TTL, generations and rebuild,
// drop, and push / pull to a counting filter file (one shard: a native counting_bloom_filter
// file, the same positions; more: a counting file of the sharded scheme). Inserts and lookups are
// batched and pipelined by the same engine as the bit filter's.
//
// remove(key) is atomic per key: one Lua script reads the key's counters and the shard's guard
// bit, refuses a key with a zero counter (definitely absent: nothing changes), and decrements
// every counter below 15; a counter at 15 is saturated (its true count is unknown) and is never
// decremented. Removing a key that was never inserted but tests positive (a false positive)
// decrements other keys' counters and can make them false negatives: remove only keys you
// inserted (docs/REDIS.md says what that means for a service).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "bloomkit/redis/redis_filter.hpp"

namespace bloomkit::redis {

class redis_counting_filter : public redis_filter {
 public:
  // Creates counting filter `name` of classic sizing for (capacity, fpp), in shard strings of at
  // most 2^shard_bits bits (2^(shard_bits - 2) counters; shard_bits 12 to 32). Like
  // redis_filter::create: atomic, and an existing filter of the same parameters is opened; a
  // bit filter of that name is errc::already_exists naming the kind.
  static redis_counting_filter create(client& c, std::string name, std::uint64_t capacity,
                                      double fpp, unsigned shard_bits = default_shard_bits_log2,
                                      filter_options options = {});
  // Opens an existing counting filter: a bit filter of that name is errc::incompatible (it has
  // no counters to remove from); the other errors as redis_filter::open.
  static redis_counting_filter open(client& c, std::string name, filter_options options = {});

  // Removes one occurrence of an inserted key: true when its counters were decremented, false
  // when the key is definitely absent (nothing changed).
  bool remove(std::string_view key);
  // Pipelined, one script per key; removed, when not empty, must have keys.size() elements.
  // Returns the number removed.
  std::size_t remove_many(std::span<const std::string_view> keys, std::span<bool> removed = {});

 private:
  redis_counting_filter(client& c, std::string name, const detail::filter_meta& m,
                        filter_options options);
};

}  // namespace bloomkit::redis
