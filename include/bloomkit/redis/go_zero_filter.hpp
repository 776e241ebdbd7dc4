#pragma once
// bloomkit::redis::go_zero_filter: the filter a go-zero service keeps in Redis with core/bloom's
// New(store, key, bits), read and written in place (docs/INTEROP.md, "go-zero core/bloom").
//
//   auto c = bloomkit::redis::client::connect("redis://127.0.0.1:6379");
//   bloomkit::redis::go_zero_filter f(c, "users", 1 << 20);  // go-zero's key and bits
//   f.insert("alice");                 // one BITFIELD SET of the 14 bits: atomic per key
//   f.contains_many(keys, answers);    // pipelined BITFIELD_RO, several keys each
//
// The filter is the one Redis string `key` (exactly go-zero's name: no prefix, no meta: go-zero
// has none), bit p of go-zero's positions (compat/go_zero.hpp) being BITFIELD / SETBIT offset p.
// Nothing records `bits`: every user of the key must pass go-zero's value. The key need not
// exist (it reads as all zeros); inserting a key whose highest position is p makes Redis grow
// the string to p / 8 + 1 bytes, as go-zero's SETBIT does (bloomkit's own sharded filters
// preallocate instead: docs/REDIS.md).
//
// A go_zero_filter refers to its client; both are used by one thread at a time.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/redis/client.hpp"

namespace bloomkit::redis {

struct go_zero_options {
  // Keys per BITFIELD command in batches (as filter_options::keys_per_command).
  std::size_t keys_per_command = 16;
};

class go_zero_filter {
 public:
  // The largest `bits`: Redis bit offsets stop at 2^32 - 1 (a 512 MiB string).
  static constexpr std::uint64_t max_bits = std::uint64_t{1} << 32;

  // Sends nothing. bits outside 1..max_bits is errc::invalid_argument (go-zero divides by bits).
  go_zero_filter(client& c, std::string key, std::uint64_t bits, go_zero_options options = {});

  // Sets the key's 14 bits with one BITFIELD; returns whether one of them was 0 (a new key).
  // A Redis key of another type is errc::wrong_type naming it.
  bool insert(std::string_view key);
  bool contains(std::string_view key);
  // Batches: keys_per_command keys per BITFIELD, pipelined. fresh / results, when not empty,
  // must have keys.size() elements. Return the number of new / present keys.
  std::size_t insert_many(std::span<const std::string_view> keys, std::span<bool> fresh = {});
  std::size_t contains_many(std::span<const std::string_view> keys, std::span<bool> results);

  // BITCOUNT of the key (0 when it does not exist).
  std::uint64_t bits_set();
  // What can make the key answer "absent" wrongly without any error, for `info`: the key does
  // not exist (go-zero creates it on its first Add, so a missing key is an empty filter to
  // go-zero and to this class: after an eviction, a deletion or a restart without persistence
  // every lookup answers absent), or the server's maxmemory-policy may evict it
  // (eviction_warning). Empty when neither holds.
  std::vector<std::string> warnings();
  // -m/k ln(1 - X/m) from the set bits X.
  double estimated_count();

  const std::string& key() const noexcept { return key_; }
  std::uint64_t bits() const noexcept { return bits_; }

 private:
  std::size_t run(std::span<const std::string_view> keys, bool write, std::span<bool> out);

  client* client_;
  std::string key_;
  std::uint64_t bits_;
  go_zero_options options_;
};

}  // namespace bloomkit::redis
