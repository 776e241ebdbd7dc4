// Definitions of the API's function pointers and the lookup that fills them (module_api.hpp).

#include "module_api.hpp"

#include <array>
#include <cstring>

extern "C" {
decltype(RedisModule_GetApi) RedisModule_GetApi = nullptr;
decltype(RedisModule_IsModuleNameBusy) RedisModule_IsModuleNameBusy = nullptr;
decltype(RedisModule_SetModuleAttribs) RedisModule_SetModuleAttribs = nullptr;
decltype(RedisModule_CreateCommand) RedisModule_CreateCommand = nullptr;
decltype(RedisModule_CreateDataType) RedisModule_CreateDataType = nullptr;
decltype(RedisModule_SetModuleOptions) RedisModule_SetModuleOptions = nullptr;
decltype(RedisModule_WrongArity) RedisModule_WrongArity = nullptr;
decltype(RedisModule_ReplyWithLongLong) RedisModule_ReplyWithLongLong = nullptr;
decltype(RedisModule_ReplyWithError) RedisModule_ReplyWithError = nullptr;
decltype(RedisModule_ReplyWithSimpleString) RedisModule_ReplyWithSimpleString = nullptr;
decltype(RedisModule_ReplyWithArray) RedisModule_ReplyWithArray = nullptr;
decltype(RedisModule_ReplySetArrayLength) RedisModule_ReplySetArrayLength = nullptr;
decltype(RedisModule_ReplyWithStringBuffer) RedisModule_ReplyWithStringBuffer = nullptr;
decltype(RedisModule_ReplyWithNull) RedisModule_ReplyWithNull = nullptr;
decltype(RedisModule_ReplyWithDouble) RedisModule_ReplyWithDouble = nullptr;
decltype(RedisModule_StringPtrLen) RedisModule_StringPtrLen = nullptr;
decltype(RedisModule_CreateString) RedisModule_CreateString = nullptr;
decltype(RedisModule_FreeString) RedisModule_FreeString = nullptr;
decltype(RedisModule_OpenKey) RedisModule_OpenKey = nullptr;
decltype(RedisModule_CloseKey) RedisModule_CloseKey = nullptr;
decltype(RedisModule_KeyType) RedisModule_KeyType = nullptr;
decltype(RedisModule_DeleteKey) RedisModule_DeleteKey = nullptr;
decltype(RedisModule_ModuleTypeGetType) RedisModule_ModuleTypeGetType = nullptr;
decltype(RedisModule_ModuleTypeGetValue) RedisModule_ModuleTypeGetValue = nullptr;
decltype(RedisModule_ModuleTypeSetValue) RedisModule_ModuleTypeSetValue = nullptr;
decltype(RedisModule_GetExpire) RedisModule_GetExpire = nullptr;
decltype(RedisModule_SetExpire) RedisModule_SetExpire = nullptr;
decltype(RedisModule_ReplicateVerbatim) RedisModule_ReplicateVerbatim = nullptr;
decltype(RedisModule_Replicate) RedisModule_Replicate = nullptr;
decltype(RedisModule_NotifyKeyspaceEvent) RedisModule_NotifyKeyspaceEvent = nullptr;
decltype(RedisModule_SaveUnsigned) RedisModule_SaveUnsigned = nullptr;
decltype(RedisModule_LoadUnsigned) RedisModule_LoadUnsigned = nullptr;
decltype(RedisModule_SaveStringBuffer) RedisModule_SaveStringBuffer = nullptr;
decltype(RedisModule_LoadStringBuffer) RedisModule_LoadStringBuffer = nullptr;
decltype(RedisModule_SaveDouble) RedisModule_SaveDouble = nullptr;
decltype(RedisModule_LoadDouble) RedisModule_LoadDouble = nullptr;
decltype(RedisModule_IsIOError) RedisModule_IsIOError = nullptr;
decltype(RedisModule_EmitAOF) RedisModule_EmitAOF = nullptr;
decltype(RedisModule_DigestAddStringBuffer) RedisModule_DigestAddStringBuffer = nullptr;
decltype(RedisModule_DigestEndSequence) RedisModule_DigestEndSequence = nullptr;
decltype(RedisModule_Log) RedisModule_Log = nullptr;
decltype(RedisModule_LogIOError) RedisModule_LogIOError = nullptr;
decltype(RedisModule_Free) RedisModule_Free = nullptr;
decltype(RedisModule_Alloc) RedisModule_Alloc = nullptr;
decltype(RedisModule_GetContextFlags) RedisModule_GetContextFlags = nullptr;
decltype(RedisModule_TryAlloc) RedisModule_TryAlloc = nullptr;
decltype(RedisModule_MallocSize) RedisModule_MallocSize = nullptr;
decltype(RedisModule_GetUsedMemoryRatio) RedisModule_GetUsedMemoryRatio = nullptr;
decltype(RedisModule_GetServerInfo) RedisModule_GetServerInfo = nullptr;
decltype(RedisModule_FreeServerInfo) RedisModule_FreeServerInfo = nullptr;
decltype(RedisModule_ServerInfoGetFieldUnsigned) RedisModule_ServerInfoGetFieldUnsigned = nullptr;
decltype(RedisModule_GetCommand) RedisModule_GetCommand = nullptr;
decltype(RedisModule_SetCommandInfo) RedisModule_SetCommandInfo = nullptr;
decltype(RedisModule_SetCommandACLCategories) RedisModule_SetCommandACLCategories = nullptr;
decltype(RedisModule_AddACLCategory) RedisModule_AddACLCategory = nullptr;
decltype(RedisModule_RegisterInfoFunc) RedisModule_RegisterInfoFunc = nullptr;
decltype(RedisModule_InfoAddSection) RedisModule_InfoAddSection = nullptr;
decltype(RedisModule_InfoAddFieldULongLong) RedisModule_InfoAddFieldULongLong = nullptr;
decltype(RedisModule_ReplyWithBool) RedisModule_ReplyWithBool = nullptr;
decltype(RedisModule_ReplyWithMap) RedisModule_ReplyWithMap = nullptr;
decltype(RedisModule_RegisterStringConfig) RedisModule_RegisterStringConfig = nullptr;
decltype(RedisModule_LoadConfigs) RedisModule_LoadConfigs = nullptr;
decltype(RedisModule_GetServerVersion) RedisModule_GetServerVersion = nullptr;
}  // extern "C"

namespace bloomkit::redis_module {

namespace {

struct api_entry {
  const char* name;
  void* slot;  // where the function pointer goes
};

// IsModuleNameBusy is looked up apart: older servers lack it, and it is only a courtesy check.
const std::array required_functions{
    api_entry{"RedisModule_SetModuleAttribs", &RedisModule_SetModuleAttribs},
    api_entry{"RedisModule_CreateCommand", &RedisModule_CreateCommand},
    api_entry{"RedisModule_CreateDataType", &RedisModule_CreateDataType},
    api_entry{"RedisModule_SetModuleOptions", &RedisModule_SetModuleOptions},
    api_entry{"RedisModule_WrongArity", &RedisModule_WrongArity},
    api_entry{"RedisModule_ReplyWithLongLong", &RedisModule_ReplyWithLongLong},
    api_entry{"RedisModule_ReplyWithError", &RedisModule_ReplyWithError},
    api_entry{"RedisModule_ReplyWithSimpleString", &RedisModule_ReplyWithSimpleString},
    api_entry{"RedisModule_ReplyWithArray", &RedisModule_ReplyWithArray},
    api_entry{"RedisModule_ReplySetArrayLength", &RedisModule_ReplySetArrayLength},
    api_entry{"RedisModule_ReplyWithStringBuffer", &RedisModule_ReplyWithStringBuffer},
    api_entry{"RedisModule_ReplyWithNull", &RedisModule_ReplyWithNull},
    api_entry{"RedisModule_ReplyWithDouble", &RedisModule_ReplyWithDouble},
    api_entry{"RedisModule_StringPtrLen", &RedisModule_StringPtrLen},
    api_entry{"RedisModule_CreateString", &RedisModule_CreateString},
    api_entry{"RedisModule_FreeString", &RedisModule_FreeString},
    api_entry{"RedisModule_OpenKey", &RedisModule_OpenKey},
    api_entry{"RedisModule_CloseKey", &RedisModule_CloseKey},
    api_entry{"RedisModule_KeyType", &RedisModule_KeyType},
    api_entry{"RedisModule_DeleteKey", &RedisModule_DeleteKey},
    api_entry{"RedisModule_ModuleTypeGetType", &RedisModule_ModuleTypeGetType},
    api_entry{"RedisModule_ModuleTypeGetValue", &RedisModule_ModuleTypeGetValue},
    api_entry{"RedisModule_ModuleTypeSetValue", &RedisModule_ModuleTypeSetValue},
    api_entry{"RedisModule_GetExpire", &RedisModule_GetExpire},
    api_entry{"RedisModule_SetExpire", &RedisModule_SetExpire},
    api_entry{"RedisModule_ReplicateVerbatim", &RedisModule_ReplicateVerbatim},
    api_entry{"RedisModule_Replicate", &RedisModule_Replicate},
    api_entry{"RedisModule_NotifyKeyspaceEvent", &RedisModule_NotifyKeyspaceEvent},
    api_entry{"RedisModule_SaveUnsigned", &RedisModule_SaveUnsigned},
    api_entry{"RedisModule_LoadUnsigned", &RedisModule_LoadUnsigned},
    api_entry{"RedisModule_SaveStringBuffer", &RedisModule_SaveStringBuffer},
    api_entry{"RedisModule_LoadStringBuffer", &RedisModule_LoadStringBuffer},
    api_entry{"RedisModule_SaveDouble", &RedisModule_SaveDouble},
    api_entry{"RedisModule_LoadDouble", &RedisModule_LoadDouble},
    api_entry{"RedisModule_IsIOError", &RedisModule_IsIOError},
    api_entry{"RedisModule_EmitAOF", &RedisModule_EmitAOF},
    api_entry{"RedisModule_DigestAddStringBuffer", &RedisModule_DigestAddStringBuffer},
    api_entry{"RedisModule_DigestEndSequence", &RedisModule_DigestEndSequence},
    api_entry{"RedisModule_Log", &RedisModule_Log},
    api_entry{"RedisModule_LogIOError", &RedisModule_LogIOError},
    api_entry{"RedisModule_Free", &RedisModule_Free},
    api_entry{"RedisModule_Alloc", &RedisModule_Alloc},
    api_entry{"RedisModule_GetContextFlags", &RedisModule_GetContextFlags},
};

// Newer servers' functions: the module works without them (redis_memory.hpp, replies.hpp and
// module_settings.hpp say how).
const std::array optional_functions{
    api_entry{"RedisModule_TryAlloc", &RedisModule_TryAlloc},
    api_entry{"RedisModule_MallocSize", &RedisModule_MallocSize},
    api_entry{"RedisModule_GetUsedMemoryRatio", &RedisModule_GetUsedMemoryRatio},
    api_entry{"RedisModule_GetServerInfo", &RedisModule_GetServerInfo},
    api_entry{"RedisModule_FreeServerInfo", &RedisModule_FreeServerInfo},
    api_entry{"RedisModule_ServerInfoGetFieldUnsigned", &RedisModule_ServerInfoGetFieldUnsigned},
    api_entry{"RedisModule_GetCommand", &RedisModule_GetCommand},
    api_entry{"RedisModule_SetCommandInfo", &RedisModule_SetCommandInfo},
    api_entry{"RedisModule_SetCommandACLCategories", &RedisModule_SetCommandACLCategories},
    api_entry{"RedisModule_AddACLCategory", &RedisModule_AddACLCategory},
    api_entry{"RedisModule_RegisterInfoFunc", &RedisModule_RegisterInfoFunc},
    api_entry{"RedisModule_InfoAddSection", &RedisModule_InfoAddSection},
    api_entry{"RedisModule_InfoAddFieldULongLong", &RedisModule_InfoAddFieldULongLong},
    api_entry{"RedisModule_ReplyWithBool", &RedisModule_ReplyWithBool},
    api_entry{"RedisModule_ReplyWithMap", &RedisModule_ReplyWithMap},
    api_entry{"RedisModule_RegisterStringConfig", &RedisModule_RegisterStringConfig},
    api_entry{"RedisModule_LoadConfigs", &RedisModule_LoadConfigs},
    api_entry{"RedisModule_GetServerVersion", &RedisModule_GetServerVersion},
};

}  // namespace

int resolve_module_api(RedisModuleCtx* ctx) {
  // The context's first field is the lookup function (the module API's documented handshake).
  void* lookup = nullptr;
  std::memcpy(&lookup, static_cast<void*>(ctx), sizeof lookup);
  RedisModule_GetApi = reinterpret_cast<decltype(RedisModule_GetApi)>(lookup);
  for (const api_entry& entry : required_functions) {
    if (RedisModule_GetApi(entry.name, entry.slot) != module_ok) return module_err;
  }
  for (const api_entry& entry : optional_functions) {
    if (RedisModule_GetApi(entry.name, entry.slot) != module_ok) {
      std::memset(entry.slot, 0, sizeof(void*));
    }
  }
  if (RedisModule_GetApi("RedisModule_IsModuleNameBusy", &RedisModule_IsModuleNameBusy) !=
      module_ok) {
    RedisModule_IsModuleNameBusy = nullptr;
  }
  return module_ok;
}

bool module_name_taken(const char* name) {
  return RedisModule_IsModuleNameBusy != nullptr && RedisModule_IsModuleNameBusy(name) != 0;
}

void claim_module_name(RedisModuleCtx* ctx, const char* name, int version) {
  RedisModule_SetModuleAttribs(ctx, name, version, api_version_1);
}

}  // namespace bloomkit::redis_module
