#pragma once
// The part of the Redis module API (module API version 1, Redis >= 6) that bloomkit's module
// calls, declared from the API reference (redis.io/docs/reference/modules): Debian ships no
// redismodule.h. Redis hands a module its functions by name: the first pointer-sized field of the
// context passed to RedisModule_OnLoad is a lookup function, and resolve_module_api() asks it for
// each "RedisModule_<Name>" below and stores the answer in the pointer of that name.

#include <cstddef>
#include <cstdint>

extern "C" {

// Opaque handles: Redis owns them; the module only passes them back.
struct RedisModuleCtx;
struct RedisModuleString;
struct RedisModuleKey;
struct RedisModuleType;
struct RedisModuleIO;
struct RedisModuleDigest;
struct RedisModuleServerInfoData;
struct RedisModuleCommand;
struct RedisModuleInfoCtx;

using RedisModuleCmdFunc = int (*)(RedisModuleCtx* ctx, RedisModuleString** argv, int argc);
using RedisModuleTypeLoadFunc = void* (*)(RedisModuleIO* rdb, int encver);
using RedisModuleTypeSaveFunc = void (*)(RedisModuleIO* rdb, void* value);
using RedisModuleTypeRewriteFunc = void (*)(RedisModuleIO* aof, RedisModuleString* key,
                                            void* value);
using RedisModuleTypeMemUsageFunc = std::size_t (*)(const void* value);
using RedisModuleTypeDigestFunc = void (*)(RedisModuleDigest* digest, void* value);
using RedisModuleTypeFreeFunc = void (*)(void* value);
using RedisModuleTypeAuxLoadFunc = int (*)(RedisModuleIO* rdb, int encver, int when);
using RedisModuleTypeAuxSaveFunc = void (*)(RedisModuleIO* rdb, int when);
using RedisModuleInfoFunc = void (*)(RedisModuleInfoCtx* ctx, int for_crash_report);
// A module config's callbacks (Redis >= 7.0): the value as text, and setting it from text (an
// error string, which Redis frees, when refused).
using RedisModuleConfigGetStringFunc = RedisModuleString* (*)(const char* name, void* privdata);
using RedisModuleConfigSetStringFunc = int (*)(const char* name, RedisModuleString* value,
                                               void* privdata, RedisModuleString** error);
using RedisModuleConfigApplyFunc = int (*)(RedisModuleCtx* ctx, void* privdata,
                                           RedisModuleString** error);

// The callbacks of a data type, layout version 1 (the fields every Redis since 4.0 reads).
struct RedisModuleTypeMethods {
  std::uint64_t version;
  RedisModuleTypeLoadFunc rdb_load;
  RedisModuleTypeSaveFunc rdb_save;
  RedisModuleTypeRewriteFunc aof_rewrite;
  RedisModuleTypeMemUsageFunc mem_usage;
  RedisModuleTypeDigestFunc digest;
  RedisModuleTypeFreeFunc free;
  RedisModuleTypeAuxLoadFunc aux_load;
  RedisModuleTypeAuxSaveFunc aux_save;
  int aux_save_triggers;
};

// Every API function is a pointer that resolve_module_api() fills in.
extern int (*RedisModule_GetApi)(const char* name, void* out);
extern int (*RedisModule_IsModuleNameBusy)(const char* name);
extern void (*RedisModule_SetModuleAttribs)(RedisModuleCtx* ctx, const char* name, int ver,
                                            int apiver);
extern int (*RedisModule_CreateCommand)(RedisModuleCtx* ctx, const char* name,
                                        RedisModuleCmdFunc func, const char* flags, int firstkey,
                                        int lastkey, int keystep);
extern RedisModuleType* (*RedisModule_CreateDataType)(RedisModuleCtx* ctx, const char* name,
                                                      int encver, RedisModuleTypeMethods* methods);
extern void (*RedisModule_SetModuleOptions)(RedisModuleCtx* ctx, int options);
extern int (*RedisModule_WrongArity)(RedisModuleCtx* ctx);
extern int (*RedisModule_ReplyWithLongLong)(RedisModuleCtx* ctx, long long value);
extern int (*RedisModule_ReplyWithError)(RedisModuleCtx* ctx, const char* error);
extern int (*RedisModule_ReplyWithSimpleString)(RedisModuleCtx* ctx, const char* text);
extern int (*RedisModule_ReplyWithArray)(RedisModuleCtx* ctx, long length);
extern void (*RedisModule_ReplySetArrayLength)(RedisModuleCtx* ctx, long length);
extern int (*RedisModule_ReplyWithStringBuffer)(RedisModuleCtx* ctx, const char* buffer,
                                                std::size_t length);
extern int (*RedisModule_ReplyWithNull)(RedisModuleCtx* ctx);
extern int (*RedisModule_ReplyWithDouble)(RedisModuleCtx* ctx, double value);
extern const char* (*RedisModule_StringPtrLen)(const RedisModuleString* text, std::size_t* length);
extern RedisModuleString* (*RedisModule_CreateString)(RedisModuleCtx* ctx, const char* text,
                                                      std::size_t length);
extern void (*RedisModule_FreeString)(RedisModuleCtx* ctx, RedisModuleString* text);
extern void* (*RedisModule_OpenKey)(RedisModuleCtx* ctx, RedisModuleString* name, int mode);
extern void (*RedisModule_CloseKey)(RedisModuleKey* key);
extern int (*RedisModule_KeyType)(RedisModuleKey* key);
extern int (*RedisModule_DeleteKey)(RedisModuleKey* key);
extern RedisModuleType* (*RedisModule_ModuleTypeGetType)(RedisModuleKey* key);
extern void* (*RedisModule_ModuleTypeGetValue)(RedisModuleKey* key);
extern int (*RedisModule_ModuleTypeSetValue)(RedisModuleKey* key, RedisModuleType* type,
                                             void* value);
extern long long (*RedisModule_GetExpire)(RedisModuleKey* key);
extern int (*RedisModule_SetExpire)(RedisModuleKey* key, long long milliseconds);
extern int (*RedisModule_ReplicateVerbatim)(RedisModuleCtx* ctx);
// Replicates a command of the module's choosing (format: 's' a RedisModuleString, 'c' a C
// string, 'l' a long long, 'v' an array of RedisModuleString* and its size_t count).
extern int (*RedisModule_Replicate)(RedisModuleCtx* ctx, const char* command, const char* format,
                                    ...);
extern int (*RedisModule_NotifyKeyspaceEvent)(RedisModuleCtx* ctx, int type, const char* event,
                                              RedisModuleString* key);
extern void (*RedisModule_SaveUnsigned)(RedisModuleIO* io, std::uint64_t value);
extern std::uint64_t (*RedisModule_LoadUnsigned)(RedisModuleIO* io);
extern void (*RedisModule_SaveStringBuffer)(RedisModuleIO* io, const char* buffer,
                                            std::size_t length);
extern char* (*RedisModule_LoadStringBuffer)(RedisModuleIO* io, std::size_t* length);
extern void (*RedisModule_SaveDouble)(RedisModuleIO* io, double value);
extern double (*RedisModule_LoadDouble)(RedisModuleIO* io);
extern int (*RedisModule_IsIOError)(RedisModuleIO* io);
extern void (*RedisModule_EmitAOF)(RedisModuleIO* io, const char* command, const char* format, ...);
extern void (*RedisModule_DigestAddStringBuffer)(RedisModuleDigest* digest, const char* buffer,
                                                 std::size_t length);
extern void (*RedisModule_DigestEndSequence)(RedisModuleDigest* digest);
extern void (*RedisModule_Log)(RedisModuleCtx* ctx, const char* level, const char* format, ...);
extern void (*RedisModule_LogIOError)(RedisModuleIO* io, const char* level, const char* format,
                                      ...);
extern void (*RedisModule_Free)(void* pointer);
extern void* (*RedisModule_Alloc)(std::size_t bytes);
extern int (*RedisModule_GetContextFlags)(RedisModuleCtx* ctx);
// Optional (Redis >= 7.0: TryAlloc; >= 6.0: the others): null when the server lacks them.
extern void* (*RedisModule_TryAlloc)(std::size_t bytes);
extern std::size_t (*RedisModule_MallocSize)(void* pointer);
extern float (*RedisModule_GetUsedMemoryRatio)();
extern RedisModuleServerInfoData* (*RedisModule_GetServerInfo)(RedisModuleCtx* ctx,
                                                               const char* section);
extern void (*RedisModule_FreeServerInfo)(RedisModuleCtx* ctx, RedisModuleServerInfoData* data);
extern unsigned long long (*RedisModule_ServerInfoGetFieldUnsigned)(RedisModuleServerInfoData* data,
                                                                    const char* field,
                                                                    int* out_err);
// Commands' metadata (command_registration.cpp): >= 7.0 GetCommand and SetCommandInfo (its
// structures: command_info_api.hpp), >= 7.2 SetCommandACLCategories, >= 7.4 AddACLCategory.
extern RedisModuleCommand* (*RedisModule_GetCommand)(RedisModuleCtx* ctx, const char* name);
extern int (*RedisModule_SetCommandInfo)(RedisModuleCommand* command, const void* info);
extern int (*RedisModule_SetCommandACLCategories)(RedisModuleCommand* command,
                                                  const char* categories);
extern int (*RedisModule_AddACLCategory)(RedisModuleCtx* ctx, const char* name);
// The INFO section (module_stats.cpp), >= 6.0.
extern int (*RedisModule_RegisterInfoFunc)(RedisModuleCtx* ctx, RedisModuleInfoFunc callback);
extern int (*RedisModule_InfoAddSection)(RedisModuleInfoCtx* ctx, const char* name);
extern int (*RedisModule_InfoAddFieldULongLong)(RedisModuleInfoCtx* ctx, const char* field,
                                                unsigned long long value);
// Optional (Redis >= 7.0): RESP3 replies (booleans, maps) and module configs.
extern int (*RedisModule_ReplyWithBool)(RedisModuleCtx* ctx, int value);
extern int (*RedisModule_ReplyWithMap)(RedisModuleCtx* ctx, long pairs);
extern int (*RedisModule_RegisterStringConfig)(RedisModuleCtx* ctx, const char* name,
                                               const char* default_value, unsigned int flags,
                                               RedisModuleConfigGetStringFunc get,
                                               RedisModuleConfigSetStringFunc set,
                                               RedisModuleConfigApplyFunc apply, void* privdata);
extern int (*RedisModule_LoadConfigs)(RedisModuleCtx* ctx);
// Optional (Redis >= 6.0.9): the server's version, 0x00MMmmpp.
extern int (*RedisModule_GetServerVersion)();

}  // extern "C"

namespace bloomkit::redis_module {

// Return values, key modes, key types and flags of the API, as the reference defines them.
inline constexpr int module_ok = 0;
inline constexpr int module_err = 1;
inline constexpr int api_version_1 = 1;
inline constexpr int open_read = 1 << 0;
inline constexpr int open_write = 1 << 1;
inline constexpr int keytype_empty = 0;
inline constexpr int keytype_module = 6;
// RedisModule_GetExpire of a key without a time to live.
inline constexpr long long no_expire = -1;
inline constexpr int notify_generic = 1 << 2;
// The module checks RedisModule_IsIOError itself instead of Redis aborting on a bad RDB read.
inline constexpr int option_handle_io_errors = 1 << 0;
inline constexpr long postponed_array_length = -1;
// RedisModule_GetContextFlags: maxmemory is set; its policy may evict keys; the command came over
// the replication link; the server is loading an AOF or RDB file.
inline constexpr int ctx_flags_maxmemory = 1 << 8;
inline constexpr int ctx_flags_evict = 1 << 9;
inline constexpr int ctx_flags_replicated = 1 << 12;
inline constexpr int ctx_flags_loading = 1 << 13;
// The client speaks RESP3 (HELLO 3).
inline constexpr int ctx_flags_resp3 = 1 << 22;
// RedisModule_Register*Config: the name as given, without the module's name and a dot in front
// (Redis >= 8.0; older servers refuse the flag).
inline constexpr unsigned int config_default = 0;
inline constexpr unsigned int config_unprefixed = 1U << 9;
inline constexpr std::uint64_t type_method_version = 1;
inline constexpr const char* wrong_type_error =
    "WRONGTYPE Operation against a key holding the wrong kind of value";

// Fetches every function above through the context's lookup function (optional ones left null
// when the server lacks them). Returns module_err when a required function is missing.
int resolve_module_api(RedisModuleCtx* ctx);

// Whether a loaded module already has this name (false when the server cannot tell).
bool module_name_taken(const char* name);

// Registers the module under `name` (RedisModule_SetModuleAttribs).
void claim_module_name(RedisModuleCtx* ctx, const char* name, int version);

}  // namespace bloomkit::redis_module
