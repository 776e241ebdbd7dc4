// bloomkit redis rebuild NAME [INPUT...] [--allow-empty]
//                     [--kind native|static] [--fpp P] [--delta-capacity N] [--shard-bits B]
//
// Fills a new generation of filter NAME from the lines of the INPUT files (stdin when there are
// none; "-" is stdin), then switches every client over to it at once; the old generation
// answers until then and expires after a grace period (docs/REDIS.md). Input of no keys is an
// error that leaves the filter as it was (a failed export upstream of a pipe), unless
// --allow-empty.
// A static filter (--kind static, or a NAME that is one) is built here from the input and
// stored as the new generation, with a delta for --delta-capacity keys added until the next
// rebuild (docs/REDIS.md, "Static filters"); NAME is created when it does not exist (--fpp is
// then required). --fpp, --delta-capacity and --shard-bits default to the filter's own.
// Prints: rebuilt NAME: <keys> keys read, <new> new, generation <G>, in <seconds> s
//     or: rebuilt NAME: <keys> keys read, <distinct> distinct, generation <G>, static,
//         <b>-bit fingerprints, <bits per key> bits per key, delta capacity <N>, in <seconds> s

#include <unistd.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/redis/static_filter.hpp"
#include "cli_error.hpp"
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
  std::string kind;  // "" (the filter's own), native, static
  double fpp = 0;
  std::optional<std::uint64_t> delta_capacity;
  unsigned shard_bits = redis::default_shard_bits_log2;
  const CLI::Option* fpp_option = nullptr;
  const CLI::Option* shard_bits_option = nullptr;
};

// A source over the inputs: one worker, the sink pipelining into the one connection while the
// inputs are read; `keys` counts what it read.
redis::key_source input_source(std::vector<input_file>& inputs, std::uint64_t& keys) {
  return [&inputs, &keys](const redis::key_sink& sink) {
    keys = fill_in_parallel(inputs, 1, [&](auto batch) {
             sink(batch);
             return std::uint64_t{0};
           }).keys;
  };
}

void run_static_rebuild(redis::client& client, std::vector<input_file>& inputs,
                        const redis_rebuild_options& o,
                        std::chrono::steady_clock::time_point start) {
  redis::static_rebuild_options so;
  if (o.fpp_option->count() > 0) {
    validate_fpp_option(o.fpp);
    so.fpp = o.fpp;
  }
  so.delta_capacity = o.delta_capacity;
  so.shard_bits = o.shard_bits;
  so.allow_empty = o.allow_empty;
  std::uint64_t keys = 0;
  auto filter = redis::redis_static_filter::rebuild(client, o.name, input_source(inputs, keys), so);
  const redis::static_info i = filter.info();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print(
      "rebuilt {}: {} keys read, {} distinct, generation {}, static, {}-bit fingerprints, {:.2f} "
      "bits per key, delta capacity {}, in {:.3f} s\n",
      printable(o.name), keys, i.keys, i.generation, i.fingerprint_bits, i.bits_per_key,
      i.delta_capacity, seconds);
}

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
  const bool is_static = o.kind == "static" ||
                         (o.kind.empty() && redis::redis_static_filter::is_static(client, o.name));
  if (is_static) return run_static_rebuild(client, inputs, o, start);
  for (const CLI::Option* option : {o.fpp_option, o.shard_bits_option}) {
    if (option->count() > 0) {
      throw usage_error("redis rebuild: " + option->get_name() +
                        " applies only to static filters (--kind static)");
    }
  }
  if (o.delta_capacity) {
    throw usage_error(
        "redis rebuild: --delta-capacity applies only to static filters (--kind static)");
  }
  auto filter = redis::redis_filter::open(client, o.name);
  std::uint64_t keys = 0;
  filter.rebuild(input_source(inputs, keys), redis::rebuild_options{o.allow_empty});
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
  sub->add_option("--kind", o->kind,
                  "static: build a static filter here and store it (creates NAME if missing); "
                  "native: a native filter (default: the filter's own kind)")
      ->check(CLI::IsMember({"native", "static"}));
  o->fpp_option = add_fpp_option(*sub, o->fpp);
  add_whole_number_option(
      *sub, "--delta-capacity", 0, std::uint64_t{1} << 40,
      [o](std::uint64_t n) { o->delta_capacity = n; },
      "With --kind static: keys the delta holds (inserts until the next rebuild); 0: none, "
      "inserts are refused (default: the filter's own, 0 for a new one)")
      ->type_name("N");
  o->shard_bits_option =
      add_whole_number_option(*sub, "--shard-bits", o->shard_bits, redis::min_shard_bits_log2,
                              redis::max_shard_bits_log2,
                              "With --kind static, for a new filter: Redis strings of at most 2^B "
                              "bits (10..32, default 27 = 16 MiB)")
          ->type_name("B");
  return {sub, "rebuild", [context, o] { run_redis_rebuild(*context, *o); }};
}

}  // namespace bloomkit::cli
