// bloomkit redis [--layout go-zero|guava-helper --bits M ...] add NAME [KEY...] [--print-new]
//
// Inserts keys (the KEY arguments, or stdin's lines; "-" is stdin) with the pipelined
// insert_many, in batches of 4096, into a bloomkit filter or a peer's key NAME (--layout
// go-zero, guava-helper; with --funnel long each key is a signed 64-bit decimal). A peer's key
// filled from stdin is loaded over two connections at once (the parallel fill).
// Prints: added <new> new of <keys> keys (on stderr with --print-new, which prints the new keys
// on stdout: new_keys.hpp; a peer's key then takes one connection)
// Warns on stderr when the server refused to count the new keys in the filter's meta (an ACL
// user without HINCRBY): the keys are in, `inserted` is too low.
// Warns on stderr when a bloomkit filter now holds more keys than its capacity.

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include <fmt/core.h>

#include "arguments.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/redis/single_string_filter.hpp"
#include "bloomkit/redis/static_filter.hpp"
#include "bloomkit/sizing.hpp"
#include "cli_error.hpp"
#include "input.hpp"
#include "key_input.hpp"
#include "new_keys.hpp"
#include "parallel_fill.hpp"
#include "redis_context.hpp"
#include "redis_window.hpp"

namespace bloomkit::cli {

namespace {

struct redis_add_options {
  std::string name;
  std::vector<std::string> keys;
  now_option now;
  bool print_new = false;
};

// A window of the bloomkit module: the warning of a slice past its share. A grouped window's
// slices grow: when its fullest slice (BK.INFO's fullest_slice_keys) is past its share anyway.
// A window of sub-filters (an older module's key; they do not grow): when the fullest live
// slice's keys, estimated from its fill (BK.INFO's slice_fill), pass it by more than 3 standard
// errors.
void warn_if_module_window_past_share(redis_module::module_key& key) {
  const std::vector<redis_module::module_info_field> fields = key.info();
  const auto field = [&](std::string_view name) -> const redis_module::module_info_field* {
    for (const auto& f : fields) {
      if (f.name == name) return &f;
    }
    return nullptr;
  };
  const auto number = [&](std::string_view name) {
    const auto* f = field(name);
    if (f == nullptr) return 0.0;
    if (const auto* i = std::get_if<long long>(&f->value)) return static_cast<double>(*i);
    if (const auto* d = std::get_if<double>(&f->value)) return *d;
    return 0.0;
  };
  const auto* kind = field("kind");
  const auto* fill = field("slice_fill");
  const auto* kind_name = kind == nullptr ? nullptr : std::get_if<std::string>(&kind->value);
  if (kind_name == nullptr || *kind_name != "window" || fill == nullptr) return;
  const auto slices = static_cast<std::uint64_t>(number("slices"));
  const auto k = static_cast<std::uint32_t>(number("hashes"));
  const auto capacity = static_cast<std::uint64_t>(number("capacity"));
  if (slices < 1 || k < 1 || capacity < 1) return;
  // A grouped window (BK.RESERVE KIND window) grows its slices and says how full the fullest is.
  if (field("fullest_slice_keys") != nullptr) {
    const auto held = static_cast<std::uint64_t>(number("fullest_slice_keys"));
    if (held > slice_share(capacity, slices)) {
      warn_slice_past_share("redis module window " + quoted_name(key.name()), capacity, slices,
                            held, number("estimated_fpp"), number("target_fpp"));
    }
    return;
  }
  const auto m = static_cast<std::uint64_t>(number("bits")) / (slices + 1);  // a sub-filter a slot
  // slice_fill: one ratio per live slice, as text, or a double when only one is live.
  std::vector<double> ratios;
  if (const auto* d = std::get_if<double>(&fill->value)) {
    ratios.push_back(*d);
  } else if (const auto* text = std::get_if<std::string>(&fill->value)) {
    std::istringstream in(*text);
    for (double r = 0; in >> r;) ratios.push_back(r);
  }
  double fullest = 0;
  for (const double r : ratios) {
    const auto ones = static_cast<std::uint64_t>(std::llround(r * static_cast<double>(m)));
    fullest = std::max(fullest, estimate_count(m, k, ones));
  }
  if (estimate_past(static_cast<double>(m), k, fullest, slice_share(capacity, slices))) {
    warn_slice_past_share("redis module window " + quoted_name(key.name()), capacity, slices,
                          keys_held(0, fullest), number("estimated_fpp"), number("target_fpp"));
  }
}

// What follows an add, by the filter's type: a filter's own warnings, printed after the result
// line. A peer's key (redis::single_string_filter) records no capacity: nothing.
void after_add(redis::single_string_filter&) {}
void after_add(redis_module::module_key& key) {
  warn_if_module_window_past_share(key);
}
void after_add(redis::redis_window_filter& filter) {
  // Its slices do not grow: a burst past a slice's share is warned of, from the slices' bits.
  const redis::window_info i = filter.info();
  double fullest = 0;
  for (const redis::window_slice_info& s : i.slices) {
    fullest = std::max(fullest, s.estimated_count);
  }
  if (estimate_past(static_cast<double>(i.layout.total_bits()), i.layout.hashes, fullest,
                    slice_share(i.config.capacity, i.config.slices))) {
    warn_slice_past_share("redis window filter " + quoted_name(i.name), i.config.capacity,
                          i.config.slices, keys_held(0, fullest), i.estimated_fpp,
                          i.config.target_fpp);
  }
}
void after_add(redis::redis_static_filter& filter) {
  if (filter.uncounted_inserts() > 0) {
    print_warning(fmt::format(
        "filter '{}': the server refused to count {} new keys in its meta ({}): they are "
        "added, but `redis info` reports inserted too low (docs/REDIS.md, \"Permissions\")",
        filter.name(), filter.uncounted_inserts(), filter.count_refusal()));
  }
  // A delta past its capacity: info() says so (and what the FPP is now).
  for (const std::string& w : filter.info().warnings) {
    if (w.find("its delta holds") != std::string::npos) print_warning(w);
  }
}
void after_add(redis::redis_filter& filter) {
  if (filter.uncounted_inserts() > 0) {
    print_warning(fmt::format(
        "filter '{}': the server refused to count {} new keys in its meta ({}): they are "
        "added, but `redis info` reports inserted too low (docs/REDIS.md, \"Permissions\")",
        filter.name(), filter.uncounted_inserts(), filter.count_refusal()));
  }
  // Peer keys record no capacity; a bloomkit filter past its capacity gets the warning.
  if (filter.inserted() <= filter.capacity()) return;  // info() counts every shard's bits
  const redis::filter_info i = filter.info();
  warn_past_capacity("redis filter " + quoted_name(i.name),
                     keys_held(i.inserted, i.estimated_count), i.capacity, i.estimated_fpp,
                     i.target_fpp);
}

// Filter: redis::redis_filter, redis::single_string_filter (a peer's key),
// redis::redis_window_filter, redis::redis_static_filter or redis_module::module_key.
template <typename Filter>
void add_keys(Filter& filter, key_encoder& encoder, const redis_add_options& o) {
  const key_tally added =
      o.print_new ? insert_printing_new(o.keys,
                                        [&](auto batch, std::span<bool> answers) {
                                          return filter.insert_many(encoder.encode(batch), answers);
                                        })
                  : tally_keys(o.keys, [&](auto batch) {
                      return filter.insert_many(encoder.encode(batch));
                    });
  // A filter that sends its count of new keys with its next call sends the last count now.
  if constexpr (requires { filter.flush(); }) filter.flush();
  fmt::print(o.print_new ? stderr : stdout, "added {} new of {} keys\n", added.counted, added.keys);
  after_add(filter);
}

// Connections of a bulk load into a peer's key: while Redis runs one batch's BITFIELDs, the
// other connection's batch is hashed, formatted and decoded (2x the keys/s of one connection
// on a loaded 2-core machine would be the ceiling; bench/RESULTS.md measured 1.4x).
constexpr unsigned peer_load_connections = 2;

// A connection of the bulk load, with its own filter and key encoder (neither is shared
// between threads).
struct peer_connection {
  redis::client client;
  std::unique_ptr<redis::single_string_filter> filter;
  key_encoder keys;
};

// A peer's key filled from stdin (or a file redirected to it) by the parallel fill over
// peer_load_connections connections. The count of new keys is that of one serial order: each
// key's BITFIELD is atomic, so of two batches running at once, a key in both counts once.
void add_peer_keys_from_stdin(const redis_context& context, const redis_add_options& o) {
  context.check_layout_options("add");
  std::vector<input_file> inputs;
  inputs.emplace_back("-");
  std::vector<std::unique_ptr<peer_connection>> connections;
  std::vector<peer_connection*> idle;
  for (unsigned i = 0; i < peer_load_connections; ++i) {
    auto c = std::make_unique<peer_connection>(
        peer_connection{context.connect(), nullptr, context.encoder(o.name)});
    c->filter = context.open_peer(c->client, o.name);
    idle.push_back(c.get());
    connections.push_back(std::move(c));
  }
  std::mutex m;
  const key_tally added = fill_in_parallel(inputs, peer_load_connections, [&](auto batch) {
    peer_connection* c = nullptr;
    {
      const std::lock_guard lock(m);
      c = idle.back();  // as many connections as workers: never empty
      idle.pop_back();
    }
    const std::uint64_t fresh = c->filter->insert_many(c->keys.encode(batch));
    const std::lock_guard lock(m);
    idle.push_back(c);
    return fresh;
  });
  fmt::print("added {} new of {} keys\n", added.counted, added.keys);
}

void run_redis_add(const redis_context& context, const redis_add_options& o) {
  if (context.is_peer() && !o.print_new &&
      (o.keys.empty() || o.keys == std::vector<std::string>{"-"})) {
    return add_peer_keys_from_stdin(context, o);
  }
  const auto add = [&](auto& filter, key_encoder& keys) { add_keys(filter, keys, o); };
  with_any_redis_filter(context, "add", o.name, o.now, add);
}

}  // namespace

command add_redis_add_command(CLI::App& group, redis_context_ptr context) {
  auto o = std::make_shared<redis_add_options>();
  CLI::App* sub = add_redis_subcommand(group, "add", "Add keys to a filter in Redis");
  add_required_argument(*sub, "NAME", o->name, "Filter name");
  add_keys_argument(*sub, o->keys, "add");
  add_now_option(*sub, o->now);
  add_print_new_option(*sub, o->print_new);
  return {sub, "add", [context, o] { run_redis_add(*context, *o); }};
}

}  // namespace bloomkit::cli
