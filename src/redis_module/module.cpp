// bloomkit_redis_module.so: RedisBloom's BF.* commands and bloomkit's BK.* over bloomkit's
// filters (docs/REDIS.md, "Redis module"). Loaded with `redis-server --loadmodule <path>`.

#include "commands.hpp"
#include "module_api.hpp"
#include "redis_memory.hpp"
#include "redisbloom_type.hpp"

extern "C" __attribute__((visibility("default"))) int RedisModule_OnLoad(RedisModuleCtx* ctx,
                                                                         RedisModuleString**, int) {
  using namespace bloomkit::redis_module;
  if (init_module_api(ctx, "bloomkit", 1) != module_ok) return module_err;
  // Bad RDB reads come back as errors to the loader instead of aborting the server.
  RedisModule_SetModuleOptions(ctx, option_handle_io_errors);
  // Every filter's bits from Redis's allocator: used_memory, maxmemory and MEMORY USAGE see them.
  install_redis_allocator();
  if (register_filter_type(ctx) != module_ok) {
    RedisModule_Log(ctx, "warning", "bloomkit: cannot register the data type bloomkit1");
    return module_err;
  }
  if (register_redisbloom_type(ctx) != module_ok) {
    RedisModule_Log(ctx, "warning",
                    "bloomkit: cannot register RedisBloom's data type MBbloom-- (is RedisBloom "
                    "loaded?)");
    return module_err;
  }
  for (const auto& commands : {bf_commands(), bk_commands()}) {
    for (const command_entry& c : commands) {
      if (RedisModule_CreateCommand(ctx, c.name, c.run, c.flags, 1, 1, 1) != module_ok) {
        RedisModule_Log(ctx, "warning", "bloomkit: cannot register %s", c.name);
        return module_err;
      }
    }
  }
  return module_ok;
}
