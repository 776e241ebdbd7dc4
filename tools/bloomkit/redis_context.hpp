#pragma once
// The `bloomkit redis ...` group: what its subcommands share (the server URL, the connection,
// the key layout and the peers' parameters) and the registration of each subcommand
// (redis_<name>.cpp).

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/redis/single_string_filter.hpp"
#include "bloomkit/redis/url.hpp"
#include "commands.hpp"
#include "key_encoding.hpp"
#include "redis/module_keys/key_transfer.hpp"

namespace bloomkit::cli {

struct redis_context {
  // --url; without it, BLOOMKIT_REDIS_URL or the default (redis::settings_from_environment).
  std::optional<std::string> url;
  // --tls-ca, --tls-cert, --tls-key, --tls-server-name (for rediss://... URLs).
  redis::tls_options tls;
  // --layout native|go-zero|guava-helper, and the peers' parameters --bits M, --hashes K,
  // --funnel F (peer keys record none of them: docs/CLI.md, "Redis"). nullopt: not given.
  std::string layout = "native";
  std::optional<std::uint64_t> bits;    // parsed and checked: 1 to 2^32
  std::optional<std::uint32_t> hashes;  // parsed and checked: 1 to 255
  std::optional<std::string> funnel;    // checked: string, string-twice or long
  // --key-type of --layout spark (a Spark filter's string, spark_filter.hpp): string, long or
  // binary (hex keys).
  std::optional<std::string> key_type;

  // Connects to --url, BLOOMKIT_REDIS_URL or the default, with the password of the URL or of
  // REDISCLI_AUTH, and an encrypted --tls-key's passphrase from BLOOMKIT_TLS_KEY_PASSPHRASE
  // (throws bloomkit::error: unreachable, auth_failed, timeout, bad URL, TLS options).
  redis::client connect() const {
    redis::client_options options;
    options.tls = tls;
    if (const char* passphrase = std::getenv(redis::key_passphrase_variable)) {
      options.tls.key_passphrase = passphrase;
    }
    return redis::client::connect(redis::settings_from_environment(url).url, options);
  }
  bool is_peer() const { return layout != "native"; }
  // For subcommands that work on every layout: throws usage_error naming `command` when a peer
  // layout lacks what it needs (--bits; --hashes for guava-helper) or an option belongs to
  // another layout (--bits and --hashes to the peers, --funnel to guava-helper).
  void check_layout_options(std::string_view command) const;
  // For subcommands of native filters only: throws usage_error naming `command` if a peer
  // layout or one of its options was given.
  void require_native(std::string_view command) const;
  // The peer key NAME in the chosen layout (after check_layout_options).
  std::unique_ptr<redis::single_string_filter> open_peer(redis::client& client,
                                                         const std::string& name) const;
  // How keys are fed to the filter: 64-bit decimal integers for --funnel long or --key-type
  // long, hex for --key-type binary, else as text.
  key_encoder encoder(const std::string& name) const;
  // For subcommands that work on every layout: checks the layout options, connects, opens NAME
  // in the chosen layout and calls fn(filter, encoder) with it.
  template <class Fn>
  void with_filter(std::string_view command, const std::string& name, Fn&& fn) const {
    check_layout_options(command);
    redis::client client = connect();
    key_encoder keys = encoder(name);
    if (is_peer()) {
      const auto filter = open_peer(client, name);
      fn(*filter, keys);
    } else {
      auto filter = redis::redis_filter::open(client, name);
      fn(filter, keys);
    }
  }
};
using redis_context_ptr = std::shared_ptr<const redis_context>;

// "module key, <kind>, <bits> bits, <filters> filters, <bytes> bytes": what `redis pull` and
// `redis push --module` print of a module key after "pulled A to B: ".
std::string describe_module_key(const redis_module::module_key_summary& s);

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
command add_redis_remove_command(CLI::App& group, redis_context_ptr context);
command add_redis_convert_command(CLI::App& group, redis_context_ptr context);

}  // namespace bloomkit::cli
