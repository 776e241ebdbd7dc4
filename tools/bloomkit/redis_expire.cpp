// bloomkit redis expire NAME SECONDS
//
// Sets a time to live on every key of the filter: its meta and all its shards (a key of the
// bloomkit module's type: that one key).
// Prints: expire NAME: <keys> keys expire in <SECONDS> s

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/redis/static_filter.hpp"
#include "cli_error.hpp"
#include "redis/module_keys/key_commands.hpp"
#include "redis/module_keys/key_transfer.hpp"
#include "redis_context.hpp"

namespace bloomkit::cli {

namespace {

struct redis_expire_options {
  std::string name;
  std::string seconds;
};

void run_redis_expire(const redis_context& context, const redis_expire_options& o) {
  context.require_native("expire");
  const std::uint64_t seconds = parse_count(o.seconds, "SECONDS", 1, std::uint64_t{1} << 40);
  redis::client client = context.connect();
  if (redis::redis_static_filter::is_static(client, o.name)) {
    auto filter = redis::redis_static_filter::open(client, o.name);
    filter.expire(std::chrono::seconds(static_cast<std::chrono::seconds::rep>(seconds)));
    fmt::print("expire {}: {} keys expire in {} s\n", printable(o.name), filter.info().strings + 1,
               seconds);
    return;
  }
  std::optional<redis::redis_filter> native;
  try {
    native.emplace(redis::redis_filter::open(client, o.name));
  } catch (const error& e) {
    if (e.code() != errc::not_found || !redis_module::is_module_key(client, o.name)) throw;
    redis_module::module_key(client, o.name).expire(seconds);
    fmt::print("expire {}: 1 keys expire in {} s\n", printable(o.name), seconds);
    return;
  }
  native->expire(std::chrono::seconds(static_cast<std::chrono::seconds::rep>(seconds)));
  fmt::print("expire {}: {} keys expire in {} s\n", printable(o.name),
             native->layout().shard_count + 1, seconds);
}

}  // namespace

command add_redis_expire_command(CLI::App& group, redis_context_ptr context) {
  auto o = std::make_shared<redis_expire_options>();
  CLI::App* sub =
      add_redis_subcommand(group, "expire", "Set a time to live on every key of a filter");
  add_required_argument(*sub, "NAME", o->name, "Filter name");
  add_required_argument(*sub, "SECONDS", o->seconds, "Time to live in seconds");
  return {sub, "expire", [context, o] { run_redis_expire(*context, *o); }};
}

}  // namespace bloomkit::cli
