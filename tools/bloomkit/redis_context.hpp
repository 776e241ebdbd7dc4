#pragma once
// The `bloomkit redis ...` group: what its subcommands share (the server URL, the connection)
// and the registration of each subcommand (redis_<name>.cpp).

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "bloomkit/redis/client.hpp"
#include "commands.hpp"

namespace bloomkit::cli {

inline constexpr const char* default_redis_url = "redis://127.0.0.1:6379";

struct redis_context {
  std::string url = default_redis_url;
  // Connects to --url (throws bloomkit::error: unreachable, auth_failed, timeout, bad URL).
  redis::client connect() const { return redis::client::connect(url); }
};
using redis_context_ptr = std::shared_ptr<const redis_context>;

// A subcommand of the group: accepts the group's --url after its own arguments too.
CLI::App* add_redis_subcommand(CLI::App& group, const std::string& name,
                               const std::string& description);

command add_redis_create_command(CLI::App& group, redis_context_ptr context);
command add_redis_add_command(CLI::App& group, redis_context_ptr context);
command add_redis_query_command(CLI::App& group, redis_context_ptr context);
command add_redis_info_command(CLI::App& group, redis_context_ptr context);
command add_redis_push_command(CLI::App& group, redis_context_ptr context);
command add_redis_pull_command(CLI::App& group, redis_context_ptr context);
command add_redis_rebuild_command(CLI::App& group, redis_context_ptr context);
command add_redis_expire_command(CLI::App& group, redis_context_ptr context);
command add_redis_drop_command(CLI::App& group, redis_context_ptr context);

}  // namespace bloomkit::cli
