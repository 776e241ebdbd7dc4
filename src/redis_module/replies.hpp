#pragma once
// Replies whose RESP3 type differs from RESP2's, as RedisBloom sends them: a boolean (RESP2: the
// integer 1 or 0) and a map (RESP2: a flat array of names and values). A server without the
// RESP3 reply functions (Redis < 7.0) gets the RESP2 shape whatever the client speaks.

#include "module_api.hpp"

namespace bloomkit::redis_module {

// The client asked for RESP3 (HELLO 3).
bool speaks_resp3(RedisModuleCtx* ctx);

// true / false in RESP3, 1 / 0 otherwise.
int reply_bool(RedisModuleCtx* ctx, bool value);

// Starts a reply of `pairs` name-value pairs: a map in RESP3, an array of 2 * pairs otherwise.
// The caller then replies each name and its value in turn.
int reply_map(RedisModuleCtx* ctx, long pairs);

}  // namespace bloomkit::redis_module
