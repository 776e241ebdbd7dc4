// Registering the command table (command_table.hpp): names in lower case as RedisBloom's, then
// each command's metadata where the server takes it. Redis 7.0 takes the command info (arity, key
// specs, COMMAND DOCS); 7.2 ACL categories; 7.4 new ones, such as RedisBloom's `bloom`. On older
// servers the commands work as before without it.

#include <string>

#include "command_table.hpp"

namespace bloomkit::redis_module {

namespace {

std::string full_name(command_family family, const command_spec& c) {
  const char* prefix = family == command_family::bf   ? "bf."
                       : family == command_family::cf ? "cf."
                                                      : "bk.";
  return std::string(prefix) + c.name;
}

// Every command's one key is argv[1]: begin at index 1, a range of one key.
int set_command_info(RedisModuleCommand* command, const command_spec& c) {
  command_key_spec keys[2]{};
  keys[0].flags = c.key_flags;
  keys[0].begin_search_type = begin_search_index;
  keys[0].bs.index.pos = 1;
  keys[0].find_keys_type = find_keys_range;
  keys[0].fk.range = {0, 1, 0};
  command_info info;
  info.summary = c.summary;
  info.complexity = c.complexity;
  info.since = c.since;
  info.arity = c.arity;
  info.key_specs = keys;
  info.args = c.args;
  return RedisModule_SetCommandInfo(command, &info);
}

// Adds the categories, with `bloom` when the server has it (RedisBloom's, or ours on >= 7.4).
void set_acl_categories(RedisModuleCommand* command, const command_spec& c, bool bloom) {
  if (RedisModule_SetCommandACLCategories == nullptr) return;
  const std::string with_bloom = std::string(c.acl_categories) + " bloom";
  if (bloom && RedisModule_SetCommandACLCategories(command, with_bloom.c_str()) == module_ok) {
    return;
  }
  RedisModule_SetCommandACLCategories(command, c.acl_categories);
}

// Whether the server has module ACL categories (>= 7.4). Then `bloom` is added, or is there
// already (RedisBloom's beside a COEXIST module, or added for the other family): either way usable.
bool add_bloom_category(RedisModuleCtx* ctx) {
  if (RedisModule_AddACLCategory == nullptr) return false;
  RedisModule_AddACLCategory(ctx, "bloom");
  return true;
}

}  // namespace

int register_commands(RedisModuleCtx* ctx, command_family family) {
  const bool bloom = add_bloom_category(ctx);
  for (const command_spec& c :
       family == command_family::cf ? cf_command_table() : command_table()) {
    if (!in_family(c.family, family)) continue;
    const std::string name = full_name(family, c);
    if (RedisModule_CreateCommand(ctx, name.c_str(), c.run, c.flags, 1, 1, 1) != module_ok) {
      RedisModule_Log(ctx, "warning",
                      "bloomkit: cannot register %s: another module has it (RedisBloom? load "
                      "bloomkit's module with COEXIST to run beside it)",
                      name.c_str());
      return module_err;
    }
    if (RedisModule_GetCommand == nullptr || RedisModule_SetCommandInfo == nullptr) continue;
    // The metadata is a courtesy to clients and ACLs: a server that refuses it still gets the
    // command (and says so in its log).
    RedisModuleCommand* command = RedisModule_GetCommand(ctx, name.c_str());
    if (command == nullptr || set_command_info(command, c) != module_ok) {
      RedisModule_Log(ctx, "warning",
                      "bloomkit: Redis refused the command info of %s: its COMMAND DOCS, arity "
                      "and key specs are missing (a read-only ACL user cannot run it)",
                      name.c_str());
      continue;
    }
    set_acl_categories(command, c, bloom);
  }
  return module_ok;
}

}  // namespace bloomkit::redis_module
