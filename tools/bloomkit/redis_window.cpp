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
}

void check_redis_window_options(const redis_window_options& o, const now_option& now) {
  if (o.given()) return;
  if (o.slices_option != nullptr && o.slices_option->count() > 0) {
    throw usage_error("redis create: --slices applies only with --window");
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
  const redis::window_info i = filter.info();
  std::string fills;
  std::string ttls;
  for (const redis::window_slice_info& s : i.slices) {
    if (!fills.empty()) fills += ' ', ttls += ' ';
    fills += fmt::format("{:.6f}", s.fill_ratio);
    // Like Redis's TTL: whole seconds (rounded up); -2 for a slice that does not exist.
    ttls += std::to_string(s.ttl_ms < 0 ? s.ttl_ms : (s.ttl_ms + 999) / 1000);
  }
  report r;
  r.add("name", i.name)
      .add("url", url)
      .add("kind", "window")
      .add("hash_scheme", to_string(redis::sharded_scheme))
      .add("window", i.config.window)
      .add("slices", i.config.slices)
      .add("skew", i.config.skew)
      .add("bits_per_slice", i.layout.total_bits())
      .add("shards_per_slice", i.layout.shard_count)
      .add("bits_per_shard", i.layout.shard_bits)
      .add("hashes", i.layout.hashes)
      .add("capacity", i.config.capacity)
      .add("target_fpp", i.config.target_fpp)
      .add("created", static_cast<std::uint64_t>(i.created))
      .add("now", i.now)
      .add("current_slice", i.current_slice)
      .add("live_slices", static_cast<std::uint64_t>(i.slices.size()))
      .add("estimated_count", i.estimated_count)
      .add("fill_ratio", i.fill_ratio)
      .add("estimated_fpp", i.estimated_fpp)
      .add("slice_fill", fills)
      .add("slice_ttl", ttls);
  fmt::print("{}", json ? r.json() : r.text());
}

}  // namespace bloomkit::cli
