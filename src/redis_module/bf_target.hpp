#pragma once
// The one place where a BF.* command picks what its key holds: bloomkit's filter (a
// module_filter, module_filter.hpp) or RedisBloom's chain (redisbloom_keys.hpp). Both answer the
// same questions under the same names (add_keys, find_keys, capacity_of, ...), so a command is
// written once, as a generic lambda over either.

#include <utility>

#include "commands.hpp"
#include "filter_type.hpp"

namespace bloomkit::redis_module {

// Calls run(filter) with the key's module_filter& or redisbloom_chain&, and returns what it
// returns. A key that holds neither (missing, another type, a bloomkit image still being loaded
// by BF.LOADCHUNK) gets reply_not_usable instead, and the result's default (module_ok for a
// command's int, empty for an optional). A RedisBloom key being loaded by BF.LOADCHUNK is usable,
// as in RedisBloom: it answers from the bits it has received.
// (A command's default reply status must be module_ok.)
static_assert(module_ok == 0);

template <class Run>
auto with_bf_filter(RedisModuleCtx* ctx, const filter_key& key, Run run)
    -> decltype(run(std::declval<module_filter&>())) {
  if (redisbloom_chain* chain = key.chain()) return run(*chain);
  if (key.value() != nullptr && key.value()->filter) return run(*key.value()->filter);
  reply_not_usable(ctx, key);
  return {};
}

}  // namespace bloomkit::redis_module
