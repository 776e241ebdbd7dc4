// bloomkit_redis_module.so: RedisBloom's BF.* commands and bloomkit's BK.* over bloomkit's
// filters (docs/REDIS.md, "Redis module"). Loaded with `redis-server --loadmodule <path>
// [COEXIST] [RedisBloom's arguments]`.

#include "bloomkit/version.hpp"
#include "command_table.hpp"
#include "filter_type.hpp"
#include "module_api.hpp"
#include "module_arguments.hpp"
#include "module_settings.hpp"
#include "module_stats.hpp"
#include "redis_memory.hpp"
#include "redisbloom_cuckoo_type.hpp"
#include "redisbloom_type.hpp"

namespace bloomkit::redis_module {

namespace {

// MODULE LIST's ver: bloomkit's own version as major * 10000 + minor * 100 + patch (0.1.0 is
// 100), not RedisBloom's, under either name.
constexpr int module_version = version_major * 10000 + version_minor * 100 + version_patch;

// The command an AOF rewrite recreates bloomkit's keys with: with COEXIST, BF.* is RedisBloom's.
const char* aof_load_command(module_mode mode) {
  return mode == module_mode::coexist ? "BK.LOADCHUNK" : "BF.LOADCHUNK";
}

// What only the drop-in registers: RedisBloom's own names (its types MBbloom-- and MBbloomCF,
// the BF.* and CF.* commands), which a server that has RedisBloom holds already (COEXIST leaves
// them out, so that both modules load).
int register_redisbloom_names(RedisModuleCtx* ctx) {
  if (register_redisbloom_type(ctx) != module_ok) {
    RedisModule_Log(ctx, "warning",
                    "bloomkit: cannot register RedisBloom's data type MBbloom-- (is RedisBloom "
                    "loaded? load bloomkit's module with COEXIST to run beside it)");
    return module_err;
  }
  if (register_redisbloom_cuckoo_type(ctx) != module_ok) {
    RedisModule_Log(ctx, "warning",
                    "bloomkit: cannot register RedisBloom's data type MBbloomCF (is RedisBloom "
                    "loaded? load bloomkit's module with COEXIST to run beside it)");
    return module_err;
  }
  if (register_commands(ctx, command_family::bf) != module_ok) return module_err;
  return register_commands(ctx, command_family::cf);
}

}  // namespace

}  // namespace bloomkit::redis_module

extern "C" __attribute__((visibility("default"))) int RedisModule_OnLoad(RedisModuleCtx* ctx,
                                                                         RedisModuleString** argv,
                                                                         int argc) {
  using namespace bloomkit::redis_module;
  if (resolve_module_api(ctx) != module_ok) return module_err;
  const module_arguments arguments =
      read_module_arguments({argv, static_cast<std::size_t>(argc < 0 ? 0 : argc)});
  const char* name = module_name(arguments.mode);
  if (module_name_taken(name)) {
    RedisModule_Log(ctx, "warning", "bloomkit: a module named %s is loaded already%s", name,
                    arguments.mode == module_mode::drop_in
                        ? " (RedisBloom?): load bloomkit's module with COEXIST to run beside it"
                        : "");
    return module_err;
  }
  claim_module_name(ctx, name, module_version);
  // Bad RDB reads come back as errors to the loader instead of aborting the server.
  RedisModule_SetModuleOptions(ctx, option_handle_io_errors);
  // Every filter's bits from Redis's allocator: used_memory, maxmemory and MEMORY USAGE see them.
  install_redis_allocator();
  // RedisBloom's module arguments and configs (after the name: 7.x prefixes configs with it):
  // the defaults of the filters BF.ADD creates.
  if (load_module_settings(ctx, arguments.rest) != module_ok) return module_err;
  if (register_filter_type(ctx, aof_load_command(arguments.mode)) != module_ok) {
    RedisModule_Log(ctx, "warning", "bloomkit: cannot register the data type bloomkit1");
    return module_err;
  }
  if (register_native_chain_type(ctx, aof_load_command(arguments.mode)) != module_ok) {
    RedisModule_Log(ctx, "warning", "bloomkit: cannot register the data type bkbloom--");
    return module_err;
  }
  if (arguments.mode == module_mode::drop_in && register_redisbloom_names(ctx) != module_ok) {
    return module_err;
  }
  if (register_commands(ctx, command_family::bk) != module_ok) return module_err;
  // INFO bf_bloomkit as `bf`; as `bloomkit` (COEXIST) the section is the module's: INFO bloomkit.
  register_info_section(ctx, arguments.mode == module_mode::coexist ? "" : "bloomkit");
  return module_ok;
}
