#pragma once
// The module's load arguments (`--loadmodule <path> [COEXIST] [ERROR_RATE e] ...`): COEXIST picks
// how the module registers itself; every other argument is left, in order, to the readers of
// RedisBloom's arguments (ERROR_RATE, INITIAL_SIZE, EXPANSION, CF_*).

#include <span>
#include <vector>

#include "module_api.hpp"

namespace bloomkit::redis_module {

enum class module_mode {
  // Module `bf`, as RedisBloom: RedisBloom's BF.* commands and data type, and bloomkit's BK.*.
  drop_in,
  // Module `bloomkit`: only the BK.* commands and bloomkit's data type, so that it loads beside
  // RedisBloom (COEXIST, any case).
  coexist,
};

struct module_arguments {
  module_mode mode = module_mode::drop_in;
  std::vector<RedisModuleString*> rest;  // every argument but COEXIST
};

module_arguments read_module_arguments(std::span<RedisModuleString* const> argv);

// The name the module registers under in `mode` (MODULE LIST, INFO's section prefix).
const char* module_name(module_mode mode) noexcept;

}  // namespace bloomkit::redis_module
