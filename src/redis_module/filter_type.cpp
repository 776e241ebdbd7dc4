// The module data type (filter_type.hpp).
//
// RDB value (encoding version 1): a state (0: a filter; 1: a BF.LOADCHUNK still receiving), the
// image header (filter_image.hpp), the number of payload bytes that follow, then those bytes in
// strings of at most rdb_piece_bytes (Redis strings stop at 512 MB; filters need not). The loader
// checks every read, the header's checksum and, for a filter, the payload's; a bad value is
// logged and refused (Redis then fails the load) instead of crashing the server.

#include "filter_type.hpp"

#include <algorithm>
#include <exception>
#include <string>

namespace bloomkit::redis_module {

namespace {

constexpr int encoding_version = 1;
constexpr std::uint64_t state_filter = 0;
constexpr std::uint64_t state_loading = 1;
constexpr std::size_t rdb_piece_bytes = std::size_t{64} << 20;
// LOADCHUNK commands of an AOF rewrite carry at most this much payload each.
constexpr std::size_t aof_piece_bytes = std::size_t{16} << 20;

RedisModuleType* filter_type = nullptr;

// Calls emit(bytes) for the payload in slices of at most `limit` bytes.
template <class Emit>
void for_each_slice(const std::vector<std::string_view>& pieces, std::size_t limit, Emit emit) {
  for (std::string_view piece : pieces) {
    while (!piece.empty()) {
      const std::size_t n = std::min(piece.size(), limit);
      emit(piece.substr(0, n));
      piece.remove_prefix(n);
    }
  }
}

void save_value(RedisModuleIO* io, void* value) {
  const auto& v = *static_cast<const module_value*>(value);
  const std::string header = header_of(v);
  const std::vector<std::string_view> payload = payload_of(v);
  std::uint64_t bytes = 0;
  for (std::string_view piece : payload) bytes += piece.size();
  RedisModule_SaveUnsigned(io, v.filter ? state_filter : state_loading);
  RedisModule_SaveStringBuffer(io, header.data(), header.size());
  RedisModule_SaveUnsigned(io, bytes);
  for_each_slice(payload, rdb_piece_bytes, [&](std::string_view slice) {
    RedisModule_SaveStringBuffer(io, slice.data(), slice.size());
  });
}

// A string read from the RDB, freed with RedisModule_Free.
struct rdb_string {
  char* data = nullptr;
  std::size_t size = 0;
  explicit rdb_string(RedisModuleIO* io) { data = RedisModule_LoadStringBuffer(io, &size); }
  ~rdb_string() {
    if (data != nullptr) RedisModule_Free(data);
  }
  rdb_string(const rdb_string&) = delete;
  rdb_string& operator=(const rdb_string&) = delete;
  std::string_view view() const { return {data, data == nullptr ? 0 : size}; }
};

struct rdb_read_error : image_error {
  rdb_read_error() : image_error("short or failed read") {}
};

void check_io(RedisModuleIO* io) {
  if (RedisModule_IsIOError(io)) throw rdb_read_error();
}

std::unique_ptr<module_value> read_value(RedisModuleIO* io) {
  const std::uint64_t state = RedisModule_LoadUnsigned(io);
  check_io(io);
  if (state != state_filter && state != state_loading) {
    throw image_error("unknown value state " + std::to_string(state));
  }
  std::unique_ptr<image_loader> loader;
  {
    const rdb_string header(io);
    check_io(io);
    loader = std::make_unique<image_loader>(header.view());
  }
  const std::uint64_t bytes = RedisModule_LoadUnsigned(io);
  check_io(io);
  if (bytes > loader->payload_bytes() ||
      (state == state_filter && bytes != loader->payload_bytes())) {
    throw image_error("payload length " + std::to_string(bytes) + " does not match the header");
  }
  while (loader->loaded_bytes() < bytes) {
    const rdb_string piece(io);
    check_io(io);
    if (piece.size == 0 || piece.size > bytes - loader->loaded_bytes()) {
      throw image_error("payload piece of a wrong length");
    }
    loader->append(piece.view());
  }
  auto value = std::make_unique<module_value>();
  if (state == state_filter) {
    value->filter = loader->finish();
  } else {
    value->loading = std::move(loader);
  }
  return value;
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
    return read_value(io).release();
  } catch (const std::exception& e) {
    RedisModule_LogIOError(io, "warning", "bloomkit: refusing a corrupt filter value: %s",
                           e.what());
    return nullptr;
  }
}

// Recreates the key with BF.LOADCHUNK commands: the header (iterator 1), then the payload.
void rewrite_value(RedisModuleIO* aof, RedisModuleString* key, void* value) {
  const auto& v = *static_cast<const module_value*>(value);
  const std::string header = header_of(v);
  RedisModule_EmitAOF(aof, "BF.LOADCHUNK", "slb", key, 1LL, header.data(), header.size());
  long long offset = 0;
  for_each_slice(payload_of(v), aof_piece_bytes, [&](std::string_view slice) {
    offset += static_cast<long long>(slice.size());
    RedisModule_EmitAOF(aof, "BF.LOADCHUNK", "slb", key, offset + 1, slice.data(), slice.size());
  });
}

std::size_t value_memory(const void* value) {
  const auto& v = *static_cast<const module_value*>(value);
  if (v.filter) return sizeof(module_value) + memory_of(*v.filter);
  return sizeof(module_value) + v.loading->header().size() + v.loading->payload_bytes();
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
  delete static_cast<module_value*>(value);
}

}  // namespace

std::string header_of(const module_value& v) {
  return v.filter ? image_header(*v.filter) : v.loading->header();
}

std::vector<std::string_view> payload_of(const module_value& v) {
  return v.filter ? image_payload(*v.filter) : v.loading->loaded_payload();
}

int register_filter_type(RedisModuleCtx* ctx) {
  RedisModuleTypeMethods methods{};
  methods.version = type_method_version;
  methods.rdb_load = load_value;
  methods.rdb_save = save_value;
  methods.aof_rewrite = rewrite_value;
  methods.mem_usage = value_memory;
  methods.digest = digest_value;
  methods.free = free_value;
  filter_type = RedisModule_CreateDataType(ctx, "bloomkit1", encoding_version, &methods);
  return filter_type == nullptr ? module_err : module_ok;
}

filter_key::filter_key(RedisModuleCtx* ctx, RedisModuleString* name, int mode)
    : key_(static_cast<RedisModuleKey*>(RedisModule_OpenKey(ctx, name, mode))) {
  if (key_ == nullptr) return;  // a missing key opened for reading
  type_ = RedisModule_KeyType(key_);
  if (type_ == keytype_module && RedisModule_ModuleTypeGetType(key_) == filter_type) {
    value_ = static_cast<module_value*>(RedisModule_ModuleTypeGetValue(key_));
  }
}

filter_key::~filter_key() {
  if (key_ != nullptr) RedisModule_CloseKey(key_);
}

module_value& filter_key::create(module_filter filter) {
  auto value = std::make_unique<module_value>();
  value->filter = std::move(filter);
  RedisModule_ModuleTypeSetValue(key_, filter_type, value.get());
  type_ = keytype_module;
  value_ = value.release();
  return *value_;
}

module_value& filter_key::create(std::unique_ptr<image_loader> loading) {
  auto value = std::make_unique<module_value>();
  value->loading = std::move(loading);
  RedisModule_ModuleTypeSetValue(key_, filter_type, value.get());
  type_ = keytype_module;
  value_ = value.release();
  return *value_;
}

void filter_key::remove() {
  RedisModule_DeleteKey(key_);
  type_ = keytype_empty;
  value_ = nullptr;
}

}  // namespace bloomkit::redis_module
