// BK.CONVERT key: a RedisBloom key (type MBbloom--) becomes one of bloomkit's (type bloomkit1) in
// place, from its bits alone: the items are not known, so it keeps RedisBloom's chain, hashing
// and growth (the file format's kind redisbloom, compat/redisbloom_kind.hpp), and answers every
// probe as before. From then on its RDB value, DUMP and BF.SCANDUMP are bloomkit's image, so it
// lives on without RedisBloom's type (a module loaded beside RedisBloom). Its time to live stays.

#include <utility>

#include "commands.hpp"

namespace bloomkit::redis_module {

int bk_convert(RedisModuleCtx* ctx, RedisModuleString** argv, int argc) {
  if (argc != 2) return RedisModule_WrongArity(ctx);
  filter_key key(ctx, argv[1], open_read | open_write);
  if (key.redisbloom_chain_of() == nullptr) {
    if (key.value() == nullptr && key.chain() == nullptr) return reply_not_usable(ctx, key);
    return RedisModule_ReplyWithError(
        ctx, key.chain() != nullptr
                 ? "ERR the key is bloomkit's already (type bkbloom--): BK.CONVERT converts "
                   "RedisBloom's keys (type MBbloom--)"
                 : "ERR the key is bloomkit's already (type bloomkit1): BK.CONVERT converts "
                   "RedisBloom's keys (type MBbloom--)");
  }
  redisbloom_chain chain = std::move(*key.chain());
  const bool nonscaling = !chain.scaling();
  // Redis frees the old value (the chain moved out of it).
  key.create(module_filter{std::move(chain), nonscaling});
  RedisModule_ReplyWithSimpleString(ctx, "OK");
  announce_write(ctx, "bk.convert", argv[1]);
  return module_ok;
}

}  // namespace bloomkit::redis_module
