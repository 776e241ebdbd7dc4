#include "bloomkit/static_builder.hpp"

#include <algorithm>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/hashing.hpp"
#include "distinct_shard_count.hpp"
#include "hash_spill.hpp"
#include "hash_units.hpp"
#include "pack_tables.hpp"
#include "parallel_for.hpp"
#include "shard_solver.hpp"
#include "sort_distinct.hpp"

namespace bloomkit {

using detail::hash_unit;

namespace {

constexpr std::size_t hash_batch = 4096;

std::filesystem::path temp_dir_of(const static_build_options& o) {
  return o.temp_dir.empty() ? std::filesystem::temp_directory_path() : o.temp_dir;
}

// Shards of a unit of work: the units [first_unit, last_unit) and the shards
// [first_shard, last_shard), one of the two ranges being a single element.
struct work_group {
  std::size_t first_unit = 0;
  std::size_t last_unit = 0;
  std::uint64_t first_shard = 0;
  std::uint64_t last_shard = 0;
};

std::vector<work_group> group_units(const std::vector<hash_unit>& units, unsigned shard_bits) {
  std::vector<work_group> groups;
  for (std::size_t i = 0; i < units.size(); ++i) {
    const hash_unit& u = units[i];
    if (u.bits >= shard_bits) {
      const std::uint64_t shard = u.prefix >> (u.bits - shard_bits);
      if (!groups.empty() && groups.back().first_shard == shard &&
          groups.back().last_shard == shard + 1) {
        groups.back().last_unit = i + 1;
      } else {
        groups.push_back({i, i + 1, shard, shard + 1});
      }
    } else {
      const unsigned extra = shard_bits - u.bits;
      groups.push_back({i, i + 1, u.prefix << extra, (u.prefix + 1) << extra});
    }
  }
  return groups;
}

}  // namespace

struct static_builder::state {
  double fpp;
  static_build_options options;
  unsigned fingerprint_bits;
  std::mutex mutex;
  std::vector<hash_unit> buckets;
  std::uint64_t held = 0;  // hashes in memory
  std::uint64_t memory_limit = 0;
  std::uint64_t added = 0;
  detail::hash_spill spill;
  static_build_stats stats;
  bool finished = false;

  state(double p, const static_build_options& o)
      : fpp(p),
        options(o),
        fingerprint_bits(static_filter::fingerprint_bits_for(p)),
        spill(temp_dir_of(o), o.spill_byte_limit) {
    if (options.bucket_bits > 16) {
      throw error(errc::invalid_argument, "static build: bucket_bits " +
                                              std::to_string(options.bucket_bits) + " is past 16");
    }
    if (options.threads == 0) options.threads = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t count = std::size_t{1} << options.bucket_bits;
    memory_limit = std::max<std::uint64_t>(options.memory_bytes / sizeof(std::uint64_t), count);
    buckets.resize(count);
    for (std::size_t b = 0; b < count; ++b) {
      buckets[b].bits = options.bucket_bits;
      buckets[b].prefix = b;
    }
  }

  // Under `mutex`.
  void add_locked(std::span<const std::uint64_t> hashes) {
    // h >> (64 - bucket_bits), 0 for 0 bits.
    const unsigned shift = 63 - options.bucket_bits;
    for (const std::uint64_t h : hashes) {
      std::vector<std::uint64_t>& m = buckets[(h >> 1) >> shift].memory;
      // A bucket's share of the bound, and some: they fill evenly, and doubling would not.
      if (m.capacity() == 0) m.reserve(memory_limit / buckets.size() * 9 / 8 + 16);
      m.push_back(h);
    }
    held += hashes.size();
    added += hashes.size();
    if (held > memory_limit) spill_all();
  }

  // Appends every bucket's hashes to the spill file; `keep_buffers` keeps their memory for
  // more adds.
  void spill_all(bool keep_buffers = true) {
    for (hash_unit& b : buckets) {
      if (!b.memory.empty()) b.segments.push_back(spill.append(b.memory));
      b.memory.clear();
      if (!keep_buffers) b.memory.shrink_to_fit();
    }
    held = 0;
  }

  static_filter finish();
  std::vector<hash_unit> units_for(unsigned shard_bits);
  std::vector<static_shard> build_shards(std::vector<hash_unit>& units, unsigned shard_bits);
};

static_builder::static_builder(double fpp, static_build_options options)
    : s_(std::make_unique<state>(fpp, options)) {}

static_builder::~static_builder() = default;

void static_builder::add(std::string_view key) {
  const std::uint64_t h = xxh3_64(key);
  add_hashes(std::span(&h, 1));
}

void static_builder::add_many(std::span<const std::string_view> keys) {
  std::uint64_t hashes[hash_batch];
  while (!keys.empty()) {
    const std::size_t n = std::min(keys.size(), hash_batch);
    for (std::size_t i = 0; i < n; ++i) hashes[i] = xxh3_64(keys[i]);
    add_hashes(std::span<const std::uint64_t>(hashes, n));
    keys = keys.subspan(n);
  }
}

void static_builder::add_hashes(std::span<const std::uint64_t> hashes) {
  std::lock_guard lock(s_->mutex);
  if (s_->finished) throw error(errc::invalid_argument, "static build: keys added after finish()");
  s_->add_locked(hashes);
}

std::uint64_t static_builder::added() const noexcept {
  std::lock_guard lock(s_->mutex);
  return s_->added;
}

const static_build_stats& static_builder::stats() const noexcept {
  return s_->stats;
}

static_filter static_builder::finish() {
  std::lock_guard lock(s_->mutex);
  if (s_->finished) throw error(errc::invalid_argument, "static build: finish() called twice");
  s_->finished = true;
  return s_->finish();
}

std::uint64_t static_builder::working_set_bound(std::uint64_t n, unsigned bucket_bits) {
  const unsigned shard_bits = static_filter::shard_bits_for(n);
  // A thread gathers one shard's hashes (a spilled unit at a time through a read buffer of at
  // most a shard) and builds it: build_memory counts the gathered hashes already.
  const std::uint64_t shard_keys = detail::max_keys_per_part(n, shard_bits);
  const std::uint64_t unit_keys = detail::max_keys_per_part(n, std::max(bucket_bits, shard_bits));
  return 8 * unit_keys + static_shard::build_memory(shard_keys);
}

// Every bucket as units no bigger than a shard of `shard_bits`: spilled buckets that hold
// several are split by their next bits (in memory ones are bounded by memory_bytes already).
std::vector<hash_unit> static_builder::state::units_for(unsigned shard_bits) {
  if (spill.used()) spill_all(false);  // all of a bucket in one place
  std::vector<std::vector<hash_unit>> parts(buckets.size());
  const unsigned extra = shard_bits > options.bucket_bits ? shard_bits - options.bucket_bits : 0;
  detail::parallel_for(buckets.size(), options.threads, [&](std::uint64_t b) {
    hash_unit& bucket = buckets[b];
    bucket.count = bucket.spilled() ? 0 : bucket.memory.size();
    for (const detail::spill_segment& s : bucket.segments) bucket.count += s.count;
    if (bucket.spilled() && extra > 0) {
      parts[b] = detail::split_unit(spill, bucket, extra);
    } else {
      parts[b].push_back(std::move(bucket));
    }
  });
  buckets.clear();
  std::vector<hash_unit> units;
  for (std::vector<hash_unit>& p : parts) {
    for (hash_unit& u : p) units.push_back(std::move(u));
  }
  return units;
}

// The shards of `units` at shard_bits (none is skipped), built on the threads; their keys() are
// the distinct hashes. The units are left as they were: a second build can read them again.
std::vector<static_shard> static_builder::state::build_shards(std::vector<hash_unit>& units,
                                                              unsigned shard_bits) {
  std::vector<std::optional<static_shard>> shards(std::size_t{1} << shard_bits);
  const std::vector<work_group> groups = group_units(units, shard_bits);
  std::atomic<std::uint64_t> retries{0};
  detail::parallel_for(groups.size(), options.threads, [&](std::uint64_t g) {
    std::vector<std::uint64_t> buffer;
    std::vector<std::uint64_t> scratch;
    const work_group& group = groups[g];
    std::uint64_t total = 0;
    for (std::size_t i = group.first_unit; i < group.last_unit; ++i) total += units[i].count;
    buffer.resize(total);
    std::uint64_t at = 0;
    for (std::size_t i = group.first_unit; i < group.last_unit; ++i) {
      const hash_unit& u = units[i];
      const std::span<std::uint64_t> to = std::span(buffer).subspan(at, u.count);
      if (u.spilled()) {
        detail::read_unit(spill, u, to);
      } else {
        std::copy(u.memory.begin(), u.memory.end(), to.begin());
      }
      at += u.count;
    }
    const auto solve = [&](std::uint64_t shard, std::span<std::uint64_t> hashes) {
      std::uint64_t failed = 0;
      shards[shard] =
          detail::solve_shard(hashes, fingerprint_bits, shard, options.failing_seeds, failed);
      retries += failed;
    };
    if (group.last_shard - group.first_shard == 1) {
      solve(group.first_shard, buffer);  // it drops repeats itself
      return;
    }
    // One unit of several shards: sorted, each shard is a run of it.
    const std::size_t distinct =
        detail::sort_distinct(buffer, units[group.first_unit].bits, scratch);
    auto begin = buffer.begin();
    const auto end_of_all = buffer.begin() + static_cast<std::ptrdiff_t>(distinct);
    for (std::uint64_t shard = group.first_shard; shard < group.last_shard; ++shard) {
      const auto end = shard + 1 == group.last_shard
                           ? end_of_all
                           : std::lower_bound(begin, end_of_all, (shard + 1) << (64 - shard_bits));
      solve(shard, std::span(buffer.data() + (begin - buffer.begin()),
                             static_cast<std::size_t>(end - begin)));
      begin = end;
    }
  });
  stats.retries = retries.load();
  std::vector<static_shard> solved;
  solved.reserve(shards.size());
  for (std::optional<static_shard>& shard : shards) solved.push_back(std::move(*shard));
  return solved;
}

static_filter static_builder::state::finish() {
  stats.keys = added;
  std::vector<hash_unit> units = units_for(static_filter::shard_bits_for(added));
  detail::distinct_shards built = detail::build_for_distinct_keys(
      added, [&](std::uint32_t bits) { return build_shards(units, bits); });
  stats.distinct = built.distinct;
  stats.builds = built.builds;
  std::vector<static_shard> shards = std::move(built.shards);
  const std::uint32_t shard_bits = built.shard_bits;
  for (hash_unit& u : units) {
    for (const detail::spill_segment& segment : u.segments) spill.release(segment);
  }
  units.clear();
  stats.shards = shards.size();
  stats.spilled_bytes = spill.bytes_written();
  stats.peak_disk_bytes = spill.peak_bytes();
  detail::pack_tables(shards);
  return static_filter::from_shards(fpp, fingerprint_bits, shard_bits, std::move(shards));
}

}  // namespace bloomkit
