#pragma once
// Module keys from a client (bloomkit::redis::client): adds and lookups through the module's
// BF.INSERT NOCREATE and BF.MEXISTS, pipelined, and the fields of its BK.INFO. What `bloomkit
// redis add | query | info` do on a key of the module's type (docs/CLI.md, "Module keys"), so
// that the CLI reaches module filters, the module's windows included, as it reaches the
// client-side layouts. Linked with key_transfer (target bloomkit_module_transfer).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "bloomkit/redis/client.hpp"

namespace bloomkit::redis_module {

// Keys per BF.INSERT / BF.MEXISTS: at 1000 the module runs at Redis's own floor per key
// (bench/RESULTS.md, "Redis module").
inline constexpr std::size_t keys_per_module_command = 1000;

// BK.INFO's fields, in its order: kind, hash_scheme, nonscaling, then those of `bloomkit info
// --json` (integers as integers, numbers as doubles, the rest as text).
struct module_info_field {
  std::string name;
  std::variant<long long, double, std::string> value;
};

// Module key `name` (of bloomkit's type, or RedisBloom's MBbloom--) as the CLI's add and query
// use a filter. Its adds go through BF.INSERT
// NOCREATE (a key deleted meanwhile is not created again with RedisBloom's defaults), its lookups
// through BF.MEXISTS, in commands of keys_per_module_command keys pipelined in one round trip.
// Errors throw bloomkit::error naming the key: not_found (no key: on every call, lookups
// included), wrong_type (not a module filter), server_error for a refusal (a NONSCALING filter that
// is full: the keys before the first it refused are in), invalid_argument for answer spans of the
// wrong size.
class module_key {
 public:
  module_key(redis::client& c, std::string name) : client_(c), name_(std::move(name)) {}
  // Key `name` after checking that it is one of the module's (TYPE): errc::not_found when there
  // is no key, errc::wrong_type when it holds something else.
  static module_key open(redis::client& c, std::string name);
  const std::string& name() const noexcept { return name_; }

  // One key: whether it was new; whether it may be present.
  bool insert(std::string_view key);
  bool contains(std::string_view key);

  // fresh[i] (unless fresh is empty): whether keys[i] was new (a window: not inserted within
  // it). Returns how many were.
  std::size_t insert_many(std::span<const std::string_view> keys, std::span<bool> fresh = {});
  // results[i]: whether keys[i] may be present. Returns how many may be. A key that does not
  // exist (deleted, expired, evicted) is errc::not_found, never an answer: TYPE rides in the
  // lookups' round trip.
  std::size_t contains_many(std::span<const std::string_view> keys, std::span<bool> results);

  // `bloomkit redis expire` / `drop` of a module key: EXPIRE and UNLINK of its one key
  // (errc::not_found when it is gone).
  void expire(std::uint64_t seconds);
  void drop();
  // BK.INFO's fields (module_key_info).
  std::vector<module_info_field> info();

 private:
  redis::client& client_;
  std::string name_;
  // Of RedisBloom's type (TYPE at open): its commands are BF.*, bloomkit's keys' BK.*
  // (command_for, key_errors.hpp).
  bool redisbloom_ = false;
};

std::vector<module_info_field> module_key_info(redis::client& c, const std::string& name);

// BK.CONVERT: key `name` of RedisBloom's type (MBbloom--) becomes one of bloomkit's module type in
// place, answering every probe as before (docs/REDIS.md, "RedisBloom's keys"). Throws
// bloomkit::error naming the key: not_found, wrong_type (not a filter), server_error (a key that
// is bloomkit's already, a server without the command).
void convert_module_key(redis::client& c, const std::string& name);

// Adds the fields to a report (the CLI's report, the Python binding's dict_report), in order:
// integers (counts, never negative) as std::uint64_t, numbers as double, the rest as text.
template <class Report>
void add_module_key_info(const std::vector<module_info_field>& fields, Report& r) {
  for (const module_info_field& f : fields) {
    std::visit(
        [&]<class V>(const V& v) {
          if constexpr (std::is_same_v<V, long long>) {
            r.add(f.name, static_cast<std::uint64_t>(v));
          } else if constexpr (std::is_same_v<V, double>) {
            r.add(f.name, v);
          } else {
            r.add(f.name, std::string_view(v));
          }
        },
        f.value);
  }
}

}  // namespace bloomkit::redis_module
