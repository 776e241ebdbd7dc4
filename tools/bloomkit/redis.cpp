// bloomkit redis [--url URL] [--layout native|go-zero] [--bits M] COMMAND ...
//
// Filters that live in Redis (a server or a Cluster), shared by every client that names them;
// see docs/CLI.md ("Redis") and docs/REDIS.md. Without --url: $BLOOMKIT_REDIS_URL, else
// redis://127.0.0.1:6379; a URL without a password takes it from $REDISCLI_AUTH.
// --layout go-zero --bits M works on go-zero's core/bloom keys (add, query, info only).

#include <memory>
#include <vector>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/redis/go_zero_filter.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "redis_context.hpp"

namespace bloomkit::cli {

std::optional<std::uint64_t> redis_context::go_zero_bits(std::string_view command) const {
  if (layout != "go-zero") {
    if (bits) {
      throw usage_error(fmt::format("redis {}: --bits applies only to --layout go-zero", command));
    }
    return std::nullopt;
  }
  if (!bits) {
    throw usage_error(fmt::format(
        "redis {}: --layout go-zero needs --bits M (the bits of go-zero's New(store, key, bits))",
        command));
  }
  return bits;
}

void redis_context::require_native(std::string_view command) const {
  if (layout != "native") {
    throw usage_error(fmt::format(
        "redis {} works on bloomkit's own filters only; --layout go-zero supports add, query "
        "and info",
        command));
  }
  if (bits) {
    throw usage_error(fmt::format("redis {}: --bits applies only to --layout go-zero", command));
  }
}

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
  group->add_option("--url", context->url,
                    "redis://[user:password@]host:port[/db], redis-cluster://host:port[,...] or "
                    "redis-sentinel://host:port[,...]/MASTER[/db]; rediss... for TLS "
                    "(default: $BLOOMKIT_REDIS_URL, else redis://127.0.0.1:6379; a password "
                    "here shows in `ps`: prefer $REDISCLI_AUTH)");
  group->add_option("--tls-ca", context->tls.ca_file,
                    "With rediss...: PEM file of the CA to trust (default: the system's store)");
  group->add_option("--tls-cert", context->tls.cert_file,
                    "With rediss...: client certificate (PEM) for servers that require one");
  group->add_option("--tls-key", context->tls.key_file, "With --tls-cert: its private key (PEM)");
  group->add_option("--tls-server-name", context->tls.server_name,
                    "With rediss...: the name the server's certificate must carry (default: "
                    "the host of the URL)");
  group
      ->add_option("--layout", context->layout,
                   "native (bloomkit's sharded filters) or go-zero (go-zero core/bloom keys)")
      ->check(CLI::IsMember({"native", "go-zero"}))
      ->capture_default_str();
  add_whole_number_option(
      *group, "--bits", 1, redis::go_zero_filter::max_bits,
      [context](std::uint64_t m) { context->bits = m; },
      "With --layout go-zero: the key's bits, 1 to 2^32 (required)")
      ->type_name("M");
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
