// RedisBloom's cuckoo commands and their COMMAND DOCS (command_table.hpp). Arities, flags, key
// access and argument shapes are RedisBloom's (its documentation and cf.* command info), but for
// CF.COMPACT, which RedisBloom flags `readonly fast` although it moves and frees sub-filters:
// here `write`, so that a replica or a read-only user cannot run it. The texts are bloomkit's.

#include "command_doc_parts.hpp"
#include "command_table.hpp"
#include "commands.hpp"

namespace bloomkit::redis_module {

namespace cf_command_docs {

using enum command_arg_type;
using namespace command_doc_parts;

command_arg bucket_size_value[] = {{.name = "bucketsize", .type = integer}, {}};
command_arg max_iterations_value[] = {{.name = "maxiterations", .type = integer}, {}};
command_arg reserve_args[] = {key_arg,
                              {.name = "capacity", .type = integer},
                              {.name = "bucketsize",
                               .type = block,
                               .token = "BUCKETSIZE",
                               .flags = arg_optional,
                               .subargs = bucket_size_value},
                              {.name = "maxiterations",
                               .type = block,
                               .token = "MAXITERATIONS",
                               .flags = arg_optional,
                               .subargs = max_iterations_value},
                              expansion_block,
                              {}};

command_arg insert_args[] = {key_arg, capacity_block, nocreate_token, items_token, item_list, {}};

constexpr const char* per_item = "O(k + i), k the sub-filters, i the max iterations";
constexpr const char* lookup = "O(k), k the sub-filters";

// clang-format off
constexpr command_spec table[] = {
    {"reserve", command_family::cf, cf_reserve, "write deny-oom", "write fast", -3, inserts,
     "Creates a cuckoo filter (RedisBloom's arguments)", "O(1)", since, reserve_args},
    {"add", command_family::cf, cf_add, "write deny-oom", "write fast", 3, inserts,
     "Adds an item to a cuckoo filter, creating the filter if it does not exist", per_item,
     since, key_item},
    {"addnx", command_family::cf, cf_addnx, "write deny-oom", "write fast", 3, inserts,
     "Adds an item to a cuckoo filter unless it may be there already", per_item, since,
     key_item},
    {"insert", command_family::cf, cf_insert, "write deny-oom", "write", -4, inserts,
     "Adds items to a cuckoo filter, creating it with the given capacity if it does not exist",
     per_item, since, insert_args},
    {"insertnx", command_family::cf, cf_insertnx, "write deny-oom", "write", -4, inserts,
     "Adds items that may not be there yet to a cuckoo filter, creating it if it does not exist",
     per_item, since, insert_args},
    {"exists", command_family::cf, cf_exists, "readonly fast", "read fast", 3, reads,
     "Whether an item may be in a cuckoo filter", lookup, since, key_item},
    {"mexists", command_family::cf, cf_mexists, "readonly fast", "read fast", -3, reads,
     "Whether each item may be in a cuckoo filter", lookup, since, key_items},
    {"count", command_family::cf, cf_count, "readonly fast", "read fast", 3, reads,
     "How many times an item's fingerprint is in a cuckoo filter", lookup, since, key_item},
    {"del", command_family::cf, cf_del, "write fast", "write fast", 3, key_rw | key_delete,
     "Removes one copy of an item's fingerprint from a cuckoo filter", lookup, since, key_item},
    {"compact", command_family::cf, cf_compact, "write", "write", 2, updates,
     "Moves a cuckoo filter's fingerprints into older sub-filters and frees empty ones",
     "O(n), n the filter's slots", since, key_only},
    {"info", command_family::cf, cf_info, "readonly fast", "read fast", 2, reads,
     "A cuckoo filter's size, buckets, sub-filters, items, deletes and parameters", "O(1)",
     since, key_only},
    {"debug", command_family::cf, cf_debug, "readonly fast", "read fast", 2, reads,
     "A cuckoo filter's parameters in one line (RedisBloom's CF.DEBUG)", "O(1)", since,
     key_only},
    {"scandump", command_family::cf, cf_scandump, "readonly fast", "read fast", 3, reads,
     "Reads a cuckoo filter in chunks, for CF.LOADCHUNK", per_chunk, since, scandump_args},
    {"loadchunk", command_family::cf, cf_loadchunk, "write deny-oom", "write", 4, updates,
     "Restores a cuckoo filter from CF.SCANDUMP's chunks", per_chunk, since, loadchunk_args},
};
// clang-format on

}  // namespace cf_command_docs

std::span<const command_spec> cf_command_table() {
  return cf_command_docs::table;
}

}  // namespace bloomkit::redis_module
