#pragma once
// The module data type "bloomkit1" (nine characters, as Redis requires): its values, its
// callbacks (RDB save / load, AOF rewrite, MEMORY USAGE, DEBUG DIGEST, free) and access to keys
// that hold it.

#include <memory>

#include "../module_value/module_value.hpp"
#include "../module_value/redisbloom_keys.hpp"
#include "../module_value/value_codec.hpp"
#include "module_api.hpp"

namespace bloomkit::redis_module {

// Registers the type; returns module_err when Redis refuses it. An AOF rewrite recreates a key
// with `load_command` (BF.LOADCHUNK; BK.LOADCHUNK with COEXIST, where BF.* is RedisBloom's).
int register_filter_type(RedisModuleCtx* ctx, const char* load_command);

// A key opened for a command, closed when this goes out of scope. It holds one of bloomkit's
// filters (value()), RedisBloom's chain (chain(): redisbloom_type.hpp), something else
// (wrong_type()) or nothing (empty()).
class filter_key {
 public:
  filter_key(RedisModuleCtx* ctx, RedisModuleString* name, int mode);
  ~filter_key();
  filter_key(const filter_key&) = delete;
  filter_key& operator=(const filter_key&) = delete;

  bool empty() const noexcept { return type_ == keytype_empty; }
  // Holds something that is neither a bloomkit filter nor RedisBloom's.
  bool wrong_type() const noexcept { return !empty() && value_ == nullptr && chain_ == nullptr; }
  // The value, when the key holds one of ours.
  module_value* value() const noexcept { return value_; }
  // The chain, when the key holds RedisBloom's type (MBbloom--) or bloomkit's chain type
  // (bkbloom--: chain()->bloomkit_hashing()).
  redisbloom_chain* chain() const noexcept { return chain_; }
  // A chain of RedisBloom's own type (what BK.CONVERT and BF.DEBUG's RedisBloom view take).
  redisbloom_chain* redisbloom_chain_of() const noexcept {
    return chain_ != nullptr && !chain_->bloomkit_hashing() ? chain_ : nullptr;
  }
  // Stores a new value in the key (the key takes ownership), replacing what it held; the key
  // keeps its time to live. A chain is stored as the type its hashing bit names.
  module_value& create(module_filter filter);
  module_value& create(std::unique_ptr<image_loader> loading);
  redisbloom_chain& create(redisbloom_chain chain);
  void remove();

 private:
  module_value& set(std::unique_ptr<module_value> value);
  void set_value(RedisModuleType* type, void* value);

  RedisModuleKey* key_ = nullptr;
  int type_ = keytype_empty;
  module_value* value_ = nullptr;
  redisbloom_chain* chain_ = nullptr;
};

}  // namespace bloomkit::redis_module
