#pragma once
// bloomkit::redis::redis_window_filter: a time-window filter (window_filter.hpp) shared through
// Redis by every client that opens it by name: "was this key inserted within the last W?".
// docs/REDIS.md, "Window filters".
//
//   auto c = bloomkit::redis::client::connect("redis://127.0.0.1:6379");
//   auto seen = bloomkit::redis::redis_window_filter::create(
//       c, "recrawl", {.capacity = 10'000'000, .target_fpp = 0.01, .window = 7 * 86400});
//   if (seen.insert(url)) fetch(url);    // not inserted by anyone within the last 7 days
//
// Keys of a window filter named N:
//   N:meta            hash: format_version (2: words; 1: bits), kind (window), hash_scheme,
//                     window, slices, skew, bits_per_shard, shard_count, hashes, capacity,
//                     target_fpp, created; word_bits (64) in format 2
//   N:<slice>:<shard> strings of bits_per_shard bits: slice e (unix time t is in slice
//                     floor(t S / W)) in shard_count shards, created by the first insert into
//                     the slice and expiring by TTL at the end of the slice plus W + 2 skew
//                     (EXPIREAT, computed from the slice alone). Format 2 (words, what create
//                     makes): a word-blocked filter of 64-bit words sized for ceil(capacity / S)
//                     keys at p / (S + 1) (sizing.hpp), a key's k bits in one word. Format 1
//                     (bits, older bloomkit): the sharded layout of a native filter of that size.
//
// No coordinator, no lock key: every client derives the current slice from its clock. An
// insert sets the key's bits in the current slice (one BITFIELD per key group) and reads the
// other live slices in the same round trip (to answer whether the key was new to the window);
// a lookup reads every live slice (one 64-bit GET per key and slice in format 2) in one round
// trip per batch. Clocks (of clients and servers)
// may differ by up to `skew` seconds: a lookup reads the slices of [now - W - skew,
// now + skew], so a key inserted within the last W by any client is found, and slices live
// until no client can need them. Keys older than W + W/S + skew are forgotten.
//
// A slice that is missing reads as empty (it was never written, or has expired): a slice lost
// otherwise (evicted under maxmemory, deleted by hand) loses its keys without an error. Use
// maxmemory-policy noeviction or volatile-* with care (docs/REDIS.md, "Eviction").
//
// A handle refers to its client; both are used by one thread at a time.

#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/redis/shard_layout.hpp"
#include "bloomkit/window_filter.hpp"

namespace bloomkit::redis {

// How a window filter's slices hold keys (docs/REDIS.md, "Window filters").
enum class window_slice_format {
  // k bits of one 64-bit word per key (meta format_version 2): a lookup reads one word per
  // live slice. What create makes.
  words,
  // The sharded bit layout of a native filter (format_version 1, what bloomkit made before
  // words): k one-bit reads per slice. Still opened and served; create makes it only when asked
  // (a fleet whose older clients read format 1 only).
  bits,
};
constexpr const char* to_string(window_slice_format f) noexcept {
  return f == window_slice_format::words ? "words" : "bits";
}
// The format named "words" or "bits" (to_string's names); another name is
// errc::invalid_argument, "slice_format 'x' is not 'words' or 'bits'".
window_slice_format window_slice_format_named(std::string_view name);

struct redis_window_config {
  std::uint64_t capacity = 0;  // keys per window: the rate at which the FPP bound holds
  double target_fpp = 0;       // p: bound on a lookup's FPP over the live slices
  std::uint64_t window = 0;    // W in seconds, slices..max_length
  std::uint32_t slices = 8;    // S, 1..255
  // The most that the clocks of clients (and servers, for TTLs) differ by, in seconds, 0..3600.
  std::uint64_t skew = 10;
  unsigned shard_bits = default_shard_bits_log2;  // slices in shards of at most 2^B bits
  // The format create makes when the filter does not exist; an existing filter of the same
  // parameters is opened in its own format (config() says which).
  window_slice_format slice_format = window_slice_format::words;
  friend bool operator==(const redis_window_config&, const redis_window_config&) = default;
};

// Bits of a word in the words format.
inline constexpr std::uint32_t redis_window_word_bits = 64;

// What `info` reports of one slice.
struct window_slice_info {
  std::uint64_t slice = 0;
  std::uint64_t bits_set = 0;  // over its shards; 0 when missing
  bool exists = false;         // some shard of it exists
  std::int64_t ttl_ms = -2;    // of its first existing shard (PTTL); -2 when none exists
  double fill_ratio = 0;
  double estimated_count = 0;  // keys, from its bits (-m/k ln(1 - X/m))
};

struct window_info {
  std::string name;
  redis_window_config config;  // config.slice_format: the filter's own
  shard_layout layout;         // of one slice; hashes is k (bits of a key's word, in words)
  std::int64_t created = 0;    // unix seconds
  std::uint64_t now = 0;       // the clock the figures are for
  std::uint64_t current_slice = 0;
  std::vector<window_slice_info> slices;  // the slices a lookup reads, newest first
  double estimated_count = 0;             // sum over the slices
  double fill_ratio = 0;
  double estimated_fpp = 0;  // 1 - prod(1 - fill_i^k)
};

// The fields of `bloomkit redis info` on a window filter reached at `url` (docs/CLI.md), under
// the names of its JSON: slice_fill and slice_ttl list the live slices' fill ratios ("%.6f") and
// times to live (whole seconds rounded up, -2 for a slice that does not exist), newest first;
// slice_format is "words" or "bits", word_bits 64 (0 for bits).
// Report has add(name, value) returning itself (the CLI's report, the Python binding's dict).
template <class Report>
void report_info(const window_info& i, const std::string& url, Report& r) {
  std::string fills;
  std::string ttls;
  for (const window_slice_info& s : i.slices) {
    if (!fills.empty()) fills += ' ', ttls += ' ';
    char fill[32];
    std::snprintf(fill, sizeof fill, "%.6f", s.fill_ratio);
    fills += fill;
    ttls += std::to_string(s.ttl_ms < 0 ? s.ttl_ms : (s.ttl_ms + 999) / 1000);
  }
  r.add("name", i.name)
      .add("url", url)
      .add("kind", "window")
      .add("hash_scheme", to_string(sharded_scheme))
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
      .add("slice_ttl", ttls)
      .add("slice_format", to_string(i.config.slice_format))
      .add("word_bits", std::uint64_t{i.config.slice_format == window_slice_format::words
                                          ? redis_window_word_bits
                                          : 0});
}

class redis_window_filter {
 public:
  static constexpr std::uint64_t max_skew = 3600;

  // Creates window filter `name` (writes its meta; slices are made by inserts) in
  // config.slice_format. If it exists with the same configuration, opens it (every instance of a
  // service may call create at startup), also in the other slice format; with another,
  // errc::already_exists naming what differs. Out-of-range parameters are
  // errc::invalid_argument naming them.
  static redis_window_filter create(client& c, std::string name, const redis_window_config& config,
                                    filter_options options = {});
  // Opens an existing window filter after validating its meta: errc::not_found (none),
  // errc::wrong_type (N:meta not a hash), errc::incompatible (a native filter),
  // errc::unsupported (a format version other than 1 or 2) / errc::corrupt_file as for native
  // filters.
  static redis_window_filter open(client& c, std::string name, filter_options options = {});
  // Whether N:meta exists and records kind "window" (one HGET).
  static bool is_window(client& c, const std::string& name);

  // The clock (unix seconds; default the system clock): tests and replays set it. A time of
  // millisecond magnitude (window_slices::millisecond_times) is errc::invalid_argument, from
  // set_now at once and from now() for a clock.
  void set_clock(window_clock clock) { clock_ = std::move(clock); }
  void set_now(std::uint64_t now);
  std::uint64_t now() const;
  std::uint64_t current_slice() const;
  // The slices a lookup at the clock's time reads: [slice(now - W - skew), slice(now + skew)].
  std::vector<std::uint64_t> live_slices() const;

  // Sets the key in the current slice; true when no live slice held it (new to the window).
  // A time whose slice would already have expired by the system clock (older than the window)
  // is refused, errc::invalid_argument: the key could not be remembered. A future time writes
  // only its own slice (nothing is erased in Redis).
  bool insert(std::string_view key);
  bool contains(std::string_view key);
  // One round trip per batch (of up to 8192 keys over all slices read); fresh / results, when
  // not empty, must have keys.size() elements. Return the number of new / present keys.
  std::size_t insert_many(std::span<const std::string_view> keys, std::span<bool> fresh = {});
  std::size_t contains_many(std::span<const std::string_view> keys, std::span<bool> results);
  // Sets the keys in the current slice without the "new to the window" answer: the older
  // slices are not read, so a key costs its k bit writes alone, as a native insert does. For
  // callers that record keys and look them up elsewhere.
  void record_many(std::span<const std::string_view> keys);

  window_info info();

  const std::string& name() const noexcept { return name_; }
  const redis_window_config& config() const noexcept { return config_; }
  // The shards of one slice (in the words format, shard_bits / 64 words each; hashes is k).
  const shard_layout& layout() const noexcept { return layout_; }
  const filter_options& options() const noexcept { return options_; }

 private:
  // insert_many, reading the older live slices only when `answer` (record_many does not).
  std::size_t write_many(std::span<const std::string_view> keys, std::span<bool> fresh,
                         bool answer);
  redis_window_filter(client& c, std::string name, const redis_window_config& config,
                      const shard_layout& layout, std::int64_t created, filter_options options);

  client* c_;
  std::string name_;
  redis_window_config config_;
  shard_layout layout_;
  std::int64_t created_ = 0;
  filter_options options_;
  window_clock clock_;
};

}  // namespace bloomkit::redis
