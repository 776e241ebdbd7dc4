// The module's commands and their COMMAND DOCS (command_table.hpp). Arities, key access and
// argument shapes are RedisBloom's for its commands (its docs and command info); the texts are
// bloomkit's own.

#include "command_table.hpp"

#include "command_doc_parts.hpp"
#include "commands.hpp"

namespace bloomkit::redis_module {

// A named namespace: the unity build merges anonymous ones, and `using enum` would leak.
namespace command_docs {

using enum command_arg_type;
using namespace command_doc_parts;

command_arg reserve_args[] = {
    key_arg,
    {.name = "error_rate", .type = double_value},
    {.name = "capacity", .type = integer},
    expansion_block,
    {.name = "nonscaling", .type = pure_token, .token = "NONSCALING", .flags = arg_optional},
    {}};

command_arg error_value[] = {{.name = "error", .type = double_value}, {}};
command_arg insert_args[] = {
    key_arg,
    capacity_block,
    {.name = "error",
     .type = block,
     .token = "ERROR",
     .flags = arg_optional,
     .subargs = error_value},
    expansion_block,
    nocreate_token,
    {.name = "nonscaling", .type = pure_token, .token = "NONSCALING", .flags = arg_optional},
    items_token,
    item_list,
    {}};

command_arg info_fields[] = {{.name = "capacity", .type = pure_token, .token = "CAPACITY"},
                             {.name = "size", .type = pure_token, .token = "SIZE"},
                             {.name = "filters", .type = pure_token, .token = "FILTERS"},
                             {.name = "items", .type = pure_token, .token = "ITEMS"},
                             {.name = "expansion", .type = pure_token, .token = "EXPANSION"},
                             {}};
command_arg info_args[] = {
    key_arg,
    {.name = "single_value", .type = one_of, .flags = arg_optional, .subargs = info_fields},
    {}};

command_arg kind_value[] = {{.name = "kind", .type = string}, {}};
command_arg window_value[] = {{.name = "window", .type = string}, {}};
command_arg slices_value[] = {{.name = "slices", .type = integer}, {}};
command_arg bk_reserve_args[] = {
    key_arg,
    {.name = "capacity", .type = integer},
    {.name = "fpp", .type = double_value},
    {.name = "kind", .type = block, .token = "KIND", .flags = arg_optional, .subargs = kind_value},
    expansion_block,
    {.name = "window",
     .type = block,
     .token = "WINDOW",
     .flags = arg_optional,
     .subargs = window_value},
    {.name = "slices",
     .type = block,
     .token = "SLICES",
     .flags = arg_optional,
     .subargs = slices_value},
    {}};

constexpr const char* per_key = "O(k) per item, k the number of hash functions";

// clang-format off
constexpr command_spec table[] = {
    {"reserve", command_family::bf, bf_reserve, "write deny-oom", "write fast", -4, inserts,
     "Creates a Bloom filter (RedisBloom's arguments)", "O(1)", since, reserve_args},
    {"add", command_family::both, bf_add, "write deny-oom", "write", 3, inserts,
     "Adds an item to a Bloom filter, creating the filter if it does not exist", per_key, since,
     key_item},
    {"madd", command_family::both, bf_madd, "write deny-oom", "write", -3, inserts,
     "Adds items to a Bloom filter, creating the filter if it does not exist", per_key, since,
     key_items},
    {"insert", command_family::both, bf_insert, "write deny-oom", "write", -4, inserts,
     "Adds items to a Bloom filter, creating it with the given options if it does not exist",
     per_key, since, insert_args},
    {"exists", command_family::both, bf_exists, "readonly fast", "read", 3, reads,
     "Whether an item may have been added to a Bloom filter", per_key, since, key_item},
    {"mexists", command_family::both, bf_mexists, "readonly fast", "read", -3, reads,
     "Whether each item may have been added to a Bloom filter", per_key, since, key_items},
    {"info", command_family::bf, bf_info, "readonly fast", "read fast", -2, reads,
     "A Bloom filter's capacity, size, sub-filters, items and expansion", "O(1)", since,
     info_args},
    {"card", command_family::both, bf_card, "readonly fast", "read fast", 2, reads,
     "The number of items added to a Bloom filter", "O(1)", since, key_only},
    {"scandump", command_family::both, bf_scandump, "readonly fast", "read", 3, reads,
     "Reads a Bloom filter's image in chunks, for BF.LOADCHUNK", per_chunk, since,
     scandump_args},
    {"loadchunk", command_family::both, bf_loadchunk, "write deny-oom", "write", 4, updates,
     "Restores a Bloom filter from BF.SCANDUMP's chunks", per_chunk, since, loadchunk_args},
    {"debug", command_family::bf, bf_debug, "readonly", "read", 2, reads,
     "A Bloom filter's sub-filters, one line each (RedisBloom's BF.DEBUG)", "O(n), n the sub-filters",
     since, key_only},
    {"reserve", command_family::bk, bk_reserve, "write deny-oom", "write", -4, inserts,
     "Creates a filter of any bloomkit kind (classic, blocked, counting, scalable, window)",
     "O(1)", since, bk_reserve_args},
    {"remove", command_family::bk, bk_remove, "write", "write", -3, key_rw | key_delete,
     "Removes items from a counting filter", per_key, since, key_items},
    {"info", command_family::bk, bk_info, "readonly", "read", 2, reads,
     "A filter's kind, hash scheme and figures (bloomkit info --json's fields)", "O(1)", since,
     key_only},
    {"convert", command_family::bk, bk_convert, "write", "write", 2, updates,
     "Turns a RedisBloom key (type MBbloom--) into a bloomkit key in place, keeping its bits",
     "O(n), n the filter's bytes", since, key_only},
};
// clang-format on

}  // namespace command_docs

std::span<const command_spec> command_table() {
  return command_docs::table;
}

}  // namespace bloomkit::redis_module
