// bloomkit_redis_module.so: RedisBloom's BF.* commands and bloomkit's BK.* over bloomkit's
// filters (docs/REDIS.md, "Redis module"). Loaded with `redis-server --loadmodule <path>`.

#include <array>

#include "commands.hpp"
#include "module_api.hpp"

namespace bloomkit::redis_module {

namespace {

struct command_entry {
  const char* name;
  RedisModuleCmdFunc run;
  const char* flags;
};

constexpr std::array<command_entry, 13> commands{{
    {"BF.RESERVE", bf_reserve, "write deny-oom"},
    {"BF.ADD", bf_add, "write deny-oom"},
    {"BF.MADD", bf_madd, "write deny-oom"},
    {"BF.INSERT", bf_insert, "write deny-oom"},
    {"BF.EXISTS", bf_exists, "readonly fast"},
    {"BF.MEXISTS", bf_mexists, "readonly fast"},
    {"BF.INFO", bf_info, "readonly fast"},
    {"BF.CARD", bf_card, "readonly fast"},
    {"BF.SCANDUMP", bf_scandump, "readonly"},
    {"BF.LOADCHUNK", bf_loadchunk, "write deny-oom"},
    {"BK.RESERVE", bk_reserve, "write deny-oom"},
    {"BK.REMOVE", bk_remove, "write"},
    {"BK.INFO", bk_info, "readonly"},
}};

}  // namespace

}  // namespace bloomkit::redis_module

extern "C" __attribute__((visibility("default"))) int RedisModule_OnLoad(RedisModuleCtx* ctx,
                                                                         RedisModuleString**, int) {
  using namespace bloomkit::redis_module;
  if (init_module_api(ctx, "bloomkit", 1) != module_ok) return module_err;
  // Bad RDB reads come back as errors to the loader instead of aborting the server.
  RedisModule_SetModuleOptions(ctx, option_handle_io_errors);
  if (register_filter_type(ctx) != module_ok) {
    RedisModule_Log(ctx, "warning", "bloomkit: cannot register the data type bloomkit1");
    return module_err;
  }
  for (const command_entry& c : commands) {
    if (RedisModule_CreateCommand(ctx, c.name, c.run, c.flags, 1, 1, 1) != module_ok) {
      RedisModule_Log(ctx, "warning", "bloomkit: cannot register %s", c.name);
      return module_err;
    }
  }
  return module_ok;
}
