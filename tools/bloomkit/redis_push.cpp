// bloomkit redis push FILE NAME
//
// Creates filter NAME in Redis from a filter file: a native classic file of at most 2^32 bits
// becomes a 1-shard filter, a file written by `redis pull` of a sharded filter keeps its shards.
// NAME must not exist. `redis pull` gives back the identical file.
// Prints: pushed FILE to NAME: <bits> bits, <hashes> hashes, <shards> shards
// A static filter file (bloomkit build --kind static) becomes a static filter, with a delta of
// --delta-capacity keys (default 0: none). Prints:
//   pushed FILE to NAME: static, <b>-bit fingerprints, delta capacity <N>
// A Spark filter (Spark's writeTo file, or a file imported from one: scheme spark-v1 / spark-v2)
// becomes string NAME holding its writeTo bytes (spark_filter.hpp; `--layout spark` reads it),
// keeping Spark's hashing. Prints:
//   pushed FILE to NAME: spark-v<1|2>, <bits> bits, <hashes> hashes, seed <seed>
// With --module a file imported from Spark becomes a module key of Spark's filter instead.
// With --module: creates key NAME of the Redis module's type instead (BF.LOADCHUNK; the server
// must have loaded bloomkit_redis_module.so), from a file of a kind the module holds
// (key_transfer.hpp). Prints:
//   pushed FILE to NAME: module key, <kind>, <bits> bits, <filters> filters, <bytes> bytes

#include <memory>
#include <optional>
#include <string>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/compat/any_filter.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/redis/spark_filter.hpp"
#include "bloomkit/redis/static_filter.hpp"
#include "cli_error.hpp"
#include "names.hpp"
#include "redis/module_keys/key_transfer.hpp"
#include "redis_context.hpp"
#include "spark_file.hpp"

namespace bloomkit::cli {

namespace {

struct redis_push_options {
  std::string file;
  std::string name;
  bool module = false;
  std::optional<std::uint64_t> delta_capacity;
};

// The Spark filter of a Spark file or of a bloomkit file of Spark's schemes; none for others.
std::optional<spark::any_filter> spark_filter_of(const std::string& file) {
  if (is_spark_file(file)) {
    auto opened = open_spark_file(file, key_type::string);
    if (auto* v1 = std::get_if<spark::v1_filter>(&opened.filter)) return std::move(*v1);
    return std::get<spark::v2_filter>(std::move(opened.filter));
  }
  const hash_scheme scheme = read_header(file).scheme;
  if (scheme != hash_scheme::spark_v1 && scheme != hash_scheme::spark_v2) return std::nullopt;
  compat::any_filter f = compat::load_any(file);
  if (auto* v1 = std::get_if<spark::v1_filter>(&f)) return std::move(*v1);
  return std::get<spark::v2_filter>(std::move(f));
}

void run_redis_push(const redis_context& context, const redis_push_options& o) {
  context.require_native("push");
  if (o.module && is_spark_file(o.file)) {
    throw usage_error(
        "redis push --module: a Spark writeTo file goes into a module key from a bloomkit file: "
        "`bloomkit import FILE OUT --from spark`, then `redis push --module OUT NAME`");
  }
  if (auto spark = o.module ? std::nullopt : spark_filter_of(o.file)) {
    if (o.delta_capacity) {
      throw usage_error("redis push: --delta-capacity applies only to static filter files");
    }
    redis::client client = context.connect();
    const auto filter = redis::spark_filter::push(client, *spark, o.name);
    fmt::print("pushed {} to {}: spark-v{}, {} bits, {} hashes, seed {}\n", printable(o.file),
               printable(o.name), static_cast<int>(filter.version()), filter.bits(),
               filter.hashes(), filter.seed());
    return;
  }
  redis::client client = context.connect();
  if (o.module) {
    const redis_module::module_key_summary s =
        redis_module::push_module_key(client, o.file, o.name);
    fmt::print("pushed {} to {}: {}\n", printable(o.file), printable(o.name),
               describe_module_key(s));
    return;
  }
  if (redis::redis_static_filter::is_static_file(o.file)) {
    const auto filter =
        redis::redis_static_filter::push(client, o.file, o.name, o.delta_capacity.value_or(0));
    fmt::print("pushed {} to {}: static, {}-bit fingerprints, delta capacity {}\n",
               printable(o.file), printable(o.name), filter.fingerprint_bits(),
               filter.delta_capacity());
    return;
  }
  if (o.delta_capacity) {
    throw usage_error("redis push: --delta-capacity applies only to static filter files");
  }
  const auto filter = redis::redis_filter::push(client, o.file, o.name);
  const redis::shard_layout& l = filter.layout();
  fmt::print("pushed {} to {}: {} bits, {} hashes, {} shards\n", printable(o.file),
             printable(o.name), l.total_bits(), l.hashes, l.shard_count);
}

}  // namespace

command add_redis_push_command(CLI::App& group, redis_context_ptr context) {
  auto o = std::make_shared<redis_push_options>();
  CLI::App* sub = add_redis_subcommand(group, "push", "Copy a filter file into Redis");
  add_required_argument(*sub, "FILE", o->file, "Filter file to read");
  add_required_argument(*sub, "NAME", o->name, "Filter name to create");
  sub->add_flag("--module", o->module,
                "Create a key of the Redis module's type (BF.* / BK.* commands; the server must "
                "load bloomkit_redis_module.so) instead of bloomkit's sharded layout");
  add_whole_number_option(
      *sub, "--delta-capacity", 0, std::uint64_t{1} << 40,
      [o](std::uint64_t n) { o->delta_capacity = n; },
      "With a static filter file: keys its delta holds (inserts until a rebuild; default 0: "
      "none)")
      ->type_name("N");
  return {sub, "push", [context, o] { run_redis_push(*context, *o); }};
}

}  // namespace bloomkit::cli
