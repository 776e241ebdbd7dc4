#pragma once
// Every command the module registers, once: its function, flags, ACL categories, arity, what it
// does with its key and its COMMAND DOCS text. A command RedisBloom has is registered as bf.<name>
// (module `bf` only) and as its twin bk.<name> (always, so that COEXIST serves it), from the same
// entry; bloomkit's own (bk.reserve, bk.info, bk.remove) only as bk.<name>. RedisBloom's cuckoo
// commands are registered as cf.<name> (module `bf` only: with COEXIST they are RedisBloom's).

#include <cstdint>
#include <span>

#include "command_info_api.hpp"
#include "module_api.hpp"

namespace bloomkit::redis_module {

enum class command_family : unsigned { bf = 1, bk = 2, both = 3, cf = 4 };

constexpr bool in_family(command_family entry, command_family wanted) noexcept {
  return (static_cast<unsigned>(entry) & static_cast<unsigned>(wanted)) != 0;
}

struct command_spec {
  const char* name;  // after the "bf." / "bk." / "cf." prefix, lower case
  command_family family;
  RedisModuleCmdFunc run;
  const char* flags;           // RedisModule_CreateCommand's
  const char* acl_categories;  // RedisModule_SetCommandACLCategories's, besides "bloom"
  int arity;                   // -N: at least N
  std::uint64_t key_flags;     // its one key (argv[1]): key_ro | key_access, key_rw | ...
  const char* summary;
  const char* complexity;
  const char* since;  // the bloomkit version that added it
  command_arg* args;
};

std::span<const command_spec> command_table();
// RedisBloom's cuckoo commands (cf_command_table.cpp), all of family cf.
std::span<const command_spec> cf_command_table();

// Registers the commands of `family` (CreateCommand, then SetCommandInfo and the ACL categories
// where the server has them). Returns module_err, having logged which, when Redis refuses a
// command; metadata it refuses is only logged.
int register_commands(RedisModuleCtx* ctx, command_family family);

}  // namespace bloomkit::redis_module
