#pragma once
// Building a static filter (static_filter.hpp) from a key set of any size: keys stream in from
// any number of threads, and the filter is built shard by shard on T threads.
//
//   static_builder b(0.01, {.threads = 4});
//   b.add_many(keys);            // from several threads at once; repeats are fine
//   static_filter f = b.finish();
//
// How, and what it costs:
//   - Each key's 64-bit hash (xxh3_64) is kept, partitioned by its top bits into 2^bucket_bits
//     buckets. While more than `memory_bytes` of hashes are held, every bucket is appended to
//     a scratch file in `temp_dir` (8 bytes per key on disk, no more).
//   - finish() builds the shards (static_filter::shard_bits_for of the keys added) on T
//     threads: a thread gathers one shard's hashes (reading them back when spilled) and solves
//     it, seed after seed (static_filter::first_seed, static_shard::next_seed) until one works.
//     Shards drop repeats; when the distinct keys call for fewer shards than the keys added did
//     (many repeats), the shards are built a second time with that count, so that a set gives the
//     same bytes whatever its repeats, the same as static_filter::build. Before that, a spilled
//     bucket holding several shards is split by its next bits. The shards' tables are then copied
//     into one mapping, each shard's own freed as it goes (huge pages for all: pack_tables.hpp),
//     and the shards assembled with static_filter::from_shards.
//   - Memory: the finished filter, plus the hashes held (at most memory_bytes, default 1 GiB,
//     kept until the build ends), plus per build thread one working set:
//     static_shard::build_memory(keys of its shard), which counts the shard's gathered hashes,
//     plus a read buffer of 8 bytes per key of one bucket (or split bucket). working_set_bound()
//     gives it for n keys: shards hold about 2^22 keys at most, so at most about 190 MB.
//   - Disk: 8 bytes per key added (repeats included) beyond memory_bytes, in one file that has
//     no name (O_TMPFILE; elsewhere a hidden name removed at once), so nothing is left behind
//     whatever ends the process: an error, an exception, SIGTERM or SIGKILL. Space is given back
//     as each part has been read for the last time.
//   - Errors (bloomkit::error): a full disk or another I/O error names the directory and the
//     system's reason; a shard no seed solves (never seen in practice) names the shard. After
//     an error the builder can only be destroyed (which removes everything it made).

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string_view>

#include "bloomkit/static_filter.hpp"

namespace bloomkit {

struct static_build_options {
  // Build threads; 0: std::thread::hardware_concurrency().
  unsigned threads = 0;
  // Bytes of hashes held in memory before they spill to temp_dir (at least one bucket's worth).
  std::uint64_t memory_bytes = std::uint64_t{1} << 30;
  // Where hashes spill; empty: std::filesystem::temp_directory_path() ($TMPDIR, else /tmp).
  std::filesystem::path temp_dir;
  // Buckets are 2^bucket_bits ranges of the hash's top bits (0 to 16). 4096: a bucket is at
  // most a shard (2^22 keys) up to 1.7e10 keys, so spilled buckets are not split below that.
  unsigned bucket_bits = 12;

  // Test seams (docs/CLI.md, "Test settings of build --kind static"): spill writes past this
  // many bytes fail as a full disk would (0: no limit), and the first `failing_seeds` seeds of
  // every shard are treated as unsolvable, so that retries happen.
  std::uint64_t spill_byte_limit = 0;
  unsigned failing_seeds = 0;
};

// What a build did (after finish()).
struct static_build_stats {
  std::uint64_t keys = 0;      // hashes added, repeats included
  std::uint64_t distinct = 0;  // distinct hashes
  std::uint64_t shards = 0;
  std::uint64_t retries = 0;          // seeds that failed before one solved their shard
  std::uint64_t builds = 1;           // 2 when repeats changed the shard count (see finish())
  std::uint64_t spilled_bytes = 0;    // bytes written to the scratch file
  std::uint64_t peak_disk_bytes = 0;  // the most the scratch file held at once
};

class static_builder {
 public:
  // Throws bloomkit::error (invalid_argument) for an fpp static_filter cannot target.
  explicit static_builder(double fpp, static_build_options options = {});
  ~static_builder();
  static_builder(const static_builder&) = delete;
  static_builder& operator=(const static_builder&) = delete;

  // Adds keys (or their xxh3_64 hashes). Thread-safe. May throw what a spill throws.
  void add(std::string_view key);
  void add_many(std::span<const std::string_view> keys);
  void add_hashes(std::span<const std::uint64_t> hashes);

  std::uint64_t added() const noexcept;

  // Builds the filter from everything added; the builder is spent afterwards.
  static_filter finish();
  const static_build_stats& stats() const noexcept;

  // The working set of one build thread for n keys (excluding the finished filter and the
  // hashes held in memory), in bytes: the bound the header comment states.
  static std::uint64_t working_set_bound(std::uint64_t n, unsigned bucket_bits = 12);

 private:
  struct state;
  std::unique_ptr<state> s_;
};

}  // namespace bloomkit
