#pragma once
// Window filters in Redis from the `bloomkit redis` commands (docs/CLI.md, "Window filters in
// Redis"): `redis create --window`, and add / query / info on a name whose meta says it is a
// window filter, each with --now; add and query open module keys too (with_any_redis_filter).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "bloomkit/error.hpp"
#include "bloomkit/redis/static_filter.hpp"
#include "bloomkit/redis/window_filter.hpp"
#include "cli_error.hpp"
#include "redis/module_keys/key_commands.hpp"
#include "redis/module_keys/key_transfer.hpp"
#include "redis_context.hpp"
#include "window_options.hpp"

namespace bloomkit::cli {

// --window DURATION, --slices S, --skew SECONDS and --slice-format words|bits of `redis create`.
struct redis_window_options : window_length_options {
  std::uint64_t skew = redis::redis_window_config{}.skew;
  std::string slice_format = redis::to_string(redis::redis_window_config{}.slice_format);
  CLI::Option* skew_option = nullptr;
  CLI::Option* slice_format_option = nullptr;
};
void add_redis_window_options(CLI::App& command, redis_window_options& o);

// Creates (or opens, if it exists with the same configuration) window filter `name`. A count
// (not a duration) is a usage error: Redis windows are windows of time.
// Prints: created NAME: <S> slices of <bits> bits (<bytes> bytes), <hashes> hashes, <shards>
// shards per slice
void create_redis_window(const redis_context& context, const std::string& name,
                         std::uint64_t capacity, double fpp, unsigned shard_bits,
                         const redis_window_options& o, const now_option& now);
// Throws usage_error when --slices, --skew, --slice-format or --now was given without --window
// to `redis create`.
void check_redis_window_options(const redis_window_options& o, const now_option& now);

// Opens `name` in the layout its keys hold and calls fn(filter, keys) (fn takes every filter
// type): a peer's key (--layout), a native filter, a window filter (its meta says so; --now
// applied) or a key of the bloomkit module's type (redis_module::module_key: BF.INSERT /
// BF.MEXISTS). --now on a filter that is not a client-side window is a usage error, checked
// before anything is written.
template <class Fn>
void with_any_redis_filter(const redis_context& context, std::string_view command,
                           const std::string& name, const now_option& now, Fn&& fn) {
  const auto run_window = [&](redis::client& client) {
    auto filter = redis::redis_window_filter::open(client, name);
    if (now.given()) filter.set_now(now.seconds);
    key_encoder keys = context.encoder(name);
    fn(filter, keys);
  };
  if (now.given()) {
    context.require_native(command);
    redis::client client = context.connect();
    if (!redis::redis_window_filter::is_window(client, name)) {
      if (redis_module::is_module_key(client, name)) {
        throw usage_error("--now applies only to window filters of the client-side layout; '" +
                          name + "' is a module key, whose windows age by the server's clock");
      }
      throw usage_error("--now applies only to window filters; redis filter '" + name +
                        "' is not one");
    }
    return run_window(client);
  }
  if (context.is_peer()) return context.with_filter(command, name, fn);
  context.check_layout_options(command);  // --bits, --hashes, --funnel without --layout
  redis::client client = context.connect();
  std::optional<redis::redis_filter> native;
  try {
    native.emplace(redis::redis_filter::open(client, name));
  } catch (const error& e) {
    // A native open refuses a window's meta (errc::unsupported) and finds no meta for a module
    // key (errc::not_found): open those as what they are.
    if (e.code() == errc::unsupported && redis::redis_window_filter::is_window(client, name)) {
      return run_window(client);
    }
    if (e.code() == errc::unsupported && redis::redis_static_filter::is_static(client, name)) {
      auto filter = redis::redis_static_filter::open(client, name);
      key_encoder keys = context.encoder(name);
      return fn(filter, keys);
    }
    if (e.code() == errc::not_found && redis_module::is_module_key(client, name)) {
      redis_module::module_key key(client, name);
      key_encoder keys = context.encoder(name);
      return fn(key, keys);
    }
    throw;
  }
  key_encoder keys = context.encoder(name);
  fn(*native, keys);
}

// `redis info` of a window filter: its meta, then per live slice its fill and time to live.
void print_redis_window_info(redis::redis_window_filter& filter, const std::string& url, bool json);

}  // namespace bloomkit::cli
