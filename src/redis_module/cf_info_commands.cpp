// CF.EXISTS, CF.MEXISTS, CF.COUNT, CF.INFO and CF.DEBUG with RedisBloom's replies: a missing key
// or one of another type reads as absent (0) for the lookups, an error for CF.INFO / CF.DEBUG.

#include <cstdio>
#include <string>

#include "arguments.hpp"
#include "commands.hpp"
#include "module_stats.hpp"
#include "redisbloom_cuckoo_type.hpp"
#include "replies.hpp"

namespace bloomkit::redis_module {

namespace {

// CF.EXISTS (single) and CF.MEXISTS: a boolean per item (1 / 0 in RESP2).
int check_items(RedisModuleCtx* ctx, RedisModuleString** argv, int argc, bool single) {
  if (single ? argc != 3 : argc < 3) return RedisModule_WrongArity(ctx);
  cuckoo_key key(ctx, argv[1], open_read);
  const cuckoo_value* f = key.filter();
  if (!single) RedisModule_ReplyWithArray(ctx, argc - 2);
  for (int i = 2; i < argc; ++i) {
    reply_bool(ctx, f != nullptr && contains_item(*f, view_of(argv[i])));
  }
  note_lookups(static_cast<std::uint64_t>(argc - 2));
  return module_ok;
}

}  // namespace

// CF.EXISTS key item
int cf_exists(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  return check_items(ctx, argv, argc, true);
}

// CF.MEXISTS key item [item ...]
int cf_mexists(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  return check_items(ctx, argv, argc, false);
}

// CF.COUNT key item: the copies of the item's fingerprint in its candidate buckets (an integer in
// both protocols).
int cf_count(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 3) return RedisModule_WrongArity(ctx);
  cuckoo_key key(ctx, argv[1], open_read);
  const cuckoo_value* f = key.filter();
  const std::uint64_t n = f == nullptr ? 0 : count_item(*f, view_of(argv[2]));
  return RedisModule_ReplyWithLongLong(ctx, static_cast<long long>(n));
}

// CF.INFO key: RedisBloom's eight figures, named by simple strings (a map in RESP3).
int cf_info(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 2) return RedisModule_WrongArity(ctx);
  cuckoo_key key(ctx, argv[1], open_read);
  if (key.filter() == nullptr) return RedisModule_ReplyWithError(ctx, cuckoo_status_error(key));
  const cuckoo_figures g = figures_of(*key.filter());
  const std::pair<const char*, std::uint64_t> fields[] = {
      {"Size", g.size},
      {"Number of buckets", g.buckets},
      {"Number of filters", g.filters},
      {"Number of items inserted", g.items},
      {"Number of items deleted", g.deletes},
      {"Bucket size", g.bucket_size},
      {"Expansion rate", g.expansion},
      {"Max iterations", g.max_iterations},
  };
  reply_map(ctx, static_cast<long>(std::size(fields)));
  for (const auto& [name, value] : fields) {
    RedisModule_ReplyWithSimpleString(ctx, name);
    RedisModule_ReplyWithLongLong(ctx, static_cast<long long>(value));
  }
  return module_ok;
}

// CF.DEBUG key: RedisBloom's one line of the filter's parameters, a bulk string.
int cf_debug(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 2) return RedisModule_WrongArity(ctx);
  cuckoo_key key(ctx, argv[1], open_read);
  if (key.filter() == nullptr) return RedisModule_ReplyWithError(ctx, cuckoo_status_error(key));
  const cuckoo_figures g = figures_of(*key.filter());
  const std::string line =
      "bktsize:" + std::to_string(g.bucket_size) + " buckets:" + std::to_string(g.buckets) +
      " items:" + std::to_string(g.items) + " deletes:" + std::to_string(g.deletes) +
      " filters:" + std::to_string(g.filters) +
      " max_iterations:" + std::to_string(g.max_iterations) +
      " expansion:" + std::to_string(g.expansion);
  return RedisModule_ReplyWithStringBuffer(ctx, line.data(), line.size());
}

}  // namespace bloomkit::redis_module
