// bloomkit redis [--url URL] [--layout native|go-zero|guava-helper|spark] [--bits M] [--hashes K]
//                [--funnel string|string-twice|long] [--key-type string|long|binary] COMMAND ...
//
// Filters that live in Redis (a server or a Cluster), shared by every client that names them;
// see docs/CLI.md ("Redis") and docs/REDIS.md. Without --url: $BLOOMKIT_REDIS_URL, else
// redis://127.0.0.1:6379; a URL without a password takes it from $REDISCLI_AUTH.
// --layout go-zero --bits M [--hashes K] works on go-zero's core/bloom keys, --layout
// guava-helper --bits M --hashes K [--funnel F] on the Guava-based SETBIT helper's keys, --layout
// spark [--key-type T] on a Spark filter's string that `redis push` made (add, query, info only).

#include <memory>
#include <vector>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/compat/guava_helper.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/redis/go_zero_filter.hpp"
#include "bloomkit/redis/guava_helper_filter.hpp"
#include "bloomkit/redis/spark_filter.hpp"
#include "cli_error.hpp"
#include "commands.hpp"
#include "names.hpp"
#include "redis_context.hpp"

namespace bloomkit::cli {

namespace {

constexpr const char* peer_layouts = "--layout go-zero or guava-helper";

}  // namespace

void redis_context::check_layout_options(std::string_view command) const {
  if (key_type && layout != "spark") {
    throw usage_error(fmt::format("redis {}: --key-type applies only to --layout spark", command));
  }
  if (layout == "spark" && (bits || hashes)) {
    throw usage_error(fmt::format(
        "redis {}: --layout spark takes no --bits or --hashes (the key's header holds them)",
        command));
  }
  if (!is_peer()) {
    if (bits)
      throw usage_error(fmt::format("redis {}: --bits applies only to {}", command, peer_layouts));
    if (hashes) {
      throw usage_error(
          fmt::format("redis {}: --hashes applies only to {}", command, peer_layouts));
    }
  }
  if (funnel && layout != "guava-helper") {
    throw usage_error(
        fmt::format("redis {}: --funnel applies only to --layout guava-helper", command));
  }
  if (layout == "go-zero" && !bits) {
    throw usage_error(fmt::format(
        "redis {}: --layout go-zero needs --bits M (the bits of go-zero's New(store, key, bits))",
        command));
  }
  if (layout == "guava-helper") {
    if (!bits || !hashes) {
      throw usage_error(fmt::format(
          "redis {}: --layout guava-helper needs --bits M and --hashes K (the helper's bitSize "
          "and numHashFunctions; `bloomkit size --layout guava-helper --capacity N --fpp P` "
          "computes them from its expectedInsertions and fpp)",
          command));
    }
    if (*bits > guava_helper::max_bits) {
      throw usage_error(fmt::format(
          "redis {}: --layout guava-helper takes --bits 1 to {} (the helper's bitSize is a Java "
          "int; got {})",
          command, guava_helper::max_bits, *bits));
    }
  }
}

void redis_context::require_native(std::string_view command) const {
  if (is_peer()) {
    throw usage_error(fmt::format(
        "redis {} works on bloomkit's own filters only; --layout {} supports add, query and info",
        command, layout));
  }
  check_layout_options(command);
}

std::unique_ptr<redis::single_string_filter> redis_context::open_peer(
    redis::client& client, const std::string& name) const {
  if (layout == "spark")
    return std::make_unique<redis::spark_filter>(redis::spark_filter::open(client, name));
  if (layout == "go-zero") {
    redis::go_zero_options options;
    options.hashes = hashes.value_or(go_zero::hashes);
    return std::make_unique<redis::go_zero_filter>(client, name, *bits, options);
  }
  redis::guava_helper_options options;
  options.funnel = *guava_helper::parse_funnel(funnel.value_or("string"));
  return std::make_unique<redis::guava_helper_filter>(client, name, *bits, *hashes, options);
}

key_encoder redis_context::encoder(const std::string& name) const {
  if (key_type) {
    const key_input input = *key_type == "long"     ? key_input::int64
                            : *key_type == "binary" ? key_input::hex
                                                    : key_input::bytes;
    return key_encoder(input, fmt::format("spark filter key {}", cli::quoted(name)));
  }
  if (funnel == "long") {
    return key_encoder(key_type::int64,
                       fmt::format("guava-helper key {} with --funnel long", cli::quoted(name)));
  }
  return key_encoder(key_type::string, cli::quoted(name));
}

std::string describe_module_key(const redis_module::module_key_summary& s) {
  return fmt::format("{}, {}, {} bits, {} filters, {} bytes",
                     s.redisbloom_type ? "RedisBloom key" : "module key", s.kind, s.bits, s.filters,
                     s.bytes);
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
                   "native (bloomkit's sharded filters), go-zero (go-zero core/bloom keys), "
                   "guava-helper (the Guava-based SETBIT helper's keys) or spark (a Spark "
                   "filter's writeTo bytes, made by `redis push` of a Spark file)")
      ->check(CLI::IsMember({"native", "go-zero", "guava-helper", "spark"}))
      ->capture_default_str();
  add_whole_number_option(
      *group, "--bits", 1, redis::go_zero_filter::max_bits,
      [context](std::uint64_t m) { context->bits = m; },
      "With --layout go-zero or guava-helper: the key's bits, 1 to 2^32 (guava-helper: to "
      "2^31 - 1) (required)")
      ->type_name("M");
  add_whole_number_option(
      *group, "--hashes", 1, guava_helper::max_hashes,
      [context](std::uint64_t k) { context->hashes = static_cast<std::uint32_t>(k); },
      "With --layout guava-helper (required) or go-zero (default 14): the hashes per key, 1 to "
      "255")
      ->type_name("K");
  group
      ->add_option_function<std::string>(
          "--funnel", [context](const std::string& f) { context->funnel = f; },
          "With --layout guava-helper: what the helper's Funnel feeds murmur3_128: string "
          "(putString UTF-8, the default), string-twice (putString twice) or long (putLong; "
          "keys are signed 64-bit decimals)")
      ->check(CLI::IsMember({"string", "string-twice", "long"}))
      ->type_name("F");
  group
      ->add_option_function<std::string>(
          "--key-type", [context](const std::string& t) { context->key_type = t; },
          "With --layout spark: how keys are hashed: string (putString, the default), long "
          "(putLong; signed 64-bit decimals) or binary (putBinary; hex)")
      ->check(CLI::IsMember({"string", "long", "binary"}))
      ->type_name("TYPE");
  std::vector<command> commands = {
      add_redis_create_command(*group, context),  add_redis_add_command(*group, context),
      add_redis_query_command(*group, context),   add_redis_info_command(*group, context),
      add_redis_push_command(*group, context),    add_redis_pull_command(*group, context),
      add_redis_rebuild_command(*group, context), add_redis_expire_command(*group, context),
      add_redis_drop_command(*group, context),    add_redis_remove_command(*group, context),
      add_redis_convert_command(*group, context),
  };
  for (command& c : commands) c.path = "redis " + c.path;
  return commands;
}

}  // namespace bloomkit::cli
