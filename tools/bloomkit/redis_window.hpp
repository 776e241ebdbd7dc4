#pragma once
// Window filters in Redis from the `bloomkit redis` commands (docs/CLI.md, "Window filters in
// Redis"): `redis create --window`, and add / query / info on a name whose meta says it is a
// window filter, each with --now.

#include <cstdint>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "bloomkit/error.hpp"
#include "bloomkit/redis/window_filter.hpp"
#include "cli_error.hpp"
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

// Opens `name` as a window filter when it is one and calls window(filter, keys) with --now
// applied; else calls context.with_filter(command, name, native) (native(filter, keys)). --now on a
// filter that is not a window is a usage error, checked before anything is written.
template <class Native, class Window>
void with_filter_or_window(const redis_context& context, std::string_view command,
                           const std::string& name, const now_option& now, Native&& native,
                           Window&& window) {
  const auto run_window = [&](redis::client& client) {
    auto filter = redis::redis_window_filter::open(client, name);
    if (now.given()) filter.set_now(now.seconds);
    key_encoder keys = context.encoder(name);
    window(filter, keys);
  };
  if (now.given()) {
    context.require_native(command);
    redis::client client = context.connect();
    if (!redis::redis_window_filter::is_window(client, name)) {
      throw usage_error("--now applies only to window filters; redis filter '" + name +
                        "' is not one");
    }
    return run_window(client);
  }
  try {
    context.with_filter(command, name, native);
  } catch (const error& e) {
    // A native open refuses a window's meta (errc::unsupported): open it as a window instead.
    if (e.code() != errc::unsupported || context.layout != "native") throw;
    redis::client client = context.connect();
    if (!redis::redis_window_filter::is_window(client, name)) throw;
    run_window(client);
  }
}

// `redis info` of a window filter: its meta, then per live slice its fill and time to live.
void print_redis_window_info(redis::redis_window_filter& filter, const std::string& url, bool json);

}  // namespace bloomkit::cli
