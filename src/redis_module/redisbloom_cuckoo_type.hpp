#pragma once
// RedisBloom's cuckoo-filter type, "MBbloomCF" at its encoding version 4, so that bloomkit's
// module takes RedisBloom's CF.* keys over as they are (docs/REDIS.md, "Cuckoo filters: CF.*"):
// RDB values of every version RedisBloom loads, saved back as RedisBloom saves them (same calls,
// same order: DUMP payloads are byte-identical), DUMP / RESTORE, AOF rewrites as RedisBloom's
// CF.LOADCHUNK commands, MEMORY USAGE as RedisBloom's CF.INFO Size, DEBUG DIGEST. Registered by
// the drop-in module only (module `bf`); with COEXIST the name is RedisBloom's.

#include <memory>

#include "cuckoo_adapter.hpp"
#include "module_api.hpp"

namespace bloomkit::redis_module {

// Registers the type (RedisModule_OnLoad); module_err when Redis refuses it.
int register_redisbloom_cuckoo_type(RedisModuleCtx* ctx);

// A key opened for a CF command, closed when this goes out of scope: it holds a cuckoo filter
// (filter()), something else (wrong_type()) or nothing (empty()).
class cuckoo_key {
 public:
  cuckoo_key(RedisModuleCtx* ctx, RedisModuleString* name, int mode);
  ~cuckoo_key();
  cuckoo_key(const cuckoo_key&) = delete;
  cuckoo_key& operator=(const cuckoo_key&) = delete;

  bool empty() const noexcept { return type_ == keytype_empty; }
  bool wrong_type() const noexcept { return !empty() && filter_ == nullptr; }
  cuckoo_value* filter() const noexcept { return filter_; }
  // Stores a new filter in the empty key (the key takes ownership).
  cuckoo_value& create(cuckoo_ptr filter);

 private:
  RedisModuleKey* key_ = nullptr;
  int type_ = keytype_empty;
  cuckoo_value* filter_ = nullptr;
};

// RedisBloom's reply for a key that holds no filter: "ERR not found" (missing), WRONGTYPE
// (another type), "ERR item exists" (a filter where none may be).
const char* cuckoo_status_error(const cuckoo_key& key) noexcept;

}  // namespace bloomkit::redis_module
