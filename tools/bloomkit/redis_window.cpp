#include "redis_window.hpp"

#include <string>

#include <fmt/core.h>

#include "arguments.hpp"
#include "json.hpp"
#include "names.hpp"

namespace bloomkit::cli {

void add_redis_window_options(CLI::App& command, redis_window_options& o) {
  add_window_length_options(command, o,
                            "A time-window filter: forget keys older than DURATION (90s, 15m, "
                            "24h, 7d); see docs/REDIS.md",
                            "DURATION", "With --window: slices per window (default 8)");
  o.skew_option =
      add_whole_number_option(command, "--skew", o.skew, std::uint64_t{0},
                              redis::redis_window_filter::max_skew,
                              "With --window: the most the clients' clocks differ by, in seconds "
                              "(default 10; slices live that much longer)")
          ->type_name("SECONDS");
  o.slice_format_option =
      command
          .add_option("--slice-format", o.slice_format,
                      "With --window: words (a key's bits in one 64-bit word per slice; the "
                      "default) or bits (format 1, for clients of bloomkit before words)")
          ->check(CLI::IsMember({"words", "bits"}))
          ->capture_default_str();
}

void check_redis_window_options(const redis_window_options& o, const now_option& now) {
  if (o.given()) return;
  for (const CLI::Option* option : {o.slices_option, o.skew_option, o.slice_format_option}) {
    if (option != nullptr && option->count() > 0) {
      throw usage_error("redis create: " + option->get_name() + " applies only with --window");
    }
  }
  if (now.given()) throw usage_error("redis create: --now applies only with --window");
}

void create_redis_window(const redis_context& context, const std::string& name,
                         std::uint64_t capacity, double fpp, unsigned shard_bits,
                         const redis_window_options& o, const now_option& now) {
  const window_length w = parse_window(o.window, "--window");
  if (w.unit != window_unit::seconds) {
    throw usage_error(fmt::format(
        "--window: '{}' is a count of inserts; a window filter in Redis is a window of time "
        "(90s, 15m, 24h, 7d): its clients agree on the current slice from their clocks alone",
        o.window));
  }
  redis::redis_window_config config;
  config.capacity = capacity;
  config.target_fpp = fpp;
  config.window = w.length;
  config.slices = o.slices;
  config.skew = o.skew;
  config.slice_format = redis::window_slice_format_named(o.slice_format);
  config.shard_bits = shard_bits;
  redis::client client = context.connect();
  auto filter =
      as_usage_error([&] { return redis::redis_window_filter::create(client, name, config); });
  if (now.given()) filter.set_now(now.seconds);
  const redis::shard_layout& l = filter.layout();
  fmt::print("created {}: {} slices of {} bits ({} bytes), {} hashes, {} shards per slice\n",
             printable(name), config.slices, l.total_bits(), l.shard_bytes() * l.shard_count,
             l.hashes, l.shard_count);
}

void print_redis_window_info(redis::redis_window_filter& filter, const std::string& url,
                             bool json) {
  report r;
  redis::report_info(filter.info(), url, r);
  fmt::print("{}", json ? r.json() : r.text());
}

}  // namespace bloomkit::cli
