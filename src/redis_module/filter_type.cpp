// The module data type (filter_type.hpp).
//
// The RDB value's encoding is value_codec.hpp's; here it meets RedisModuleIO. The loader
// checks every read; a bad value is logged and refused (Redis then fails the load) instead of
// crashing the server.

#include "filter_type.hpp"

#include "redisbloom_type.hpp"

#include <algorithm>
#include <exception>
#include <string>

#include "module_stats.hpp"
#include "rdb_io.hpp"

namespace bloomkit::redis_module {

namespace {

constexpr int encoding_version = 1;
constexpr std::size_t rdb_piece_bytes = std::size_t{64} << 20;
// LOADCHUNK commands of an AOF rewrite carry at most this much payload each.
constexpr std::size_t aof_piece_bytes = std::size_t{16} << 20;

RedisModuleType* filter_type = nullptr;
const char* aof_load_command = "BF.LOADCHUNK";

void save_value(RedisModuleIO* io, void* value) {
  rdb_writer<value_sink> out(io);
  encode_value(*static_cast<const module_value*>(value), out, rdb_piece_bytes);
}

void* load_value(RedisModuleIO* io, int encver) {
  if (encver != encoding_version) {
    RedisModule_LogIOError(io, "warning",
                           "bloomkit: cannot load a filter of encoding version %d (this module "
                           "reads version %d)",
                           encver, encoding_version);
    return nullptr;
  }
  try {
    rdb_reader<value_source> in(io);
    auto value = decode_value(in);
    note_load();
    note_filter_created();
    return value.release();
  } catch (const std::exception& e) {
    RedisModule_LogIOError(io, "warning", "bloomkit: refusing a corrupt filter value: %s",
                           e.what());
    return nullptr;
  }
}

// Recreates the key with BF.LOADCHUNK (or BK.LOADCHUNK) commands: the header (iterator 1), then
// the payload.
void rewrite_value(RedisModuleIO* aof, RedisModuleString* key, void* value) {
  const auto& v = *static_cast<const module_value*>(value);
  const std::string header = header_of(v);
  RedisModule_EmitAOF(aof, aof_load_command, "slb", key, 1LL, header.data(), header.size());
  long long offset = 0;
  for_each_payload_slice(payload_of(v), aof_piece_bytes, [&](std::string_view slice) {
    offset += static_cast<long long>(slice.size());
    RedisModule_EmitAOF(aof, aof_load_command, "slb", key, offset + 1, slice.data(), slice.size());
  });
}

std::size_t value_memory(const void* value) {
  const auto& v = *static_cast<const module_value*>(value);
  if (v.filter) return memory_of(*v.filter);
  // What a load has allocated so far, not what its header declares (the rest may never come).
  return sizeof(module_value) + sizeof(image_loader) + v.loading->header().size() +
         v.loading->allocated_bytes();
}

void digest_value(RedisModuleDigest* digest, void* value) {
  const auto& v = *static_cast<const module_value*>(value);
  const std::string header = header_of(v);
  RedisModule_DigestAddStringBuffer(digest, header.data(), header.size());
  for (std::string_view piece : payload_of(v)) {
    RedisModule_DigestAddStringBuffer(digest, piece.data(), piece.size());
  }
  RedisModule_DigestEndSequence(digest);
}

void free_value(void* value) {
  note_filter_freed();
  delete static_cast<module_value*>(value);
}

}  // namespace

int register_filter_type(RedisModuleCtx* ctx, const char* load_command) {
  aof_load_command = load_command;
  RedisModuleTypeMethods methods{};
  methods.version = type_method_version;
  methods.rdb_load = load_value;
  methods.rdb_save = save_value;
  methods.aof_rewrite = rewrite_value;
  methods.mem_usage = value_memory;
  methods.digest = digest_value;
  methods.free = free_value;
  filter_type = RedisModule_CreateDataType(ctx, module_type_name, encoding_version, &methods);
  return filter_type == nullptr ? module_err : module_ok;
}

filter_key::filter_key(RedisModuleCtx* ctx, RedisModuleString* name, int mode)
    : key_(static_cast<RedisModuleKey*>(RedisModule_OpenKey(ctx, name, mode))) {
  if (key_ == nullptr) return;  // a missing key opened for reading
  type_ = RedisModule_KeyType(key_);
  if (type_ == keytype_module && RedisModule_ModuleTypeGetType(key_) == filter_type) {
    value_ = static_cast<module_value*>(RedisModule_ModuleTypeGetValue(key_));
  } else if (type_ == keytype_module) {
    const RedisModuleType* type = RedisModule_ModuleTypeGetType(key_);
    if (type != nullptr && (type == redisbloom_type() || type == bloomkit_chain_type())) {
      chain_ = static_cast<redisbloom_chain*>(RedisModule_ModuleTypeGetValue(key_));
    }
  }
}

filter_key::~filter_key() {
  if (key_ != nullptr) RedisModule_CloseKey(key_);
}

module_value& filter_key::create(module_filter filter) {
  auto value = std::make_unique<module_value>();
  value->filter = std::move(filter);
  return set(std::move(value));
}

module_value& filter_key::create(std::unique_ptr<image_loader> loading) {
  auto value = std::make_unique<module_value>();
  value->loading = std::move(loading);
  return set(std::move(value));
}

redisbloom_chain& filter_key::create(redisbloom_chain chain) {
  auto value = std::make_unique<redisbloom_chain>(std::move(chain));
  set_value(value->bloomkit_hashing() ? bloomkit_chain_type() : redisbloom_type(), value.get());
  chain_ = value.release();
  return *chain_;
}

module_value& filter_key::set(std::unique_ptr<module_value> value) {
  set_value(filter_type, value.get());
  value_ = value.release();
  return *value_;
}

void filter_key::set_value(RedisModuleType* type, void* value) {
  // Setting a value deletes what the key held (Redis frees it) and its time to live.
  const long long ttl = empty() ? no_expire : RedisModule_GetExpire(key_);
  RedisModule_ModuleTypeSetValue(key_, type, value);  // Redis owns it from here
  note_filter_created();
  if (ttl != no_expire) RedisModule_SetExpire(key_, ttl);
  type_ = keytype_module;
  value_ = nullptr;
  chain_ = nullptr;
}

void filter_key::remove() {
  RedisModule_DeleteKey(key_);
  type_ = keytype_empty;
  value_ = nullptr;
  chain_ = nullptr;
}

}  // namespace bloomkit::redis_module
