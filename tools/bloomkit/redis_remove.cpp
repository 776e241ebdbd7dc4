// bloomkit redis remove NAME [KEY...]
//
// Removes keys (the KEY arguments, or stdin's lines; "-" is stdin) from a counting filter in
// Redis with the pipelined remove_many (one script per key, in batches of 4096). A key that is
// definitely absent is left alone; a saturated counter is never decremented (docs/REDIS.md,
// "Counting filters"). A bit filter cannot remove: an error naming it.
// Prints: removed <removed> of <keys> keys

#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/redis/counting_filter.hpp"
#include "key_input.hpp"
#include "redis_context.hpp"

namespace bloomkit::cli {

namespace {

struct redis_remove_options {
  std::string name;
  std::vector<std::string> keys;
};

void run_redis_remove(const redis_context& context, const redis_remove_options& o) {
  context.require_native("remove");
  redis::client client = context.connect();
  auto filter = redis::redis_counting_filter::open(client, o.name);
  key_encoder encoder = context.encoder(o.name);
  const key_tally removed =
      tally_keys(o.keys, [&](auto batch) { return filter.remove_many(encoder.encode(batch)); });
  filter.flush();  // the count of removed keys
  fmt::print("removed {} of {} keys\n", removed.counted, removed.keys);
}

}  // namespace

command add_redis_remove_command(CLI::App& group, redis_context_ptr context) {
  auto o = std::make_shared<redis_remove_options>();
  CLI::App* sub =
      add_redis_subcommand(group, "remove", "Remove keys from a counting filter in Redis");
  add_required_argument(*sub, "NAME", o->name, "Filter name (a counting filter)");
  add_keys_argument(*sub, o->keys, "remove");
  return {sub, "remove", [context, o] { run_redis_remove(*context, *o); }};
}

}  // namespace bloomkit::cli
