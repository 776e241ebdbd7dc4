// bloomkit redis [--layout go-zero --bits M] add NAME [KEY...]
//
// Inserts keys (the KEY arguments, or stdin's lines; "-" is stdin) with the pipelined
// insert_many, in batches of 4096, into a bloomkit filter or (--layout go-zero) go-zero's key
// NAME.
// Prints: added <new> new of <keys> keys
// Warns on stderr when the server refused to count the new keys in the filter's meta (an ACL
// user without HINCRBY): the keys are in, `inserted` is too low.
// Warns on stderr when a bloomkit filter now holds more keys than its capacity.

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/core.h>

#include "bloomkit/redis/go_zero_filter.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "cli_error.hpp"
#include "key_input.hpp"
#include "redis_context.hpp"
#include "redis_window.hpp"

namespace bloomkit::cli {

namespace {

struct redis_add_options {
  std::string name;
  std::vector<std::string> keys;
  now_option now;
};

// Filter: redis::redis_filter, redis::go_zero_filter or redis::redis_window_filter.
template <typename Filter>
void add_keys(Filter& filter, const redis_add_options& o) {
  const key_tally added = tally_keys(o.keys, [&](auto batch) { return filter.insert_many(batch); });
  if constexpr (std::is_same_v<Filter, redis::redis_filter>) filter.flush();  // the last count
  fmt::print("added {} new of {} keys\n", added.counted, added.keys);
  if constexpr (std::is_same_v<Filter, redis::redis_filter>) {
    if (filter.uncounted_inserts() > 0) {
      print_warning(fmt::format(
          "filter '{}': the server refused to count {} new keys in its meta ({}): they are "
          "added, but `redis info` reports inserted too low (docs/REDIS.md, \"Permissions\")",
          filter.name(), filter.uncounted_inserts(), filter.count_refusal()));
    }
    // go-zero keys record no capacity; a bloomkit filter past its capacity gets the warning.
    if (filter.inserted() <= filter.capacity()) return;  // info() counts every shard's bits
    const redis::filter_info i = filter.info();
    warn_past_capacity("redis filter " + quoted_name(i.name),
                       keys_held(i.inserted, i.estimated_count), i.capacity, i.estimated_fpp,
                       i.target_fpp);
  }
}

void run_redis_add(const redis_context& context, const redis_add_options& o) {
  const auto add = [&](auto& filter) { add_keys(filter, o); };
  with_filter_or_window(context, "add", o.name, o.now, add, add);
}

}  // namespace

command add_redis_add_command(CLI::App& group, redis_context_ptr context) {
  auto o = std::make_shared<redis_add_options>();
  CLI::App* sub = add_redis_subcommand(group, "add", "Add keys to a filter in Redis");
  sub->add_option("NAME", o->name, "Filter name")->type_name("")->required();
  sub->add_option("KEY", o->keys, "Keys to add (default: lines of stdin; '-' means stdin)")
      ->type_name("");
  add_now_option(*sub, o->now);
  return {sub, "add", [context, o] { run_redis_add(*context, *o); }};
}

}  // namespace bloomkit::cli
