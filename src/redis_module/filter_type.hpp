#pragma once
// The module data type "bloomkit1" (nine characters, as Redis requires): its values, its
// callbacks (RDB save / load, AOF rewrite, MEMORY USAGE, DEBUG DIGEST, free) and access to keys
// that hold it.

#include <memory>

#include "../module_value/module_value.hpp"
#include "../module_value/value_codec.hpp"
#include "module_api.hpp"

namespace bloomkit::redis_module {

// Registers the type; returns module_err when Redis refuses it. An AOF rewrite recreates a key
// with `load_command` (BF.LOADCHUNK; BK.LOADCHUNK with COEXIST, where BF.* is RedisBloom's).
int register_filter_type(RedisModuleCtx* ctx, const char* load_command);

// A key opened for a command, closed when this goes out of scope.
class filter_key {
 public:
  filter_key(RedisModuleCtx* ctx, RedisModuleString* name, int mode);
  ~filter_key();
  filter_key(const filter_key&) = delete;
  filter_key& operator=(const filter_key&) = delete;

  bool empty() const noexcept { return type_ == keytype_empty; }
  // Holds something that is not a bloomkit filter.
  bool wrong_type() const noexcept { return !empty() && value_ == nullptr; }
  // The value, when the key holds one of ours.
  module_value* value() const noexcept { return value_; }
  // Stores a new value in an empty key (the key takes ownership).
  module_value& create(module_filter filter);
  module_value& create(std::unique_ptr<image_loader> loading);
  void remove();

 private:
  module_value& set(std::unique_ptr<module_value> value);

  RedisModuleKey* key_ = nullptr;
  int type_ = keytype_empty;
  module_value* value_ = nullptr;
};

}  // namespace bloomkit::redis_module
