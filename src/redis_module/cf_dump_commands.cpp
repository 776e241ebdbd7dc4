// CF.SCANDUMP and CF.LOADCHUNK: RedisBloom's chunks (a 38-byte header at iterator 0, then each
// sub-filter's slots, at most 16 MiB a chunk) and its replies and error texts at every position.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "bloomkit/error.hpp"
#include "commands.hpp"
#include "redisbloom_cuckoo_type.hpp"

namespace bloomkit::redis_module {

namespace {

constexpr std::size_t header_bytes = 38;
constexpr const char* invalid_position = "Invalid position";

int reply_end(RedisModuleCtx* ctx) {
  RedisModule_ReplyWithLongLong(ctx, 0);
  return RedisModule_ReplyWithNull(ctx);
}

}  // namespace

// CF.SCANDUMP key iterator
int cf_scandump(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 3) return RedisModule_WrongArity(ctx);
  const std::optional<long long> position = to_integer(view_of(argv[2]));
  if (!position || *position < 0) return RedisModule_ReplyWithError(ctx, invalid_position);
  cuckoo_key key(ctx, argv[1], open_read);
  if (key.filter() == nullptr) return RedisModule_ReplyWithError(ctx, cuckoo_status_error(key));
  const cuckoo_value& f = *key.filter();
  RedisModule_ReplyWithArray(ctx, 2);
  // RedisBloom gives nothing for a filter without items: such a filter is not moved this way.
  if (figures_of(f).items == 0) return reply_end(ctx);
  if (*position == 0) {
    const std::vector<unsigned char> header = header_of(f);
    RedisModule_ReplyWithLongLong(ctx, 1);
    return RedisModule_ReplyWithStringBuffer(ctx, reinterpret_cast<const char*>(header.data()),
                                             header.size());
  }
  const cuckoo_chunk chunk = chunk_at(f, *position);
  if (chunk.next == 0) return reply_end(ctx);
  RedisModule_ReplyWithLongLong(ctx, chunk.next);
  return RedisModule_ReplyWithStringBuffer(ctx, reinterpret_cast<const char*>(chunk.data.data()),
                                           chunk.data.size());
}

// CF.LOADCHUNK key iterator data: iterator 1 makes the key from a header; a later one writes its
// chunk. Both are replicated, so that a replica holds the slots as well as the header.
int cf_loadchunk(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 4) return RedisModule_WrongArity(ctx);
  cuckoo_key key(ctx, argv[1], open_read | open_write);
  const std::optional<long long> position = to_integer(view_of(argv[2]));
  if (!position || *position == 0) return RedisModule_ReplyWithError(ctx, invalid_position);
  const std::string_view data = view_of(argv[3]);
  if (*position == 1) {
    if (!key.empty()) return RedisModule_ReplyWithError(ctx, cuckoo_status_error(key));
    if (data.size() != header_bytes) return RedisModule_ReplyWithError(ctx, "Invalid header");
    memory_budget budget(ctx);
    std::string refusal;
    cuckoo_ptr f;
    try {
      f = from_header(data, refusal);
    } catch (const error& e) {
      return reply_failure(ctx, budget, e);
    }
    if (f == nullptr) return RedisModule_ReplyWithError(ctx, "Couldn't create filter!");
    key.create(std::move(f));
  } else {
    if (key.filter() == nullptr) {
      return RedisModule_ReplyWithError(ctx, cuckoo_status_error(key));
    }
    if (!load_chunk(*key.filter(), *position, data)) {
      return RedisModule_ReplyWithError(ctx, "Couldn't load chunk!");
    }
  }
  RedisModule_ReplyWithSimpleString(ctx, "OK");
  announce_write(ctx, "cf.loadchunk", argv[1]);
  return module_ok;
}

}  // namespace bloomkit::redis_module
