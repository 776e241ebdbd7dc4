#pragma once
// bloomkit::redis::go_zero_filter: the filter a go-zero service keeps in Redis with core/bloom's
// New(store, key, bits), read and written in place (docs/INTEROP.md, "go-zero core/bloom"),
// and go-zero's layout with any k (the proposed NewFilter(store, key, expectedInsertions,
// falseProbability), sized by go_zero::new_filter_params).
//
//   auto c = bloomkit::redis::client::connect("redis://127.0.0.1:6379");
//   bloomkit::redis::go_zero_filter f(c, "users", 1 << 20);  // go-zero's key and bits
//   f.insert("alice");                 // one BITFIELD SET of the 14 bits: atomic per key
//   f.contains_many(keys, answers);    // pipelined BITFIELD_RO, several keys each
//
// The filter is the one Redis string `key` (single_string_filter.hpp), bit p of go-zero's
// positions (compat/go_zero.hpp) being BITFIELD / SETBIT offset p. Nothing records `bits` (nor
// k): every user of the key must pass go-zero's values.

#include <cstddef>
#include <cstdint>
#include <string>

#include "bloomkit/compat/go_zero.hpp"
#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/single_string_filter.hpp"

namespace bloomkit::redis {

struct go_zero_options {
  // Keys per BITFIELD command in batches (as filter_options::keys_per_command).
  std::size_t keys_per_command = 16;
  // k: go-zero's own 14, or the k of NewFilter's sizing (1 to go_zero::max_hashes).
  std::uint32_t hashes = go_zero::hashes;
};

class go_zero_filter : public single_string_filter {
 public:
  // The largest `bits`: Redis bit offsets stop at 2^32 - 1 (a 512 MiB string).
  static constexpr std::uint64_t max_bits = go_zero::max_redis_bits;

  // Sends nothing. bits outside 1..max_bits or hashes outside 1..go_zero::max_hashes is
  // errc::invalid_argument (go-zero divides by bits).
  go_zero_filter(client& c, std::string key, std::uint64_t bits, go_zero_options options = {});
};

}  // namespace bloomkit::redis
