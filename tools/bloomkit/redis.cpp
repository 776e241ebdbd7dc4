// bloomkit redis [--url URL] COMMAND ...
//
// Filters that live in Redis (a server or a Cluster), shared by every client that names them;
// see docs/CLI.md ("Redis") and docs/REDIS.md. --url defaults to redis://127.0.0.1:6379.

#include <memory>
#include <vector>

#include "commands.hpp"
#include "redis_context.hpp"

namespace bloomkit::cli {

CLI::App* add_redis_subcommand(CLI::App& group, const std::string& name,
                               const std::string& description) {
  CLI::App* sub = group.add_subcommand(name, description);
  sub->fallthrough();  // `bloomkit redis query NAME --url URL` works too
  return sub;
}

std::vector<command> add_redis_commands(CLI::App& app) {
  auto context = std::make_shared<redis_context>();
  CLI::App* group = app.add_subcommand("redis", "Filters in Redis or a Redis Cluster");
  group->require_subcommand(1);
  group
      ->add_option("--url", context->url,
                   "redis://[user:password@]host:port[/db] or redis-cluster://host:port[,...]")
      ->capture_default_str();
  std::vector<command> commands = {
      add_redis_create_command(*group, context),  add_redis_add_command(*group, context),
      add_redis_query_command(*group, context),   add_redis_info_command(*group, context),
      add_redis_push_command(*group, context),    add_redis_pull_command(*group, context),
      add_redis_rebuild_command(*group, context), add_redis_expire_command(*group, context),
      add_redis_drop_command(*group, context),
  };
  for (command& c : commands) c.path = "redis " + c.path;
  return commands;
}

}  // namespace bloomkit::cli
