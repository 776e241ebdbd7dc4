// BF.SCANDUMP and BF.LOADCHUNK: a filter's image (filter_image.hpp) in chunks, as RedisBloom's
// clients use them: SCANDUMP key 0 gives (1, header); SCANDUMP key it gives (next, chunk) until
// (0, ""); each (iterator, data) pair is fed to LOADCHUNK in the same order. An iterator past 1 is
// 1 + the payload offset just after its chunk, so LOADCHUNK knows where a chunk goes, with the
// dumped filter's shape tag and a last-chunk flag (chunk_iterator.hpp).

#include <algorithm>
#include <memory>
#include <string>
#include <variant>

#include "../module_value/chunk_iterator.hpp"
#include "../module_value/chunk_loading.hpp"
#include "arguments.hpp"
#include "commands.hpp"
#include "module_stats.hpp"
#include "redis_memory.hpp"
#include "redisbloom_type.hpp"

namespace bloomkit::redis_module {

namespace {

// Payload bytes [offset, offset + length) across the pieces.
std::string payload_slice(const std::vector<std::string_view>& pieces, std::uint64_t offset,
                          std::size_t length) {
  std::string out;
  out.reserve(length);
  for (std::string_view piece : pieces) {
    if (out.size() == length) break;
    if (offset >= piece.size()) {
      offset -= piece.size();
      continue;
    }
    piece.remove_prefix(static_cast<std::size_t>(offset));
    offset = 0;
    out.append(piece.substr(0, length - out.size()));
  }
  return out;
}

}  // namespace

// BF.SCANDUMP key iterator
int bf_scandump(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 3) return RedisModule_WrongArity(ctx);
  filter_key key(ctx, argv[1], open_read);
  if (key.chain() == nullptr && (key.value() == nullptr || !key.value()->filter)) {
    return reply_not_usable(ctx, key);
  }
  const std::optional<long long> iterator = to_integer(view_of(argv[2]));
  if (!iterator) return RedisModule_ReplyWithError(ctx, "Second argument must be numeric");
  if (key.chain() != nullptr) return scandump_chain(ctx, *key.chain(), *iterator);
  const module_value& value = *key.value();
  if (*iterator == 0) {
    const std::string header = header_of(value);
    RedisModule_ReplyWithArray(ctx, 2);
    RedisModule_ReplyWithLongLong(ctx, 1);
    RedisModule_ReplyWithStringBuffer(ctx, header.data(), header.size());
    return module_ok;
  }
  const image_pieces pieces = payload_of(value);
  std::uint64_t total = 0;
  for (std::string_view piece : pieces) total += piece.size();
  const std::uint32_t tag = image_shape_tag(*value.filter);
  const chunk_iterator it = *iterator > 0 ? decode_chunk_iterator(*iterator) : chunk_iterator{};
  if (it.tag != 0 && it.tag != tag) {
    return RedisModule_ReplyWithError(
        ctx,
        "ERR the filter changed during BF.SCANDUMP (the key was deleted and recreated with "
        "another shape): dump it again from iterator 0");
  }
  // As RedisBloom, an iterator before the payload (negative) or past it ends the dump: (0, "").
  const std::uint64_t offset = it.end == 0 ? total : std::min(it.end - 1, total);
  RedisModule_ReplyWithArray(ctx, 2);
  if (offset == total) {
    RedisModule_ReplyWithLongLong(ctx, 0);
    RedisModule_ReplyWithStringBuffer(ctx, "", 0);
    return module_ok;
  }
  const std::string chunk = payload_slice(
      pieces.pieces, offset,
      static_cast<std::size_t>(std::min<std::uint64_t>(chunk_payload_bytes, total - offset)));
  const std::uint64_t end = offset + chunk.size();
  RedisModule_ReplyWithLongLong(ctx, encode_chunk_iterator({end + 1, end == total, tag}));
  RedisModule_ReplyWithStringBuffer(ctx, chunk.data(), chunk.size());
  return module_ok;
}

// BF.LOADCHUNK key iterator data
int bf_loadchunk(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 4) return RedisModule_WrongArity(ctx);
  const std::optional<long long> iterator = to_integer(view_of(argv[2]));
  if (!iterator) return RedisModule_ReplyWithError(ctx, "ERR Second argument must be numeric");
  const std::string_view data = view_of(argv[3]);
  memory_budget budget(ctx);
  filter_key key(ctx, argv[1], open_read | open_write);
  if (*iterator == 1) {
    if (key.wrong_type()) return RedisModule_ReplyWithError(ctx, wrong_type_error);
    if (!key.empty()) return RedisModule_ReplyWithError(ctx, "ERR item exists");
    // bloomkit's image or a chain's header: a key of the type it is (redisbloom_keys.hpp); a
    // header with bloomkit's hashing bit makes a bkbloom-- key, without it a MBbloom-- one.
    try {
      first_chunk first = read_first_chunk(data);
      if (auto* loader = std::get_if<std::unique_ptr<image_loader>>(&first)) {
        key.create(std::move(*loader));
      } else if (redisbloom_type() == nullptr &&
                 !std::get<redisbloom_chain>(first).bloomkit_hashing()) {
        // With COEXIST, RedisBloom's type is RedisBloom's: its chunks (BF.SCANDUMP there) load
        // into a key of bloomkit's type holding the chain, as BK.CONVERT leaves one, so that an
        // application moves key by key. A header with bloomkit's hashing bit is a bkbloom-- key
        // in either mode.
        key.create(module_filter{std::move(std::get<redisbloom_chain>(first)), false});
      } else {
        key.create(std::move(std::get<redisbloom_chain>(first)));
      }
    } catch (const image_error& e) {
      return reply_error(ctx, std::string("ERR received bad data: ") + e.what());
    } catch (const error& e) {
      return reply_failure(ctx, budget, e);  // RedisBloom's bits cannot be allocated
    }
    RedisModule_ReplyWithSimpleString(ctx, "OK");
    announce_write(ctx, "bf.loadchunk", argv[1]);
    return module_ok;
  }
  if (key.chain() != nullptr) {
    return loadchunk_chain(ctx, *key.chain(), *iterator, data, argv[1]);
  }
  if (key.value() == nullptr) return reply_not_usable(ctx, key);
  module_value& value = *key.value();
  if (auto* chain = value.filter ? std::get_if<redisbloom_chain>(&value.filter->filter) : nullptr) {
    return loadchunk_chain(ctx, *chain, *iterator, data, argv[1]);
  }
  if (!value.loading) return RedisModule_ReplyWithError(ctx, "ERR filter is already loaded");
  // RedisBloom's answer to an iterator that cannot follow a header (0, negative).
  if (*iterator < 1) return RedisModule_ReplyWithError(ctx, "ERR received bad data");
  // The parts this chunk starts are checked against maxmemory first: a refused chunk changes
  // nothing, and may be sent again once there is room.
  if (!budget.admits(value.loading->allocations_for(data.size()))) {
    return reply_error(ctx, budget.refusal());
  }
  try {
    if (!load_chunk(value, static_cast<std::uint64_t>(*iterator), data)) {
      return RedisModule_ReplyWithError(ctx, "ERR invalid offset - chunk out of order");
    }
  } catch (const image_error& e) {
    // A payload that fails its checksum never becomes a filter: the key goes.
    key.remove();
    reply_error(ctx, budget.refusal().empty() ? std::string("ERR received bad data: ") + e.what()
                                              : budget.refusal());
    announce_write(ctx, "del", argv[1]);
    return module_ok;
  }
  if (!value.loading) note_load();
  RedisModule_ReplyWithSimpleString(ctx, "OK");
  announce_write(ctx, "bf.loadchunk", argv[1]);
  return module_ok;
}

}  // namespace bloomkit::redis_module
