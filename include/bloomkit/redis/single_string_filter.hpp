#pragma once
// bloomkit::redis::single_string_filter: what the peers' Redis filters have in common (go-zero's
// core/bloom, go_zero_filter.hpp; the Guava-based SETBIT helper, guava_helper_filter.hpp). Such
// a filter is one Redis string named exactly as the peer names it (no prefix, no meta, no
// guard: the peers keep none), bit p of the peer's offsets being BITFIELD / SETBIT offset p
// (the most significant bit of byte 0 is bit 0). Nothing in Redis records its bits or hashes:
// every user of the key must pass the peer's values. A missing key reads as an empty filter (as
// the peers read it); inserting creates it, and Redis grows the string up to the highest bit
// set so far, as the peers' SETBIT does (bloomkit's own sharded filters preallocate instead:
// docs/REDIS.md).
//
// Inserts and lookups go through the batch engine (docs/REDIS.md, "Operations"): a key's k bits
// in one BITFIELD (atomic per key), keys_per_command keys per command, the commands pipelined.
// A filter refers to its client; both are used by one thread at a time.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/redis/client.hpp"

namespace bloomkit::redis {

namespace detail {
class single_string_layout;
}

class single_string_filter {
 public:
  single_string_filter(single_string_filter&&) noexcept;
  single_string_filter& operator=(single_string_filter&&) noexcept;
  virtual ~single_string_filter();

  // Sets the key's k bits with one BITFIELD; returns whether one of them was 0 (a new key).
  // A Redis key of another type is errc::wrong_type naming it.
  bool insert(std::string_view key);
  bool contains(std::string_view key);
  // Batches: keys_per_command keys per BITFIELD, pipelined. fresh / results, when not empty,
  // must have keys.size() elements. Return the number of new / present keys.
  std::size_t insert_many(std::span<const std::string_view> keys, std::span<bool> fresh = {});
  std::size_t contains_many(std::span<const std::string_view> keys, std::span<bool> results);

  // BITCOUNT of the key (0 when it does not exist).
  std::uint64_t bits_set();
  // -m/k ln(1 - X/m) from the set bits X.
  double estimated_count();
  // What can make the key answer "absent" wrongly without any error, for `info`: the key does
  // not exist (the peer creates it on its first insert, so a missing key is an empty filter to
  // the peer and to this class: after an eviction, a deletion or a restart without persistence
  // every lookup answers absent), or the server's maxmemory-policy may evict it
  // (eviction_warning). Empty when neither holds.
  std::vector<std::string> warnings();

  const std::string& key() const noexcept;
  std::uint64_t bits() const noexcept;
  std::uint32_t hashes() const noexcept;

 protected:
  // keys_per_command below 1 counts as 1.
  single_string_filter(client& c, std::unique_ptr<const detail::single_string_layout> layout,
                       std::size_t keys_per_command);

 private:
  std::size_t run(std::span<const std::string_view> keys, bool write, std::span<bool> out);

  client* client_;
  std::unique_ptr<const detail::single_string_layout> layout_;
  std::size_t keys_per_command_;
};

}  // namespace bloomkit::redis
