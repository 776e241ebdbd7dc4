// bloomkit redis drop NAME
//
// Deletes a filter: its meta first (every client sees "does not exist" at once), then its
// shards (UNLINK: freed in the background), and every other key of the name's shapes on every
// master (SCAN): the orphans of an interrupted create or rebuild, with or without a meta. A key of
// the bloomkit module's type (and no such keys) is unlinked.
// Prints: dropped NAME

#include <memory>
#include <string>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "names.hpp"
#include "redis/module_keys/key_commands.hpp"
#include "redis/module_keys/key_transfer.hpp"
#include "redis_context.hpp"

namespace bloomkit::cli {

namespace {

void run_redis_drop(const redis_context& context, const std::string& name) {
  context.require_native("drop");
  redis::client client = context.connect();
  try {
    redis::redis_filter::drop(client, name);
  } catch (const error& e) {
    if (e.code() != errc::not_found || !redis_module::is_module_key(client, name)) throw;
    redis_module::module_key(client, name).drop();
  }
  fmt::print("dropped {}\n", printable(name));
}

}  // namespace

command add_redis_drop_command(CLI::App& group, redis_context_ptr context) {
  auto name = std::make_shared<std::string>();
  CLI::App* sub = add_redis_subcommand(group, "drop", "Delete a filter from Redis");
  add_required_argument(*sub, "NAME", *name, "Filter name");
  return {sub, "drop", [context, name] { run_redis_drop(*context, *name); }};
}

}  // namespace bloomkit::cli
