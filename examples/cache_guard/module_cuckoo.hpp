#pragma once
// --filter cuckoo: the ids in a cuckoo filter in the Redis server, so that a DELETE removes its id
// in the server (memory: README.md, "Deletes and negative caching"). Two command sets, chosen per
// server at create and kept in the meta (`commands`), so every instance uses the same:
// - bk: bloomkit's module, its native cuckoo kind (BK.RESERVE ... KIND cuckoo, BK.INSERT,
//   BK.MEXISTS, BK.REMOVE): about a third of the counting filter's memory. Its table never grows:
//   an insert it has no room for is errc::too_large (the service bypasses the filter and reloads
//   it at a larger capacity, so no id is lost).
// - cf: RedisBloom's CF.* commands (RedisBloom, Redis 8; written against RedisBloom's documented
//   API), 8-bit fingerprints, growing by sub-filters (EXPANSION 2).
// create picks bk when the server answers BK.RESERVE, else cf; the environment variable
// CACHE_GUARD_CUCKOO_COMMANDS=cf|bk forces one. A meta without `commands` (an older service's) is
// cf.
//
// Keys: <name> is the filter key; <name>:cuckoo a hash of what the service made it with (commands,
// capacity, fpp, bucket size, created, generation); a rebuild fills <name>:cuckoo-next and renames
// it over <name>. Every insert goes to <name>:cuckoo-next first, then to <name> (one round trip;
// the first fails harmlessly unless a rebuild runs), so an id committed during a rebuild is in the
// new filter whether its insert ran before or after the rename.
//
// CF.EXISTS (and BK.MEXISTS) answer 0 for a key that does not exist, so every lookup also asks
// EXISTS <name> in the same round trip: a filter that vanished is errc::not_found (the service
// reloads it), never a wrong "absent". Inserts use CF.INSERT / BK.INSERT ... NOCREATE, which never
// make a filter of default parameters in place of a vanished one. A server without either:
// errc::unsupported, pointing to --filter counting (the client-side counting filter, for servers
// where modules are not allowed).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/redis_filter.hpp"

namespace cache_guard {

class module_cuckoo {
 public:
  // Which commands the filter is kept with (the meta's `commands`: "bk" or "cf").
  enum class command_set { bk, cf };

  // CF filters keep 8-bit fingerprints: FPP about 2 b load / 255 for bucket size b at a load
  // (share of slots taken) below the fill b allows. The bucket size whose load at most fpp
  // allows is the highest (the least memory); errc::invalid_argument when that load is below
  // 0.1 (fpp below about 0.0008).
  static std::uint32_t bucket_size_for(double fpp);
  // Whether <name> is a cuckoo filter of the service (its <name>:cuckoo hash exists).
  static bool is_cuckoo(bloomkit::redis::client& c, const std::string& name);
  // BK.RESERVE <name> capacity fpp KIND cuckoo, or (a server without BK.*, or forced) CF.RESERVE
  // with room for `capacity` ids at the load of its bucket size, EXPANSION 2; then its hash.
  // errc::unsupported when the server has neither, errc::invalid_argument for an fpp CF.* cannot
  // reach (bucket_size_for).
  static module_cuckoo create(bloomkit::redis::client& c, const std::string& name,
                              std::uint64_t capacity, double fpp);
  // errc::not_found when it does not exist, errc::wrong_type when <name> is not a key of its
  // command set's type.
  static module_cuckoo open(bloomkit::redis::client& c, const std::string& name);
  // Every key it may have (for a clean create).
  static std::vector<std::string> keys_of(const std::string& name);

  double target_fpp() const noexcept { return fpp_; }
  std::uint64_t capacity() const noexcept { return capacity_; }
  // CF.*'s bucket size; 0 for bk (the native kind picks its own).
  std::uint32_t bucket_size() const noexcept { return bucket_size_; }
  command_set commands() const noexcept { return commands_; }
  std::uint64_t generation() const noexcept { return generation_; }
  std::int64_t created() const noexcept { return created_; }

  // CF.MEXISTS / BK.MEXISTS <name> key and EXISTS <name>, with `also` in the same round trip.
  bool contains_with(std::string_view key, std::span<const bloomkit::redis::command> also,
                     std::vector<bloomkit::redis::reply>& also_replies);
  bool insert(std::string_view key);
  std::size_t insert_many(std::span<const std::string_view> keys);
  // CF.DEL / BK.REMOVE: true when a copy of the key's fingerprint was removed (only remove added
  // ids).
  bool remove(std::string_view key);
  // A new filter of the same parameters from `source`, renamed over the live one when full:
  // lookups use the old one until then, inserts meanwhile reach both.
  void rebuild(const bloomkit::redis::key_source& source);

 private:
  module_cuckoo(bloomkit::redis::client& c, std::string name) : c_(&c), name_(std::move(name)) {}
  std::string meta_key() const { return name_ + ":cuckoo"; }
  std::string next_key() const { return name_ + ":cuckoo-next"; }
  // BK.RESERVE / CF.RESERVE `key` with this filter's parameters; the reply.
  bloomkit::redis::reply reserve_reply(const std::string& key);
  void reserve(const std::string& key);
  // The insert commands of `keys` into `key`.
  void append_inserts(std::vector<bloomkit::redis::command>& cs, const std::string& key,
                      std::span<const std::string_view> keys) const;
  // CF.INSERT / BK.INSERT of `keys` into the next filter (if any) and the live one.
  std::size_t insert_keys(std::span<const std::string_view> keys);

  bloomkit::redis::client* c_;
  std::string name_;
  std::uint64_t capacity_ = 0;
  double fpp_ = 0;
  std::uint32_t bucket_size_ = 0;
  command_set commands_ = command_set::cf;
  std::uint64_t generation_ = 0;
  std::int64_t created_ = 0;
};

}  // namespace cache_guard
