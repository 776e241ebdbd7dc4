#pragma once
// bloomkit::redis::spark_filter: a Spark BloomFilter (V1 or V2, compat/spark.hpp) served from
// Redis, kept as one string that holds exactly its writeTo() bytes (docs/INTEROP.md, "Serving a
// Spark filter from Redis"): lookups and inserts answer as Spark's mightContain* / put* do, and
// GET gives back bytes that Spark's BloomFilter.readFrom reads.
//
//   auto c = bloomkit::redis::client::connect("redis://127.0.0.1:6379");
//   auto f = bloomkit::redis::spark_filter::push(c, bloomkit::spark::read(bytes, "ids.bin"),
//   "ids"); auto g = bloomkit::redis::spark_filter::open(c, "ids");   // k, bits, seed from its
//   header g.contains_many(keys, answers);      // pipelined BITFIELD_RO, a key's k bits in one
//   command
//
// Bit x of the filter is bit x & 63 of big-endian word x >> 6, after the 12-byte (V1) or 16-byte
// (V2) header: BITFIELD offset 8 * (H + 8 * (x >> 6) + 7 - (x & 63) / 8) + 7 - (x & 7). Every
// command checks the string's length first: a missing or short string (deleted, evicted, lost
// in a restart) is errc::not_found naming it, never an answer.

#include <cstddef>
#include <cstdint>
#include <string>

#include "bloomkit/compat/spark.hpp"
#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/single_string_filter.hpp"

namespace bloomkit::redis {

class spark_filter : public single_string_filter {
 public:
  // Creates string `key` holding the filter's writeTo() bytes (SET NX): errc::already_exists
  // when the key exists (of any type). keys_per_command as filter_options'.
  static spark_filter push(client& c, const spark::any_filter& filter, std::string key,
                           std::size_t keys_per_command = 16);
  // Opens string `key` by its header: errc::not_found when there is no such key,
  // errc::wrong_type for another type, errc::corrupt_file naming it when it does not hold
  // Spark's writeTo() bytes (an unknown version, k or numWords out of range, another length).
  static spark_filter open(client& c, std::string key, std::size_t keys_per_command = 16);

  spark::version version() const noexcept { return version_; }
  std::int32_t seed() const noexcept { return seed_; }

 private:
  spark_filter(client& c, std::string key, spark::version v, std::uint32_t hashes,
               std::int32_t seed, std::uint64_t words, std::size_t keys_per_command);

  spark::version version_;
  std::int32_t seed_;
};

}  // namespace bloomkit::redis
