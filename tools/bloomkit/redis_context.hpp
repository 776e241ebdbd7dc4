#pragma once
// The `bloomkit redis ...` group: what its subcommands share (the server URL, the connection,
// the key layout) and the registration of each subcommand (redis_<name>.cpp).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/go_zero_filter.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/redis/url.hpp"
#include "commands.hpp"

namespace bloomkit::cli {

struct redis_context {
  // --url; without it, BLOOMKIT_REDIS_URL or the default (redis::settings_from_environment).
  std::optional<std::string> url;
  // --tls-ca, --tls-cert, --tls-key, --tls-server-name (for rediss://... URLs).
  redis::tls_options tls;
  // --layout native|go-zero and --bits M (go-zero keys record no size: docs/CLI.md, "Redis").
  std::string layout = "native";
  std::optional<std::uint64_t> bits;  // nullopt: not given; parsed and checked: 1 to 2^32

  // Connects to --url, BLOOMKIT_REDIS_URL or the default, with the password of the URL or of
  // REDISCLI_AUTH (throws bloomkit::error: unreachable, auth_failed, timeout, bad URL).
  redis::client connect() const {
    redis::client_options options;
    options.tls = tls;
    return redis::client::connect(redis::settings_from_environment(url).url, options);
  }
  // For subcommands that work on both layouts: --bits with --layout go-zero, nullopt with
  // native. Throws usage_error naming `command` for go-zero without --bits, or --bits without
  // go-zero.
  std::optional<std::uint64_t> go_zero_bits(std::string_view command) const;
  // For subcommands of native filters only: throws usage_error naming `command` if --layout
  // go-zero or --bits was given.
  void require_native(std::string_view command) const;
  // For subcommands that work on both layouts: checks the layout options (go_zero_bits), connects,
  // opens NAME in the chosen layout and calls fn(filter) with it.
  template <class Fn>
  void with_filter(std::string_view command, const std::string& name, Fn&& fn) const {
    const auto bits = go_zero_bits(command);
    redis::client client = connect();
    if (bits) {
      redis::go_zero_filter filter(client, name, *bits);
      fn(filter);
    } else {
      auto filter = redis::redis_filter::open(client, name);
      fn(filter);
    }
  }
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
