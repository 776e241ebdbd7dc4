#pragma once
// The structures RedisModule_SetCommandInfo (Redis >= 7.0) reads, laid out as Redis 7.0's
// redismodule.h lays them out (command info version 1), and their constants. Redis walks each
// array with the sizes given in command_info_version, so the trailing display_text of an argument
// (read by Redis >= 7.2, ignored by 7.0) is declared too: left null, it is harmless to both.

#include <cstddef>
#include <cstdint>

namespace bloomkit::redis_module {

// RedisModuleCommandArgType.
enum class command_arg_type : int {
  string,
  integer,
  double_value,
  key,
  pattern,
  unix_time,
  pure_token,
  one_of,  // needs subargs
  block,   // needs subargs
};

// REDISMODULE_CMD_ARG_*.
inline constexpr int arg_optional = 1 << 0;
inline constexpr int arg_multiple = 1 << 1;

// RedisModuleKeySpecBeginSearchType / RedisModuleKeySpecFindKeysType (0 ends a key-spec array).
inline constexpr int begin_search_index = 2;
inline constexpr int find_keys_range = 2;

// REDISMODULE_CMD_KEY_*: what a command does with a key (ACL selectors %R / %W read them).
inline constexpr std::uint64_t key_ro = 1ULL << 0;
inline constexpr std::uint64_t key_rw = 1ULL << 1;
inline constexpr std::uint64_t key_access = 1ULL << 4;
inline constexpr std::uint64_t key_update = 1ULL << 5;
inline constexpr std::uint64_t key_insert = 1ULL << 6;
inline constexpr std::uint64_t key_delete = 1ULL << 7;

struct command_arg {
  const char* name = nullptr;  // null ends an array
  command_arg_type type = command_arg_type::string;
  int key_spec_index = -1;  // for a key: its key spec
  const char* token = nullptr;
  const char* summary = nullptr;
  const char* since = nullptr;
  int flags = 0;
  const char* deprecated_since = nullptr;
  command_arg* subargs = nullptr;
  const char* display_text = nullptr;
};

struct command_history_entry {
  const char* since;
  const char* changes;
};

struct command_key_spec {
  const char* notes = nullptr;
  std::uint64_t flags = 0;
  int begin_search_type = 0;  // 0 ends an array
  union {
    struct {
      int pos;
    } index;
    struct {
      const char* keyword;
      int startfrom;
    } keyword;
  } bs{};
  int find_keys_type = 0;
  union {
    struct {
      int lastkey;
      int keystep;
      int limit;
    } range;
    struct {
      int keynumidx;
      int firstkey;
      int keystep;
    } keynum;
  } fk{};
};

struct command_info_version {
  int version;
  std::size_t sizeof_historyentry;
  std::size_t sizeof_keyspec;
  std::size_t sizeof_arg;
};

inline constexpr command_info_version current_command_info_version{
    1, sizeof(command_history_entry), sizeof(command_key_spec), sizeof(command_arg)};

struct command_info {
  const command_info_version* version = &current_command_info_version;
  const char* summary = nullptr;
  const char* complexity = nullptr;
  const char* since = nullptr;
  command_history_entry* history = nullptr;
  const char* tips = nullptr;
  int arity = 0;
  command_key_spec* key_specs = nullptr;
  command_arg* args = nullptr;
};

}  // namespace bloomkit::redis_module
