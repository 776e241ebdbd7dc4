#pragma once
// bloomkit::redis::redis_filter: one Bloom filter in Redis (a server or a Cluster), shared by
// every client that opens it by name. Layout and guarantees: docs/REDIS.md.
//
//   auto c = bloomkit::redis::client::connect("redis://127.0.0.1:6379");
//   auto f = bloomkit::redis::redis_filter::create(c, "urls", 10'000'000, 0.01);
//   f.insert("https://example.com/a");          // true: the key was new
//   f.contains_many(keys, answers);             // pipelined BITFIELD_RO, several keys each
//
// Keys of a filter named N:
//   N:meta                  hash: format_version, hash_scheme, bits_per_shard, shard_count,
//                           hashes, capacity, target_fpp, generation, created, inserted,
//                           shard_guard (the generation whose shards carry a guard bit)
//                           (+ next_generation while a rebuild runs)
//   N:<generation>:<shard>  strings of bits_per_shard bits and a guard bit (shard_layout.hpp),
//                           preallocated
//
// Every call re-reads the meta's generation in the same round trip as its commands (a batch
// costs one HMGET more), so a filter dropped or rebuilt by another client is noticed at once:
// a dropped filter is errc::not_found, a rebuilt one is answered from the new generation.
// Every command also reads its shard's guard bit: a missing or short shard (evicted, deleted,
// lost in a restart) is errc::not_found naming it, never an answer, and a write never leaves a
// shard behind that it created.
//
// A redis_filter refers to its client; both are used by one thread at a time (give each thread
// its own client and filter handle).

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/hashing.hpp"
#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/shard_layout.hpp"

namespace bloomkit::redis {

// The meta format this build writes and reads.
inline constexpr std::uint32_t meta_format_version = 1;

struct filter_options {
  // After every write, WAIT until this many replicas acknowledged it (0: don't wait); fewer
  // within wait_timeout throws errc::timeout (the write reached the master, not the replicas).
  int wait_replicas = 0;
  std::chrono::milliseconds wait_timeout{1000};
  // How long the old generation stays readable after a rebuild's flip (clients that read it
  // just before the flip still get answers); then Redis expires it.
  std::chrono::milliseconds rebuild_grace{10000};
  // Keys per BITFIELD command in batches (all in one shard). Measured (bench/RESULTS.md): 4 to
  // 32 cost Redis about 10% less CPU per key than 64 or 512 (very long commands cost more to
  // parse); 1 costs the client more.
  std::size_t keys_per_command = 16;
};

// What `info` reports: the meta, plus figures computed from the bits.
struct filter_info {
  std::string name;
  std::uint32_t format_version = 0;
  hash_scheme scheme = sharded_scheme;
  shard_layout layout;
  std::uint64_t capacity = 0;
  double target_fpp = 0;
  std::uint64_t generation = 0;
  std::int64_t created = 0;    // unix seconds
  std::uint64_t inserted = 0;  // new keys counted by inserts (approximate: see docs/REDIS.md)
  // 1: a bit filter; 4: a counting filter (layout counts counters, bits_set non-zero counters).
  std::uint32_t cell_bits = 1;
  // True when this handle knows `inserted` is too low: the server refused to count some of its
  // new keys (redis_filter::uncounted_inserts()).
  bool inserted_stale = false;
  std::int64_t ttl_ms = -1;  // remaining time to live of the meta, -1 for none
  std::uint64_t bits_set = 0;
  double estimated_count = 0;
  double fill_ratio = 0;
  double estimated_fpp = 0;
  // Problems that do not stop the filter from answering now: shards whose time to live differs
  // from the meta's, a server policy that may evict the filter's keys, a stale `inserted`.
  std::vector<std::string> warnings;
};

// The fields of `bloomkit redis info` (docs/CLI.md) of a filter reached at `url`, under the
// names of its JSON; the warnings are the caller's to show. Report has add(name, value)
// returning itself (the CLI's text / JSON report, the Python binding's dict).
template <class Report>
void report_info(const filter_info& i, const std::string& url, Report& r) {
  // Like Redis's TTL: whole seconds (rounded up), -1 when the filter does not expire.
  const double ttl = i.ttl_ms < 0 ? -1.0 : static_cast<double>((i.ttl_ms + 999) / 1000);
  r.add("name", i.name)
      .add("url", url)
      .add("format_version", i.format_version)
      .add("hash_scheme", to_string(i.scheme))
      .add("bits", i.layout.total_bits())
      .add("bytes", (i.layout.shard_bits * i.cell_bits + 7) / 8 * i.layout.shard_count)
      .add("shards", i.layout.shard_count)
      .add("bits_per_shard", i.layout.shard_bits)
      .add("hashes", i.layout.hashes)
      .add("capacity", i.capacity)
      .add("target_fpp", i.target_fpp)
      .add("generation", i.generation)
      .add("created", static_cast<std::uint64_t>(i.created))
      .add("ttl", ttl)
      .add("inserted", i.inserted)
      .add("estimated_count", i.estimated_count)
      .add("fill_ratio", i.fill_ratio)
      .add("estimated_fpp", i.estimated_fpp);
  if (i.cell_bits != 1) r.add("kind", std::string("counting"));
}

struct rebuild_options {
  // Allow a source that gives no keys: the filter becomes empty. Without it such a rebuild
  // throws errc::invalid_argument and leaves the filter as it was (an empty source is more
  // often a failed export upstream than an intent).
  bool allow_empty = false;
};

// Calls its argument with successive batches of keys (for rebuild).
using key_sink = std::function<void(std::span<const std::string_view>)>;
using key_source = std::function<void(const key_sink&)>;

namespace detail {

struct filter_meta;

// The state of an open filter handle (internal: the modules of src/redis work on it).
struct filter_state {
  client* c = nullptr;
  std::string name;
  shard_layout layout;
  std::uint64_t capacity = 0;
  double target_fpp = 0;
  std::uint64_t generation = 0;
  std::uint64_t next_generation = 0;   // 0: no rebuild running
  std::uint64_t guard_generation = 0;  // its shards carry a guard bit (others: STRLEN checks)
  std::int64_t pending_count = 0;      // new keys less removed ones not yet counted in N:meta
  std::uint64_t uncounted = 0;         // new keys whose count the server refused
  std::string count_refusal;
  filter_options options;
  // Bits per cell: 1 (a bit filter) or 4 (a counting filter's counters, counting_filter.hpp).
  std::uint32_t cell_bits = 1;
};

}  // namespace detail

class redis_filter {
 public:
  // Creates filter `name` sized for `capacity` keys at false-positive probability `fpp`
  // (classic sizing), in shards of at most 2^shard_bits bits, preallocated one at a time.
  // Atomic: on failure nothing it wrote is left behind. If the filter exists with the same
  // parameters, opens it (so every instance of a service may call create at startup); with
  // other parameters it throws errc::already_exists naming what differs.
  static redis_filter create(client& c, std::string name, std::uint64_t capacity, double fpp,
                             unsigned shard_bits = default_shard_bits_log2,
                             filter_options options = {});
  // Opens an existing filter, bit or counting (counting()), after validating its meta:
  // errc::not_found (no such filter),
  // errc::wrong_type (N:meta is not a hash), errc::unsupported (a meta version or hash scheme
  // this build does not know), errc::corrupt_file (fields missing or inconsistent). Writes
  // nothing.
  static redis_filter open(client& c, std::string name, filter_options options = {});
  // open() that also requires the parameters create(capacity, fpp, shard_bits) would give;
  // a mismatch is errc::incompatible naming the field.
  static redis_filter open(client& c, std::string name, std::uint64_t capacity, double fpp,
                           unsigned shard_bits = default_shard_bits_log2,
                           filter_options options = {});

  // Creates filter `name` from a local classic or counting filter file (bloomkit::save; a
  // counting file makes a counting filter): a native xxh3-128 file whose cells fit one Redis
  // string (2^32 bits) becomes a 1-shard filter, a redis-sharded-xxh3 file (from pull) keeps its
  // shards. Other files are refused (errc::unsupported). Atomic like create; an existing name
  // is errc::already_exists.
  static redis_filter push(client& c, const std::filesystem::path& file, std::string name,
                           filter_options options = {});
  // Writes the filter to a local file of its kind (classic or counting): a 1-shard filter as a
  // native file (bloomkit query works on it), more shards as a redis-sharded-xxh3 file. push then
  // pull gives back the identical file.
  void pull(const std::filesystem::path& file);

  // Whether this is a counting filter (redis_counting_filter; open() opens either kind, and
  // inserts and lookups work the same on both).
  bool counting() const noexcept { return state_.cell_bits != 1; }

  // Adds a key with one BITFIELD SET command; returns whether it was new.
  bool insert(std::string_view key);
  bool contains(std::string_view key);
  // contains(key), and the commands `also` in the same pipeline: one round trip on a single
  // server (a cache read next to the filter's lookup); their replies (errors included, not
  // thrown) go to also_replies, one per command.
  bool contains_with(std::string_view key, std::span<const command> also,
                     std::vector<reply>& also_replies);
  // Batches: keys grouped by shard, keys_per_command keys per BITFIELD, pipelined (and node-
  // parallel in a cluster). fresh / results, when not empty, must have keys.size() elements.
  // Return the number of new / present keys.
  std::size_t insert_many(std::span<const std::string_view> keys, std::span<bool> fresh = {});
  std::size_t contains_many(std::span<const std::string_view> keys, std::span<bool> results);

  // -m/k ln(1 - X/m) from the set bits X of every shard (BITCOUNT).
  double estimated_count();
  // The meta's count of new keys (approximate: docs/REDIS.md): one round trip, no BITCOUNT.
  std::uint64_t inserted();
  filter_info info();

  // Sets a time to live on EVERY key of the filter (meta and all shards).
  void expire(std::chrono::seconds ttl);
  // Deletes the filter: drop(client, name).
  void drop();
  // Deletes every key of filter `name`: N:meta first (other clients see errc::not_found at
  // once), then every N:<generation>:<shard> on every master (SCAN), orphans without a meta
  // included: the leftovers of an interrupted create or rebuild. Needs no valid meta. Returns
  // the number of keys deleted; errc::not_found when there was none, errc::wrong_type when
  // N:meta is not a hash (nothing deleted).
  static std::size_t drop(client& c, const std::string& name);
  // Fills a new generation from `source`, then atomically makes it the filter's generation;
  // the old one is expired rebuild_grace later. Lookups answer from the old generation until
  // the flip; inserts by any client during the rebuild go to both generations. A source of no
  // keys is refused unless options.allow_empty (errc::invalid_argument, the filter unchanged).
  void rebuild(const key_source& source, rebuild_options options = {});
  void rebuild(std::span<const std::string_view> keys, rebuild_options options = {});

  // The count of new keys (N:meta's `inserted`) travels with the next call of this handle, in
  // the same round trip as its commands (a single-key insert is one round trip). flush() sends
  // what is still pending now; info() and pull() do it first. A handle dropped without a
  // later call or flush() leaves its last call's new keys uncounted.
  void flush();
  // New keys whose count the server refused (an ACL user without HINCRBY): N:meta's `inserted`
  // is too low by at least this much. Not an error: the keys themselves were inserted.
  std::uint64_t uncounted_inserts() const noexcept { return state_.uncounted; }
  // The server's refusal of the count, "" when there was none.
  const std::string& count_refusal() const noexcept { return state_.count_refusal; }

  const std::string& name() const noexcept { return state_.name; }
  const shard_layout& layout() const noexcept { return state_.layout; }
  std::uint64_t capacity() const noexcept { return state_.capacity; }
  double target_fpp() const noexcept { return state_.target_fpp; }
  std::uint64_t generation() const noexcept { return state_.generation; }
  const filter_options& options() const noexcept { return state_.options; }

 protected:
  redis_filter(client& c, std::string name, const detail::filter_meta& m, filter_options options);

  detail::filter_state state_;
};

}  // namespace bloomkit::redis
