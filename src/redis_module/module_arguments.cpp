// The module's load arguments (module_arguments.hpp).

#include "module_arguments.hpp"

#include "arguments.hpp"

namespace bloomkit::redis_module {

module_arguments read_module_arguments(std::span<RedisModuleString* const> argv) {
  module_arguments out;
  for (RedisModuleString* argument : argv) {
    if (keyword_is(view_of(argument), "COEXIST")) {
      out.mode = module_mode::coexist;
    } else {
      out.rest.push_back(argument);
    }
  }
  return out;
}

const char* module_name(module_mode mode) noexcept {
  return mode == module_mode::coexist ? "bloomkit" : "bf";
}

}  // namespace bloomkit::redis_module
