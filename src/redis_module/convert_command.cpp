// BK.CONVERT key: a RedisBloom key (type MBbloom--) becomes one of bloomkit's (type bloomkit1)
// in place, from its bits alone.

#include "commands.hpp"

namespace bloomkit::redis_module {

int bk_convert(RedisModuleCtx* ctx, RedisModuleString**, int) {
  return RedisModule_ReplyWithError(ctx, "ERR BK.CONVERT is not built yet");
}

}  // namespace bloomkit::redis_module
