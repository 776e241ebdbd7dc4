// bloomkit redis pull NAME FILE
//
// Writes filter NAME to a filter file (atomically, like every file bloomkit writes): a 1-shard
// filter as a native classic file (`bloomkit query` and `info` work on it), a sharded one in
// the redis-sharded-xxh3 scheme (for `redis push`; docs/REDIS.md).
// Prints: pulled NAME to FILE: <bits> bits, <hashes> hashes, <shards> shards
// A static filter: its tables as a static filter file (a delta that holds keys is an error).
// Prints: pulled NAME to FILE: static, <b>-bit fingerprints, generation <G>
// A key NAME of the Redis module's type (BF.RESERVE, BK.RESERVE) is read with BF.SCANDUMP and
// written as a file of its kind (key_transfer.hpp), a key of RedisBloom's type (MBbloom--) as a
// file of kind redisbloom. Prints:
//   pulled NAME to FILE: module key, <kind>, <bits> bits, <filters> filters, <bytes> bytes
//   pulled NAME to FILE: RedisBloom key, redisbloom, <bits> bits, <filters> filters, <bytes> bytes

#include <memory>
#include <string>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/redis/static_filter.hpp"
#include "names.hpp"
#include "output_file.hpp"
#include "redis/module_keys/key_transfer.hpp"
#include "redis_context.hpp"

namespace bloomkit::cli {

namespace {

struct redis_pull_options {
  std::string name;
  std::string file;
};

void run_redis_pull(const redis_context& context, const redis_pull_options& o) {
  context.require_native("pull");
  redis::client client = context.connect();
  if (const auto type = redis_module::module_key_type(client, o.name)) {
    output_file out(o.file);
    const redis_module::module_key_summary s =
        redis_module::pull_module_key(client, o.name, o.file, *type);
    out.commit(fmt::format("pulled {} to {}: {}\n", printable(o.name), printable(o.file),
                           describe_module_key(s)));
    return;
  }
  if (redis::redis_static_filter::is_static(client, o.name)) {
    auto filter = redis::redis_static_filter::open(client, o.name);
    output_file out(o.file);
    filter.pull(o.file);
    out.commit(fmt::format("pulled {} to {}: static, {}-bit fingerprints, generation {}\n",
                           printable(o.name), printable(o.file), filter.fingerprint_bits(),
                           filter.generation()));
    return;
  }
  auto filter = redis::redis_filter::open(client, o.name);
  output_file out(o.file);
  filter.pull(o.file);
  const redis::shard_layout& l = filter.layout();
  out.commit(fmt::format("pulled {} to {}: {} bits, {} hashes, {} shards\n", printable(o.name),
                         printable(o.file), l.total_bits(), l.hashes, l.shard_count));
}

}  // namespace

command add_redis_pull_command(CLI::App& group, redis_context_ptr context) {
  auto o = std::make_shared<redis_pull_options>();
  CLI::App* sub = add_redis_subcommand(group, "pull", "Copy a filter in Redis to a file");
  add_required_argument(*sub, "NAME", o->name, "Filter name");
  add_required_argument(*sub, "FILE", o->file, "Filter file to write (replaced if it exists)");
  return {sub, "pull", [context, o] { run_redis_pull(*context, *o); }};
}

}  // namespace bloomkit::cli
