// bloomkit redis push FILE NAME
//
// Creates filter NAME in Redis from a filter file: a native classic file of at most 2^32 bits
// becomes a 1-shard filter, a file written by `redis pull` of a sharded filter keeps its shards.
// NAME must not exist. `redis pull` gives back the identical file.
// Prints: pushed FILE to NAME: <bits> bits, <hashes> hashes, <shards> shards
// With --module: creates key NAME of the Redis module's type instead (BF.LOADCHUNK; the server
// must have loaded bloomkit_redis_module.so), from a file of a kind the module holds
// (key_transfer.hpp). Prints:
//   pushed FILE to NAME: module key, <kind>, <bits> bits, <filters> filters, <bytes> bytes

#include <memory>
#include <string>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "names.hpp"
#include "redis/module_keys/key_transfer.hpp"
#include "redis_context.hpp"

namespace bloomkit::cli {

namespace {

struct redis_push_options {
  std::string file;
  std::string name;
  bool module = false;
};

void run_redis_push(const redis_context& context, const redis_push_options& o) {
  context.require_native("push");
  redis::client client = context.connect();
  if (o.module) {
    const redis_module::module_key_summary s =
        redis_module::push_module_key(client, o.file, o.name);
    fmt::print("pushed {} to {}: {}\n", printable(o.file), printable(o.name),
               describe_module_key(s));
    return;
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
  return {sub, "push", [context, o] { run_redis_push(*context, *o); }};
}

}  // namespace bloomkit::cli
