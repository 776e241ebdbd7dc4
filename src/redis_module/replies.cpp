// Replies in the client's protocol (replies.hpp).

#include "replies.hpp"

namespace bloomkit::redis_module {

bool speaks_resp3(RedisModuleCtx* ctx) {
  return (RedisModule_GetContextFlags(ctx) & ctx_flags_resp3) != 0;
}

int reply_bool(RedisModuleCtx* ctx, bool value) {
  if (RedisModule_ReplyWithBool != nullptr && speaks_resp3(ctx)) {
    return RedisModule_ReplyWithBool(ctx, value ? 1 : 0);
  }
  return RedisModule_ReplyWithLongLong(ctx, value ? 1 : 0);
}

int reply_map(RedisModuleCtx* ctx, long pairs) {
  if (RedisModule_ReplyWithMap != nullptr && speaks_resp3(ctx)) {
    return RedisModule_ReplyWithMap(ctx, pairs);
  }
  return RedisModule_ReplyWithArray(ctx, 2 * pairs);
}

}  // namespace bloomkit::redis_module
