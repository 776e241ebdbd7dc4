#pragma once
// RedisBloom's data type, "MBbloom--" at its encoding version 4, so that bloomkit's module takes
// RedisBloom's keys over as they are (docs/REDIS.md, "RedisBloom's keys"): RDB values of
// every encoding version RedisBloom loads (0-4), saved back in version 4 exactly as RedisBloom
// saves them (a rollback to RedisBloom loads them), DUMP / RESTORE, AOF rewrites as RedisBloom's
// BF.LOADCHUNK commands, MEMORY USAGE as RedisBloom's Size, DEBUG DIGEST. The value is
// RedisBloom's chain (module_value/redisbloom_keys.hpp). New keys are never of this type:
// BF.RESERVE / BF.ADD make bloomkit's own (filter_type.hpp).

#include "module_api.hpp"

namespace bloomkit::redis_module {

// Registers the type (RedisModule_OnLoad); module_err when Redis refuses it (another module,
// RedisBloom itself, holds the name). A module loaded beside RedisBloom does not call it.
int register_redisbloom_type(RedisModuleCtx* ctx);
// The registered type; null when it was not registered.
RedisModuleType* redisbloom_type() noexcept;

}  // namespace bloomkit::redis_module
