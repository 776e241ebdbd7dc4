// bloomkit redis rebuild NAME [INPUT...] [--allow-empty]
//
// Fills a new generation of filter NAME from the lines of the INPUT files (stdin when there are
// none; "-" is stdin), then switches every client over to it at once; the old generation
// answers until then and expires after a grace period (docs/REDIS.md). Input of no keys is an
// error that leaves the filter as it was (a failed export upstream of a pipe), unless
// --allow-empty.
// Prints: rebuilt NAME: <keys> keys read, <new> new, generation <G>, in <seconds> s

#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "input.hpp"
#include "names.hpp"
#include "parallel_fill.hpp"
#include "redis_context.hpp"

namespace bloomkit::cli {

namespace {

struct redis_rebuild_options {
  std::string name;
  std::vector<std::string> inputs;
  bool allow_empty = false;
};

void run_redis_rebuild(const redis_context& context, const redis_rebuild_options& o) {
  context.require_native("rebuild");
  const auto start = std::chrono::steady_clock::now();
  // Open every input first: a missing file fails before anything is written to Redis.
  std::vector<input_file> inputs;
  if (o.inputs.empty()) {
    inputs.emplace_back("-");
  } else {
    for (const std::string& name : o.inputs) inputs.emplace_back(name);
  }
  redis::client client = context.connect();
  auto filter = redis::redis_filter::open(client, o.name);
  std::uint64_t keys = 0;
  filter.rebuild(
      [&](const redis::key_sink& sink) {
        // One worker: the sink pipelines into the one connection while the inputs are read.
        keys = fill_in_parallel(inputs, 1, [&](auto batch) {
                 sink(batch);
                 return std::uint64_t{0};
               }).keys;
      },
      redis::rebuild_options{o.allow_empty});
  const auto info = filter.info();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("rebuilt {}: {} keys read, {} new, generation {}, in {:.3f} s\n", printable(o.name),
             keys, info.inserted, info.generation, seconds);
}

}  // namespace

command add_redis_rebuild_command(CLI::App& group, redis_context_ptr context) {
  auto o = std::make_shared<redis_rebuild_options>();
  CLI::App* sub = add_redis_subcommand(group, "rebuild",
                                       "Refill a filter in Redis from scratch, without downtime");
  add_required_argument(*sub, "NAME", o->name, "Filter name");
  add_argument(*sub, "INPUT", o->inputs,
               "Files of keys, one per line (default: stdin; '-' is stdin)");
  sub->add_flag("--allow-empty", o->allow_empty,
                "Accept input of no keys (the filter becomes empty); without it that is an error");
  return {sub, "rebuild", [context, o] { run_redis_rebuild(*context, *o); }};
}

}  // namespace bloomkit::cli
