#pragma once
// BF.RESERVE's and BF.INSERT's arguments as RedisBloom reads them, with its refusal texts, all
// read before the key is opened. Defaults come from the bf-* settings (module_settings.hpp).

#include <cstdint>
#include <span>
#include <string>
#include <variant>

#include "module_api.hpp"

namespace bloomkit::redis_module {

// What a filter that a command may create is made with (make_bf_chain's arguments).
struct create_options {
  double error_rate = 0.01;
  std::uint64_t capacity = 100;
  std::uint32_t expansion = 2;  // passed on as given, 0 with nonscaling
  bool nonscaling = false;
  bool create = true;  // BF.INSERT NOCREATE: false
};

// The options with the bf-* settings' values (bf-expansion-factor 0: NONSCALING).
create_options default_create_options();

// A refusal: the error reply's text, or a wrong number of arguments (RedisModule_WrongArity).
struct wrong_arity {};
using argument_refusal = std::variant<std::string, wrong_arity>;

// BF.RESERVE key error_rate capacity [EXPANSION expansion] [NONSCALING]: argv whole. As
// RedisBloom, EXPANSION and NONSCALING are found anywhere after the command name (its first
// occurrence), and other words are ignored.
std::variant<create_options, argument_refusal> read_reserve(
    std::span<RedisModuleString* const> argv);

// BF.INSERT key [CAPACITY c] [ERROR e] [EXPANSION x] [NOCREATE] [NONSCALING] ITEMS item...: the
// options, and in `items` the index of the first item.
std::variant<create_options, argument_refusal> read_insert(std::span<RedisModuleString* const> argv,
                                                           std::size_t& items);

}  // namespace bloomkit::redis_module
