#pragma once
// CF.RESERVE's and CF.INSERT / CF.INSERTNX's arguments as RedisBloom reads them, with its refusal
// texts, all read before the key is opened. Defaults come from the cf-* settings
// (module_settings.hpp).

#include <cstdint>
#include <span>
#include <variant>

#include "bf_arguments.hpp"
#include "module_api.hpp"

namespace bloomkit::redis_module {

// What a cuckoo filter that a command creates is made with.
struct cf_create_options {
  std::uint64_t capacity = 1024;
  std::uint32_t bucket_size = 2;
  std::uint32_t max_iterations = 20;
  std::uint32_t expansion = 1;  // as asked; the filter rounds it up to a power of two
  bool create = true;           // CF.INSERT NOCREATE: false
};

// The options with the cf-* settings' values (what CF.ADD creates).
cf_create_options default_cf_options();

// CF.RESERVE key capacity [BUCKETSIZE b] [MAXITERATIONS m] [EXPANSION e]: argv whole. As
// RedisBloom, each keyword is found anywhere after the key (its first occurrence) and an odd
// number of arguments after the command is a wrong arity.
std::variant<cf_create_options, argument_refusal> read_cf_reserve(
    std::span<RedisModuleString* const> argv);

// CF.INSERT key [CAPACITY c] [NOCREATE] ITEMS item...: the options, and in `items` the index of
// the first item.
std::variant<cf_create_options, argument_refusal> read_cf_insert(
    std::span<RedisModuleString* const> argv, std::size_t& items);

}  // namespace bloomkit::redis_module
