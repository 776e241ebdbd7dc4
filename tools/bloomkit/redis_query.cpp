// bloomkit redis [--layout go-zero|guava-helper --bits M ...] query NAME [KEY...]
//                [--present | --absent | --count]
//
// Looks keys up with the pipelined contains_many, streaming stdin in batches of 4096. Output:
// exactly that of `bloomkit query` (query_output.hpp).

#include <memory>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/redis/single_string_filter.hpp"
#include "query_output.hpp"
#include "redis_context.hpp"
#include "redis_window.hpp"

namespace bloomkit::cli {

namespace {

struct redis_query_options {
  std::string name;
  std::vector<std::string> keys;
  query_mode_flags flags;
  now_option now;
};

void run_redis_query(const redis_context& context, const redis_query_options& o) {
  const auto query = [&](auto& filter, key_encoder& keys) {
    answer_queries(o.keys, o.flags.mode(), [&](auto batch, auto answers) {
      filter.contains_many(keys.encode(batch), answers);
    });
  };
  with_any_redis_filter(context, "query", o.name, o.now, query);
}

}  // namespace

command add_redis_query_command(CLI::App& group, redis_context_ptr context) {
  auto o = std::make_shared<redis_query_options>();
  CLI::App* sub = add_redis_subcommand(
      group, "query", "Look keys up: \"1<TAB>key\" maybe present, \"0<TAB>key\" definitely absent");
  add_required_argument(*sub, "NAME", o->name, "Filter name");
  add_keys_argument(*sub, o->keys, "look up");
  add_query_mode_options(*sub, o->flags);
  add_now_option(*sub, o->now);
  return {sub, "query", [context, o] { run_redis_query(*context, *o); }};
}

}  // namespace bloomkit::cli
