// RedisBloom's data type (redisbloom_type.hpp): its callbacks bind RedisBloom's RDB fields and
// chunks (bloomkit/compat/redisbloom.hpp) to RedisModuleIO. Every read is checked; a bad value is
// logged and refused (Redis then fails the load, or RESTORE answers an error), never a crash.

#include "redisbloom_type.hpp"

#include "module_stats.hpp"
#include "rdb_io.hpp"

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "../module_value/redisbloom_keys.hpp"

namespace bloomkit::redis_module {

namespace {

RedisModuleType* chain_type = nullptr;
RedisModuleType* native_chain_type = nullptr;
const char* native_load_command = "BF.LOADCHUNK";

const redisbloom_chain& chain_of(const void* value) {
  return *static_cast<const redisbloom_chain*>(value);
}

void save_chain(RedisModuleIO* io, void* value) {
  rdb_writer<redisbloom::field_sink> out(io);
  redisbloom::save_fields(chain_of(value), out);
}

// Loads a value of RedisBloom's type (Native false) or bloomkit's chain type (Native true);
// either refuses a chain whose hashing bit names the other.
template <bool Native>
void* load_chain(RedisModuleIO* io, int encver) {
  const std::string_view type = Native ? redisbloom::native_type_name : redisbloom::type_name;
  try {
    rdb_reader<redisbloom::field_source> in(io);
    auto* chain = new redisbloom_chain(redisbloom::load_value(in, type, encver));
    note_load();
    note_filter_created();
    return chain;
  } catch (const std::exception& e) {
    RedisModule_LogIOError(
        io, "warning", "bloomkit: refusing a corrupt %s value (%s encoding version %d): %s",
        Native ? "bloomkit chain" : "RedisBloom", std::string(type).c_str(), encver, e.what());
    return nullptr;
  }
}

// Recreates the key as RedisBloom's own rewrite does: LOADCHUNK of the header (iterator 1), then
// of each data chunk at RedisBloom's iterator.
void emit_chunks(RedisModuleIO* aof, const char* command, RedisModuleString* key,
                 const redisbloom_chain& c) {
  const std::vector<unsigned char> header = redisbloom::header_chunk(c);
  RedisModule_EmitAOF(aof, command, "slb", key, 1LL, reinterpret_cast<const char*>(header.data()),
                      header.size());
  for (redisbloom::data_chunk chunk = redisbloom::next_chunk(c, 1); chunk.next != 0;
       chunk = redisbloom::next_chunk(c, chunk.next)) {
    RedisModule_EmitAOF(aof, command, "slb", key, static_cast<long long>(chunk.next),
                        reinterpret_cast<const char*>(chunk.data.data()), chunk.data.size());
  }
}

void rewrite_chain(RedisModuleIO* aof, RedisModuleString* key, void* value) {
  emit_chunks(aof, "BF.LOADCHUNK", key, chain_of(value));
}

// bloomkit's chains load through BK.LOADCHUNK under COEXIST, where BF.* is RedisBloom's.
void rewrite_native_chain(RedisModuleIO* aof, RedisModuleString* key, void* value) {
  emit_chunks(aof, native_load_command, key, chain_of(value));
}

// RedisBloom's figure (its BF.INFO Size), which is at least what the chain holds.
std::size_t chain_memory(const void* value) {
  return memory_of(chain_of(value));
}

void digest_chain(RedisModuleDigest* digest, void* value) {
  const redisbloom_chain& c = chain_of(value);
  const std::vector<unsigned char> header = redisbloom::header_chunk(c);
  RedisModule_DigestAddStringBuffer(digest, reinterpret_cast<const char*>(header.data()),
                                    header.size());
  for (std::size_t i = 0; i < c.filters(); ++i) {
    const std::span<const unsigned char> bits = c.link_bits(i);
    RedisModule_DigestAddStringBuffer(digest, reinterpret_cast<const char*>(bits.data()),
                                      bits.size());
  }
  RedisModule_DigestEndSequence(digest);
}

void free_chain(void* value) {
  delete static_cast<redisbloom_chain*>(value);
  note_filter_freed();
}

template <bool Native>
RedisModuleType* create_chain_type(RedisModuleCtx* ctx) {
  RedisModuleTypeMethods methods{};
  methods.version = type_method_version;
  methods.rdb_load = load_chain<Native>;
  methods.rdb_save = save_chain;
  methods.aof_rewrite = Native ? rewrite_native_chain : rewrite_chain;
  methods.mem_usage = chain_memory;
  methods.digest = digest_chain;
  methods.free = free_chain;
  const std::string_view name = Native ? redisbloom::native_type_name : redisbloom::type_name;
  return RedisModule_CreateDataType(
      ctx, std::string(name).c_str(),
      Native ? redisbloom::native_encoding_version : redisbloom::encoding_version, &methods);
}

}  // namespace

int register_redisbloom_type(RedisModuleCtx* ctx) {
  chain_type = create_chain_type<false>(ctx);
  return chain_type == nullptr ? module_err : module_ok;
}

int register_native_chain_type(RedisModuleCtx* ctx, const char* load_command) {
  native_load_command = load_command;
  native_chain_type = create_chain_type<true>(ctx);
  return native_chain_type == nullptr ? module_err : module_ok;
}

RedisModuleType* redisbloom_type() noexcept {
  return chain_type;
}

RedisModuleType* bloomkit_chain_type() noexcept {
  return native_chain_type;
}

}  // namespace bloomkit::redis_module
