#pragma once
// The COMMAND DOCS pieces both command tables use (command_table.cpp for BF.* / BK.*,
// cf_command_table.cpp for CF.*): the version, the key-spec flag sets and the argument arrays
// that are alike for every family. Inline variables, so each is one object in the module.

#include <cstdint>

#include "command_info_api.hpp"

namespace bloomkit::redis_module::command_doc_parts {

inline constexpr const char* since = "0.1.0";
inline constexpr std::uint64_t reads = key_ro | key_access;
inline constexpr std::uint64_t inserts = key_rw | key_insert;
inline constexpr std::uint64_t updates = key_rw | key_update;
inline constexpr const char* per_chunk = "O(n), n the chunk's bytes";

// The values of the optional blocks below (arrays: RedisModuleCommandArg takes a plain pointer).
inline command_arg capacity_value[] = {{.name = "capacity", .type = command_arg_type::integer}, {}};
inline command_arg expansion_value[] = {{.name = "expansion", .type = command_arg_type::integer},
                                        {}};

// Entries several argument arrays share: the key, the optional CAPACITY n and EXPANSION n,
// NOCREATE, and ITEMS item [item ...].
inline constexpr command_arg key_arg{
    .name = "key", .type = command_arg_type::key, .key_spec_index = 0};
inline constexpr command_arg capacity_block{.name = "capacity",
                                            .type = command_arg_type::block,
                                            .token = "CAPACITY",
                                            .flags = arg_optional,
                                            .subargs = capacity_value};
inline constexpr command_arg expansion_block{.name = "expansion",
                                             .type = command_arg_type::block,
                                             .token = "EXPANSION",
                                             .flags = arg_optional,
                                             .subargs = expansion_value};
inline constexpr command_arg nocreate_token{.name = "nocreate",
                                            .type = command_arg_type::pure_token,
                                            .token = "NOCREATE",
                                            .flags = arg_optional};
inline constexpr command_arg items_token{
    .name = "items", .type = command_arg_type::pure_token, .token = "ITEMS"};
inline constexpr command_arg item_list{
    .name = "item", .type = command_arg_type::string, .flags = arg_multiple};

// Whole argument arrays of commands in more than one family.
inline command_arg key_item[] = {key_arg, {.name = "item", .type = command_arg_type::string}, {}};
inline command_arg key_items[] = {key_arg, item_list, {}};
inline command_arg key_only[] = {key_arg, {}};
inline command_arg scandump_args[] = {
    key_arg, {.name = "iterator", .type = command_arg_type::integer}, {}};
inline command_arg loadchunk_args[] = {key_arg,
                                       {.name = "iterator", .type = command_arg_type::integer},
                                       {.name = "data", .type = command_arg_type::string},
                                       {}};

}  // namespace bloomkit::redis_module::command_doc_parts
