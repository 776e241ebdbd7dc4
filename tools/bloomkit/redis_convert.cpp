// bloomkit redis convert NAME
//
// Turns key NAME of RedisBloom's type (MBbloom--: RedisBloom's data, taken over by bloomkit's
// module) into a key of the bloomkit module's type in place, with BK.CONVERT: it keeps
// RedisBloom's bits and hashing and answers every probe as before (docs/REDIS.md, "RedisBloom's
// keys"). Prints: converted NAME: RedisBloom key (MBbloom--) to module key (bloomkit1)

#include <memory>
#include <string>

#include <fmt/core.h>

#include "arguments.hpp"
#include "names.hpp"
#include "redis/module_keys/key_commands.hpp"
#include "redis_context.hpp"

namespace bloomkit::cli {

namespace {

void run_redis_convert(const redis_context& context, const std::string& name) {
  context.require_native("convert");
  redis::client client = context.connect();
  redis_module::convert_module_key(client, name);
  fmt::print("converted {}: RedisBloom key (MBbloom--) to module key (bloomkit1)\n",
             printable(name));
}

}  // namespace

command add_redis_convert_command(CLI::App& group, redis_context_ptr context) {
  auto name = std::make_shared<std::string>();
  CLI::App* sub = add_redis_subcommand(
      group, "convert", "Turn a RedisBloom key (MBbloom--) into a bloomkit module key in place");
  add_required_argument(*sub, "NAME", *name, "Key name");
  return {sub, "convert", [context, name] { run_redis_convert(*context, *name); }};
}

}  // namespace bloomkit::cli
