#pragma once
// RedisBloom's data type, "MBbloom--" at its encoding version 4, so that bloomkit's module takes
// RedisBloom's keys over as they are (docs/REDIS.md, "RedisBloom's keys"): RDB values of
// every encoding version RedisBloom loads (0-4), saved back in version 4 exactly as RedisBloom
// saves them (a rollback to RedisBloom loads them), DUMP / RESTORE, AOF rewrites as RedisBloom's
// BF.LOADCHUNK commands, MEMORY USAGE as RedisBloom's Size, DEBUG DIGEST. The value is
// RedisBloom's chain (module_value/redisbloom_keys.hpp). Only RedisBloom's data makes keys of this
// type: BF.RESERVE / BF.ADD / BF.INSERT make bkbloom-- keys.
//
// bloomkit's chain type, "bkbloom--" at encoding version 1: the same chain with bloomkit's
// hashing (option_bloomkit_hash), what BF.RESERVE / BF.ADD / BF.INSERT create. Its value, RDB
// fields, chunks and MEMORY USAGE are RedisBloom's layout, so its memory never exceeds
// RedisBloom's for the same key; each type refuses a chain whose hashing bit names the other.

#include "module_api.hpp"

namespace bloomkit::redis_module {

// Registers the type (RedisModule_OnLoad); module_err when Redis refuses it (another module,
// RedisBloom itself, holds the name). A module loaded beside RedisBloom does not call it.
int register_redisbloom_type(RedisModuleCtx* ctx);
// Registers bkbloom-- (both modes); an AOF rewrite recreates its keys with `load_command`.
int register_native_chain_type(RedisModuleCtx* ctx, const char* load_command);
// The registered types; null when not registered.
RedisModuleType* redisbloom_type() noexcept;
RedisModuleType* bloomkit_chain_type() noexcept;

}  // namespace bloomkit::redis_module
