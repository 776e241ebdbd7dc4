// What the BF.* commands do on a key of RedisBloom's type (redisbloom_type.hpp) where it is not
// what they do on bloomkit's: BF.SCANDUMP's and BF.LOADCHUNK's chunks are RedisBloom's (its
// header, then the links' bit arrays in chunks of at most 16 MiB), and BF.DEBUG shows its links.

#include <string>
#include <vector>

#include "commands.hpp"
#include "module_stats.hpp"
#include "redisbloom_type.hpp"

namespace bloomkit::redis_module {

int scandump_chain(RedisModuleCtx* ctx, const redisbloom_chain& c, long long iterator) {
  RedisModule_ReplyWithArray(ctx, 2);
  if (iterator == 0) {
    const std::vector<unsigned char> header = redisbloom::header_chunk(c);
    RedisModule_ReplyWithLongLong(ctx, 1);
    RedisModule_ReplyWithStringBuffer(ctx, reinterpret_cast<const char*>(header.data()),
                                      header.size());
    return module_ok;
  }
  // As RedisBloom, an iterator before the data (negative) ends the dump: (0, "").
  const redisbloom::data_chunk chunk =
      iterator < 0 ? redisbloom::data_chunk{} : redisbloom::next_chunk(c, iterator);
  RedisModule_ReplyWithLongLong(ctx, chunk.next);
  RedisModule_ReplyWithStringBuffer(ctx, reinterpret_cast<const char*>(chunk.data.data()),
                                    chunk.data.size());
  return module_ok;
}

int loadchunk_chain(RedisModuleCtx* ctx, redisbloom_chain& c, long long iterator,
                    std::string_view data, RedisModuleString* name) {
  // RedisBloom's own text for an iterator that cannot follow a header (0, negative).
  if (iterator < 1) return RedisModule_ReplyWithError(ctx, "ERR received bad data");
  try {
    redisbloom::apply_chunk(c, iterator,
                            {reinterpret_cast<const unsigned char*>(data.data()), data.size()});
  } catch (const redisbloom::chunk_error& e) {
    // As in RedisBloom, the key stays as it was.
    return reply_error(ctx,
                       std::string(redisbloom::redisbloom_text(e.problem())) + ": " + e.what());
  }
  // The chunk that reaches the end of the last link completes a load (INFO's loads).
  if (static_cast<std::uint64_t>(iterator) - 1 == c.bit_bytes()) note_load();
  RedisModule_ReplyWithSimpleString(ctx, "OK");
  announce_write(ctx, "bf.loadchunk", name);
  return module_ok;
}

// BF.DEBUG key: RedisBloom's lines for one of its keys; bloomkit's own keys show theirs in
// BK.INFO.
int bf_debug(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 2) return RedisModule_WrongArity(ctx);
  filter_key key(ctx, argv[1], open_read);
  if (key.chain() == nullptr) {
    if (key.value() == nullptr) return reply_not_usable(ctx, key);
    return RedisModule_ReplyWithError(
        ctx, "ERR BF.DEBUG shows RedisBloom's keys (type MBbloom--): use BK.INFO for this one");
  }
  const std::vector<std::string> lines = key.chain()->debug_lines();
  RedisModule_ReplyWithArray(ctx, static_cast<long>(lines.size()));
  for (const std::string& line : lines) {
    RedisModule_ReplyWithStringBuffer(ctx, line.data(), line.size());
  }
  return module_ok;
}

}  // namespace bloomkit::redis_module
