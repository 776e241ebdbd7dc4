// RedisBloom's cuckoo type (redisbloom_cuckoo_type.hpp): its callbacks bind the compat filter's
// RDB fields and chunks (cuckoo_adapter.hpp) to RedisModuleIO. Every read is checked; a bad value
// is logged and refused (Redis then fails the load, or RESTORE answers an error), never a crash.

#include "redisbloom_cuckoo_type.hpp"

#include <exception>
#include <string>
#include <vector>

#include "module_stats.hpp"

namespace bloomkit::redis_module {

namespace {

RedisModuleType* cuckoo_type = nullptr;

const cuckoo_value& filter_of(const void* value) {
  return *static_cast<const cuckoo_value*>(value);
}

void save_filter(RedisModuleIO* io, void* value) {
  save_cuckoo(filter_of(value), io);
}

void* load_filter(RedisModuleIO* io, int encver) {
  try {
    cuckoo_ptr f = load_cuckoo(io, encver);
    note_load();
    note_filter_created();
    return f.release();
  } catch (const std::exception& e) {
    RedisModule_LogIOError(io, "warning",
                           "bloomkit: refusing a corrupt RedisBloom cuckoo filter (MBbloomCF "
                           "encoding version %d): %s",
                           encver, e.what());
    return nullptr;
  }
}

// As RedisBloom's rewrite: CF.LOADCHUNK of the header (iterator 1), then of each chunk at the
// iterator CF.SCANDUMP gives after it.
void rewrite_filter(RedisModuleIO* aof, RedisModuleString* key, void* value) {
  const cuckoo_value& f = filter_of(value);
  const std::vector<unsigned char> header = header_of(f);
  RedisModule_EmitAOF(aof, "CF.LOADCHUNK", "slb", key, 1LL,
                      reinterpret_cast<const char*>(header.data()), header.size());
  for (cuckoo_chunk chunk = chunk_at(f, 1); chunk.next != 0; chunk = chunk_at(f, chunk.next)) {
    RedisModule_EmitAOF(aof, "CF.LOADCHUNK", "slb", key, chunk.next,
                        reinterpret_cast<const char*>(chunk.data.data()), chunk.data.size());
  }
}

// RedisBloom's figure (CF.INFO Size): its structs plus the slots, at least what the filter holds.
std::size_t filter_memory(const void* value) {
  return figures_of(filter_of(value)).size;
}

void digest_filter(RedisModuleDigest* digest, void* value) {
  const cuckoo_value& f = filter_of(value);
  const std::vector<unsigned char> header = header_of(f);
  RedisModule_DigestAddStringBuffer(digest, reinterpret_cast<const char*>(header.data()),
                                    header.size());
  for (cuckoo_chunk chunk = chunk_at(f, 1); chunk.next != 0; chunk = chunk_at(f, chunk.next)) {
    RedisModule_DigestAddStringBuffer(digest, reinterpret_cast<const char*>(chunk.data.data()),
                                      chunk.data.size());
  }
  RedisModule_DigestEndSequence(digest);
}

void free_filter(void* value) {
  free_cuckoo(static_cast<cuckoo_value*>(value));
  note_filter_freed();
}

}  // namespace

int register_redisbloom_cuckoo_type(RedisModuleCtx* ctx) {
  RedisModuleTypeMethods methods{};
  methods.version = type_method_version;
  methods.rdb_load = load_filter;
  methods.rdb_save = save_filter;
  methods.aof_rewrite = rewrite_filter;
  methods.mem_usage = filter_memory;
  methods.digest = digest_filter;
  methods.free = free_filter;
  cuckoo_type =
      RedisModule_CreateDataType(ctx, cuckoo_type_name, cuckoo_encoding_version, &methods);
  return cuckoo_type == nullptr ? module_err : module_ok;
}

cuckoo_key::cuckoo_key(RedisModuleCtx* ctx, RedisModuleString* name, int mode)
    : key_(static_cast<RedisModuleKey*>(RedisModule_OpenKey(ctx, name, mode))) {
  if (key_ == nullptr) return;  // a missing key opened for reading
  type_ = RedisModule_KeyType(key_);
  if (type_ == keytype_module && cuckoo_type != nullptr &&
      RedisModule_ModuleTypeGetType(key_) == cuckoo_type) {
    filter_ = static_cast<cuckoo_value*>(RedisModule_ModuleTypeGetValue(key_));
  }
}

cuckoo_key::~cuckoo_key() {
  if (key_ != nullptr) RedisModule_CloseKey(key_);
}

cuckoo_value& cuckoo_key::create(cuckoo_ptr filter) {
  RedisModule_ModuleTypeSetValue(key_, cuckoo_type, filter.get());  // Redis owns it from here
  note_filter_created();
  type_ = keytype_module;
  filter_ = filter.release();
  return *filter_;
}

const char* cuckoo_status_error(const cuckoo_key& key) noexcept {
  if (key.empty()) return "ERR not found";
  if (key.wrong_type()) return wrong_type_error;
  return "ERR item exists";
}

}  // namespace bloomkit::redis_module
