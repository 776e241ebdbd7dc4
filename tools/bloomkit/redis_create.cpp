// bloomkit redis create NAME --capacity N --fpp P [--shard-bits B] [--kind bit|counting]
//                       [--window DURATION [--slices S] [--skew SECONDS]
//                                          [--slice-format words|bits] [--now UNIX_SECONDS]]
//
// Creates an empty filter in Redis, its shards preallocated one at a time. Creating a filter
// that exists with the same parameters succeeds (every instance of a service may run it); with
// other parameters it is an error naming what differs. --kind counting makes 4-bit counters
// (redis remove works on it; shards of 2^B bits hold 2^(B-2) counters, B >= 12).
// Prints: created NAME: <bits> bits, <bytes> bytes, <hashes> hashes, <shards> shards
//     or: created NAME: <counters> 4-bit counters, <bytes> bytes, <hashes> hashes, <shards> shards

#include <memory>
#include <string>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/redis/counting_filter.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "cli_error.hpp"
#include "redis_context.hpp"
#include "redis_window.hpp"

namespace bloomkit::cli {

namespace {

struct redis_create_options {
  std::string name;
  std::string capacity;
  double fpp = 0;
  unsigned shard_bits = redis::default_shard_bits_log2;
  std::string kind = "bit";  // --kind bit|counting
  // Required, but checked after the layout: `--layout go-zero create` needs another answer
  // than "--capacity is required".
  const CLI::Option* capacity_option = nullptr;
  const CLI::Option* fpp_option = nullptr;
  redis_window_options window;  // --window DURATION [--slices S]: a window filter
  now_option now;
};

void run_redis_create(const redis_context& context, const redis_create_options& o) {
  if (context.layout == "go-zero") {
    throw usage_error(fmt::format(
        "redis create: go-zero keys are not created beforehand (go-zero's New(store, key, bits) "
        "writes nothing; the first add creates the key): run `bloomkit redis --layout go-zero "
        "--bits M add {}`; --layout go-zero supports add, query and info",
        o.name));
  }
  if (context.layout == "guava-helper") {
    throw usage_error(fmt::format(
        "redis create: guava-helper keys are not created beforehand (the helper writes nothing "
        "before its first put, which creates the key): run `bloomkit redis --layout "
        "guava-helper --bits M --hashes K add {}`; --layout guava-helper supports add, query "
        "and info",
        o.name));
  }
  context.require_native("create");
  for (const CLI::Option* required : {o.capacity_option, o.fpp_option}) {
    if (required->count() == 0) throw usage_error(required->get_name() + " is required");
  }
  const std::uint64_t capacity = parse_count(o.capacity, "--capacity");
  validate_sizing(capacity, o.fpp);
  check_redis_window_options(o.window, o.now);
  const bool counting = o.kind == "counting";
  if (counting && o.window.given()) {
    throw usage_error(
        "redis create: --kind counting cannot be combined with --window (a window "
        "forgets by time; a counting filter by remove)");
  }
  if (counting && o.shard_bits < redis::min_shard_bits_log2 + 2) {
    throw usage_error(fmt::format(
        "redis create: --kind counting needs --shard-bits 12 or more (2^10 4-bit counters), got {}",
        o.shard_bits));
  }
  if (o.window.given()) {
    return create_redis_window(context, o.name, capacity, o.fpp, o.shard_bits, o.window, o.now);
  }
  redis::client client = context.connect();
  if (counting) {
    const auto filter =
        redis::redis_counting_filter::create(client, o.name, capacity, o.fpp, o.shard_bits);
    const redis::shard_layout& l = filter.layout();
    fmt::print("created {}: {} 4-bit counters, {} bytes, {} hashes, {} shards\n", printable(o.name),
               l.total_bits(), (l.shard_bits * 4 + 7) / 8 * l.shard_count, l.hashes, l.shard_count);
    return;
  }
  const auto filter = redis::redis_filter::create(client, o.name, capacity, o.fpp, o.shard_bits);
  const redis::shard_layout& l = filter.layout();
  fmt::print("created {}: {} bits, {} bytes, {} hashes, {} shards\n", printable(o.name),
             l.total_bits(), l.shard_bytes() * l.shard_count, l.hashes, l.shard_count);
}

}  // namespace

command add_redis_create_command(CLI::App& group, redis_context_ptr context) {
  auto o = std::make_shared<redis_create_options>();
  CLI::App* sub = add_redis_subcommand(group, "create", "Create an empty filter in Redis");
  add_required_argument(*sub, "NAME", o->name,
                        "Filter name (its keys are NAME:meta, NAME:<gen>:<shard>)");
  o->capacity_option = add_capacity_option(*sub, o->capacity);
  o->fpp_option = add_fpp_option(*sub, o->fpp);
  add_whole_number_option(*sub, "--shard-bits", o->shard_bits, redis::min_shard_bits_log2,
                          redis::max_shard_bits_log2,
                          "Shards of at most 2^B bits (10..32, default 27 = 16 MiB)")
      ->type_name("B");
  sub->add_option("--kind", o->kind,
                  "bit (a Bloom filter) or counting (4-bit counters: `redis remove` works)")
      ->check(CLI::IsMember({"bit", "counting"}))
      ->capture_default_str();
  add_redis_window_options(*sub, o->window);
  add_now_option(*sub, o->now);
  return {sub, "create", [context, o] { run_redis_create(*context, *o); }};
}

}  // namespace bloomkit::cli
