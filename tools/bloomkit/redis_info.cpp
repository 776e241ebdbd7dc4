// bloomkit redis [--layout go-zero|guava-helper --bits M ...] info NAME [--json]
//
// Describes a filter in Redis: its meta (format version, hash scheme, layout, parameters,
// generation, creation time, TTL) and figures computed from its bits (BITCOUNT of every shard).
// A peer's key (go-zero, guava-helper) has no meta: its name, layout, --bits, --hashes (go-zero:
// 14 by default) and figures from BITCOUNT (bits set, estimated count, fill ratio).
// Checks every shard: a missing or short one is an error (exit 1) naming it. Warns on stderr
// about what may break the filter later: shards whose time to live differs from the meta's, a
// server maxmemory-policy that may evict its keys, a peer's key that does not exist.
// A static filter: kind static, its fingerprint bits, bits per key, the delta's fill
// (redis::report_info of static_info).
// A key of the bloomkit module's type: its name, layout `module` and BK.INFO's fields.

#include <memory>
#include <optional>
#include <string>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/redis/single_string_filter.hpp"
#include "bloomkit/redis/spark_filter.hpp"
#include "bloomkit/redis/static_filter.hpp"
#include "bloomkit/sizing.hpp"
#include "cli_error.hpp"
#include "json.hpp"
#include "redis/module_keys/key_commands.hpp"
#include "redis/module_keys/key_transfer.hpp"
#include "redis_context.hpp"
#include "redis_window.hpp"

namespace bloomkit::cli {

namespace {

struct redis_info_options {
  std::string name;
  bool json = false;
  now_option now;
};

// A peer's key has no meta: its name, layout, the given --bits and --hashes and figures from
// BITCOUNT.
void run_peer_info(const redis_context& context, redis::client& client,
                   const redis_info_options& o) {
  const auto filter = context.open_peer(client, o.name);
  const std::uint64_t set = filter->bits_set();
  report r;
  r.add("name", o.name)
      .add("url", client.describe())
      .add("layout", context.layout)
      .add("bits", filter->bits())
      .add("hashes", filter->hashes())
      .add("bits_set", set)
      .add("estimated_count", estimate_count(filter->bits(), filter->hashes(), set))
      .add("fill_ratio", static_cast<double>(set) / static_cast<double>(filter->bits()));
  // A Spark filter's header says more: its version and seed.
  if (const auto* spark = dynamic_cast<const redis::spark_filter*>(filter.get())) {
    r.add("spark_version", static_cast<std::uint64_t>(spark->version()))
        .add("seed", std::to_string(spark->seed()));
  }
  fmt::print("{}", o.json ? r.json() : r.text());
  for (const std::string& w : filter->warnings()) print_warning(w);
}

// A key of the bloomkit module's type: its name, layout `module`, then BK.INFO's fields (those of
// `bloomkit info --json` for the filter it holds).
void run_module_key_info(redis::client& client, const redis_info_options& o) {
  report r;
  r.add("name", o.name).add("url", client.describe()).add("layout", "module");
  redis_module::add_module_key_info(redis_module::module_key_info(client, o.name), r);
  fmt::print("{}", o.json ? r.json() : r.text());
}

void run_redis_info(const redis_context& context, const redis_info_options& o) {
  context.check_layout_options("info");
  if (o.now.given()) context.require_native("info");  // --now: window filters only
  redis::client client = context.connect();
  if (context.is_peer()) return run_peer_info(context, client, o);
  if (redis::redis_window_filter::is_window(client, o.name)) {
    auto window = redis::redis_window_filter::open(client, o.name);
    if (o.now.given()) window.set_now(o.now.seconds);
    return print_redis_window_info(window, client.describe(), o.json);
  }
  if (o.now.given()) {
    throw usage_error("--now applies only to window filters; redis filter '" + o.name +
                      "' is not one");
  }
  if (redis::redis_static_filter::is_static(client, o.name)) {
    auto filter = redis::redis_static_filter::open(client, o.name);
    const redis::static_info i = filter.info();
    report r;
    redis::report_info(i, client.describe(), r);
    fmt::print("{}", o.json ? r.json() : r.text());
    for (const std::string& w : i.warnings) print_warning(w);
    return;
  }
  std::optional<redis::redis_filter> native;
  try {
    native.emplace(redis::redis_filter::open(client, o.name));
  } catch (const error& e) {
    if (e.code() != errc::not_found || !redis_module::is_module_key(client, o.name)) throw;
    return run_module_key_info(client, o);
  }
  redis::redis_filter& filter = *native;
  const redis::filter_info i = filter.info();
  report r;
  redis::report_info(i, client.describe(), r);
  fmt::print("{}", o.json ? r.json() : r.text());
  for (const std::string& w : i.warnings) print_warning(w);
}

}  // namespace

command add_redis_info_command(CLI::App& group, redis_context_ptr context) {
  auto o = std::make_shared<redis_info_options>();
  CLI::App* sub = add_redis_subcommand(group, "info", "Describe a filter in Redis");
  add_required_argument(*sub, "NAME", o->name, "Filter name");
  sub->add_flag("--json", o->json, "Print one JSON object");
  add_now_option(*sub, o->now);
  return {sub, "info", [context, o] { run_redis_info(*context, *o); }};
}

}  // namespace bloomkit::cli
