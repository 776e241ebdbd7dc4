#pragma once
// The module's commands, one function each (RedisModuleCmdFunc), and what they share.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "bf_arguments.hpp"
#include "bloomkit/error.hpp"
#include "filter_type.hpp"
#include "module_api.hpp"
#include "redis_memory.hpp"

namespace bloomkit::redis_module {

// The commands (command_table.cpp registers them). RedisBloom's: BF.RESERVE, BF.ADD, BF.MADD,
// BF.INSERT, BF.EXISTS, BF.MEXISTS (bf_commands.cpp), BF.INFO and BF.CARD (bf_info_commands.cpp),
// BF.SCANDUMP and BF.LOADCHUNK (dump_commands.cpp); bloomkit's own: BK.RESERVE, BK.REMOVE,
// BK.INFO (bk_commands.cpp).
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
int bk_reserve(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int bk_remove(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int bk_info(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);

// On keys of RedisBloom's type (redisbloom_commands.cpp): BF.SCANDUMP's reply at `iterator`
// (>= 0), BF.LOADCHUNK of a chunk past the header (RedisBloom's iterator: 1 + the offset after
// it; ORed into the bits, so that adds made during the load stay), BF.DEBUG, and BK.CONVERT
// (convert_command.cpp).
int scandump_chain(RedisModuleCtx* ctx, const redisbloom_chain& c, long long iterator);
int loadchunk_chain(RedisModuleCtx* ctx, redisbloom_chain& c, long long iterator,
                    std::string_view data, RedisModuleString* name);
int bf_debug(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int bk_convert(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);

// RedisBloom's cuckoo commands on MBbloomCF keys (redisbloom_cuckoo_type.hpp): CF.RESERVE,
// CF.ADD, CF.ADDNX, CF.INSERT, CF.INSERTNX, CF.DEL, CF.COMPACT (cf_commands.cpp), CF.EXISTS,
// CF.MEXISTS, CF.COUNT, CF.INFO, CF.DEBUG (cf_info_commands.cpp), CF.SCANDUMP and CF.LOADCHUNK
// (cf_dump_commands.cpp).
int cf_reserve(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int cf_add(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int cf_addnx(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int cf_insert(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int cf_insertnx(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int cf_del(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int cf_compact(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int cf_exists(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int cf_mexists(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int cf_count(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int cf_info(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int cf_debug(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int cf_scandump(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
int cf_loadchunk(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);

// An argument refusal (bf_arguments.hpp): the wrong-arity error or its text.
int reply_refusal(RedisModuleCtx* ctx, const argument_refusal& refusal);

inline int reply_error(RedisModuleCtx* ctx, const std::string& message) {
  return RedisModule_ReplyWithError(ctx, message.c_str());
}

// The reply to an error while making or growing a filter: the OOM error when `budget` refused
// the memory, "ERR <what>" otherwise.
inline int reply_failure(RedisModuleCtx* ctx, const memory_budget& budget, const error& e) {
  return reply_error(ctx,
                     budget.refusal().empty() ? std::string("ERR ") + e.what() : budget.refusal());
}

// BK.RESERVE's EXPANSION, read as the whole number it is (never cut to 32 bits): ok (into `out`)
// when it is 1..32768 (scalable_filter.hpp's max_growth). BF.RESERVE / BF.INSERT read theirs as
// RedisBloom does (bf_arguments.hpp).
enum class expansion_check { ok, not_integer, below_one, too_large };
expansion_check parse_expansion(std::string_view text, std::uint32_t& out);
// "ERR EXPANSION <text> is out of range: give 1..32768".
std::string expansion_range_error(std::string_view text);

// The error for a key that holds no usable filter: RedisBloom's "ERR not found" for a missing
// key, WRONGTYPE for another type, one for a key whose BF.LOADCHUNK has not finished, and one
// for a key of RedisBloom's type where a command works on bloomkit's only.
int reply_not_usable(RedisModuleCtx* ctx, const filter_key& key);

// After a write: replicate the command as it came (every write is deterministic given the
// filter's state) and tell keyspace listeners.
void announce_write(RedisModuleCtx* ctx, const char* event, RedisModuleString* key);

// BF.RESERVE / BK.RESERVE once their arguments are valid: key `name` gets make()'s filter unless
// it holds something ("ERR item exists", WRONGTYPE); a filter that cannot be sized is "ERR
// <why>". Replies OK and announces `event`.
// A filter whose bits would pass maxmemory is refused with Redis's OOM error (redis_memory.hpp),
// and the key is not created.
template <class Make>
int reserve_key(RedisModuleCtx* ctx, RedisModuleString* name, const char* event, Make make) {
  memory_budget budget(ctx);
  filter_key key(ctx, name, open_read | open_write);
  if (key.wrong_type()) return RedisModule_ReplyWithError(ctx, wrong_type_error);
  if (!key.empty()) return RedisModule_ReplyWithError(ctx, "ERR item exists");
  try {
    key.create(make());
  } catch (const error& e) {
    return reply_failure(ctx, budget, e);
  }
  RedisModule_ReplyWithSimpleString(ctx, "OK");
  announce_write(ctx, event, name);
  return module_ok;
}

}  // namespace bloomkit::redis_module
