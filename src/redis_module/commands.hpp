#pragma once
// The module's commands, one function each (RedisModuleCmdFunc), and what they share.

#include <string>

#include "filter_type.hpp"
#include "module_api.hpp"

namespace bloomkit::redis_module {

// RedisBloom's commands (bf_commands.cpp, bf_info_commands.cpp, dump_commands.cpp).
int bf_reserve(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int bf_add(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int bf_madd(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int bf_insert(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int bf_exists(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int bf_mexists(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int bf_info(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int bf_card(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int bf_scandump(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int bf_loadchunk(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);

// bloomkit's own (bk_commands.cpp).
int bk_reserve(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int bk_remove(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int bk_info(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);

inline int reply_error(RedisModuleCtx* ctx, const std::string& message) {
  return RedisModule_ReplyWithError(ctx, message.c_str());
}

// The error for a key that holds no usable filter: RedisBloom's "ERR not found" for a missing
// key, WRONGTYPE for another type, and one for a key whose BF.LOADCHUNK has not finished.
int reply_not_usable(RedisModuleCtx* ctx, const filter_key& key);

// After a write: replicate the command as it came (every write is deterministic given the
// filter's state) and tell keyspace listeners.
void announce_write(RedisModuleCtx* ctx, const char* event, RedisModuleString* key);

}  // namespace bloomkit::redis_module
