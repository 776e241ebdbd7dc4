#pragma once
// bloomkit::redis::redis_static_filter: a static filter (bloomkit::static_filter, a binary fuse
// filter of b-bit fingerprints) kept in Redis, with an optional dynamic delta for the keys added
// between rebuilds; shared by every client that opens it by name. docs/REDIS.md, "Static
// filters".
//
//   auto c = bloomkit::redis::client::connect("redis://127.0.0.1:6379");
//   auto f = bloomkit::redis::redis_static_filter::rebuild(
//       c, "ids", all_ids, {.fpp = 0.01, .delta_capacity = 100'000});  // built here, then stored
//   f.contains_many(keys, answers);   // static tables and delta in one round trip per batch
//   f.insert("id:new");               // into the delta; the next rebuild's source has it
//
// Keys of a static filter named N:
//   N:meta        hash: format_version (1), kind (static), hash_scheme, target_fpp, shard_bits,
//                 generation, created, inserted, shard_guard, and the generation's fields:
//                 fingerprint_bits, shard_log2, tables (seed:segment_length:segment_count:keys per
//                 static shard), fields_per_string, keys, delta_capacity, delta_fpp,
//                 delta_bits_per_shard, delta_shard_count, delta_hashes; while a rebuild runs,
//                 next_generation and next_delta_* (the new generation's delta)
//   N:<g>:<j>     j < D: the delta's shards (a word-blocked filter of 64-bit words, as a
//                 window's words: window_filter.hpp);
//                 j >= D: the static tables' cells, each string at most 2^shard_bits bits of
//                 whole b-bit cells, then a guard bit
//
// A lookup reads the key's three cells (BITFIELD_RO GET u<b>) and the delta's k bits in the
// same round trip and answers present when the cells XOR to the key's fingerprint or the delta
// holds it. An absent or evicted string is errc::not_found naming it, never an answer.
//
// A handle refers to its client; both are used by one thread at a time.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/redis/shard_layout.hpp"

namespace bloomkit::redis {

namespace detail {
struct static_generation;
struct static_meta;
}  // namespace detail

struct static_rebuild_options {
  // Target false-positive probability of the whole filter (static part and delta together);
  // 0: the filter's own (required when the filter does not exist).
  double fpp = 0;
  // Keys the delta holds at fpp (inserts between rebuilds); nullopt: the filter's own (0, no
  // delta, for a new filter). A filter without a delta refuses inserts.
  std::optional<std::uint64_t> delta_capacity;
  // A new filter's strings hold at most 2^shard_bits bits (10..32); a rebuild keeps its own.
  unsigned shard_bits = default_shard_bits_log2;
  // As rebuild_options::allow_empty.
  bool allow_empty = false;
};

// What `info` reports.
struct static_info {
  std::string name;
  std::uint64_t generation = 0;
  std::int64_t created = 0;
  std::int64_t ttl_ms = -1;
  double target_fpp = 0;
  std::uint32_t fingerprint_bits = 0;
  std::uint64_t static_shards = 0;
  std::uint64_t keys = 0;         // distinct keys of the set of the last rebuild
  std::uint64_t strings = 0;      // Redis strings of the generation (delta and tables)
  std::uint64_t static_bits = 0;  // cells of the tables, in bits
  double bits_per_key = 0;        // static_bits / keys
  double static_fpp = 0;          // of the tables: 2^-b
  std::uint64_t delta_capacity = 0;
  shard_layout delta;  // shard_count 0: no delta
  std::uint64_t delta_bits_set = 0;
  double delta_fill = 0;
  double delta_estimated_count = 0;
  double delta_fpp = 0;        // now, from the delta's fill
  std::uint64_t inserted = 0;  // new keys counted into the delta (approximate)
  std::uint64_t bytes = 0;     // of every string
  double estimated_fpp = 0;    // 1 - (1 - static_fpp)(1 - delta_fpp)
  std::vector<std::string> warnings;
};

// The fields of `bloomkit redis info` on a static filter (docs/CLI.md), under the names of its
// JSON. Report has add(name, value) returning itself.
template <class Report>
void report_info(const static_info& i, const std::string& url, Report& r) {
  const double ttl = i.ttl_ms < 0 ? -1.0 : static_cast<double>((i.ttl_ms + 999) / 1000);
  r.add("name", i.name)
      .add("url", url)
      .add("kind", std::string("static"))
      .add("generation", i.generation)
      .add("created", static_cast<std::uint64_t>(i.created))
      .add("ttl", ttl)
      .add("target_fpp", i.target_fpp)
      .add("keys", i.keys)
      .add("fingerprint_bits", std::uint64_t{i.fingerprint_bits})
      .add("bits_per_key", i.bits_per_key)
      .add("static_shards", i.static_shards)
      .add("static_bits", i.static_bits)
      .add("static_fpp", i.static_fpp)
      .add("strings", i.strings)
      .add("bytes", i.bytes)
      .add("delta_capacity", i.delta_capacity)
      .add("delta_bits", i.delta.total_bits())
      .add("delta_hashes", std::uint64_t{i.delta.hashes})
      .add("delta_fill", i.delta_fill)
      .add("delta_estimated_count", i.delta_estimated_count)
      .add("inserted", i.inserted)
      .add("estimated_fpp", i.estimated_fpp);
}

class redis_static_filter {
 public:
  // Builds a static filter of the keys of `source` here (bloomkit::static_filter), stores it as
  // a new generation of filter `name` and makes it current in one atomic step; creates the
  // filter when it does not exist. An existing static filter answers from its old generation
  // until the flip; keys inserted into its delta by any client from the start of the rebuild on
  // reach the new generation's delta too, so the source must hold every key inserted before
  // (a database export read after the rebuild started does). The old generation expires
  // rebuild_grace later. A native or window filter of that name is errc::incompatible; a
  // source of no keys is refused unless allow_empty; a failure leaves the filter as it was.
  static redis_static_filter rebuild(client& c, std::string name, const key_source& source,
                                     const static_rebuild_options& o = {},
                                     filter_options options = {});
  static redis_static_filter rebuild(client& c, std::string name,
                                     std::span<const std::string_view> keys,
                                     const static_rebuild_options& o = {},
                                     filter_options options = {});
  // rebuild(c, name(), source, o) on this handle's filter.
  void rebuild(const key_source& source, const static_rebuild_options& o = {});
  void rebuild(std::span<const std::string_view> keys, const static_rebuild_options& o = {});

  // Opens an existing static filter: errc::not_found (none), errc::incompatible (another kind),
  // errc::unsupported / errc::corrupt_file as for native filters. Writes nothing.
  static redis_static_filter open(client& c, std::string name, filter_options options = {});
  // Whether N:meta exists and records kind "static" (one HGET).
  static bool is_static(client& c, const std::string& name);

  // Creates static filter `name` from a static filter file (bloomkit build --kind static), with
  // a delta of `delta_capacity` keys (0: none). An existing name is errc::already_exists.
  static redis_static_filter push(client& c, const std::filesystem::path& file, std::string name,
                                  std::uint64_t delta_capacity = 0, filter_options options = {});
  // Whether `file` is a static filter file (its header; errors as the file loader's).
  static bool is_static_file(const std::filesystem::path& file);
  // Writes the static part to a static filter file (push then pull gives back the identical
  // file). A delta that holds keys is errc::unsupported: a static file cannot hold them.
  void pull(const std::filesystem::path& file);

  // Inserts into the delta; true when the key was new (in neither part). A filter without a
  // delta is errc::unsupported naming the kind.
  bool insert(std::string_view key);
  std::size_t insert_many(std::span<const std::string_view> keys, std::span<bool> fresh = {});
  bool contains(std::string_view key);
  // contains(key) with the commands `also` in the same pipeline (redis_filter::contains_with).
  bool contains_with(std::string_view key, std::span<const command> also,
                     std::vector<reply>& also_replies);
  std::size_t contains_many(std::span<const std::string_view> keys, std::span<bool> results);

  // The count of new delta keys travels with the next call; flush() sends it now.
  void flush();
  std::uint64_t uncounted_inserts() const noexcept { return state_.uncounted; }
  const std::string& count_refusal() const noexcept { return state_.count_refusal; }
  static_info info();
  // A time to live on every key of the filter (meta and every string of its generations).
  void expire(std::chrono::seconds ttl);

  const std::string& name() const noexcept { return state_.name; }
  std::uint64_t generation() const noexcept { return state_.generation; }
  double target_fpp() const noexcept { return target_fpp_; }
  std::uint32_t fingerprint_bits() const noexcept;
  bool has_delta() const noexcept;
  std::uint64_t delta_capacity() const noexcept;
  const filter_options& options() const noexcept { return state_.options; }

 private:
  redis_static_filter(client& c, std::string name, const detail::static_meta& m,
                      filter_options options);
  void adopt(const detail::static_meta& m);
  // Re-reads the meta after another client rebuilt or dropped the filter.
  void reload();
  std::size_t read(std::span<const std::string_view> keys, std::vector<char>& out,
                   std::span<const command> also = {}, std::vector<reply>* also_replies = nullptr);
  std::size_t write(std::span<const std::string_view> keys, std::vector<char>& out);

  // The generation fields the batch engine's meta check shares with native filters (layout:
  // the current delta's).
  detail::filter_state state_;
  std::shared_ptr<const detail::static_generation> current_;
  shard_layout next_delta_;
  double target_fpp_ = 0;
  unsigned shard_bits_ = default_shard_bits_log2;
};

}  // namespace bloomkit::redis
