// info() of a native filter: the meta, every shard checked, figures from the bits, warnings
// (docs/REDIS.md, "Operations").
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../client/reply_errors.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/redis/eviction.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/sizing.hpp"
#include "counter_cells.hpp"
#include "filter_access.hpp"
#include "filter_keys.hpp"
#include "filter_meta.hpp"
#include "shard_guard.hpp"

namespace bloomkit::redis {

filter_info redis_filter::info() {
  detail::flush_count(state_);
  client& c = *state_.c;
  const std::string& name = state_.name;
  const detail::filter_meta m = detail::require_meta(c, name);
  detail::adopt(state_, m);
  filter_info out;
  out.name = name;
  out.format_version = m.format_version;
  out.scheme = m.scheme;
  out.layout = m.layout;
  out.capacity = m.capacity;
  out.target_fpp = m.target_fpp;
  out.generation = m.generation;
  out.created = m.created;
  out.inserted = m.inserted;
  out.cell_bits = m.cell_bits;
  // Every shard: its length (and guard bit), its set bits, its time to live.
  const auto keys = detail::shard_keys(name, m.generation, m.layout.shard_count);
  const auto broken = detail::broken_shards(c, keys, m.stored(), m.guarded());
  if (!broken.empty()) {
    const error e = detail::broken_shard_error(name, broken.front(), &c, m.stored(), m.guarded());
    throw error(e.code(), std::string(e.what()) + (broken.size() > 1
                                                       ? " (" + std::to_string(broken.size() - 1) +
                                                             " more shards are missing or short)"
                                                       : std::string()));
  }
  std::vector<command> cs;
  for (const auto& key : keys) {
    cs.push_back(command{{"BITCOUNT", key}, 1});
    cs.push_back(command{{"PTTL", key}, 1});
  }
  cs.push_back(command{{"PTTL", detail::meta_key(name)}, 1});
  const auto replies = c.execute_many(cs);
  const std::int64_t pttl = detail::as_integer(replies.back(), "PTTL " + detail::meta_key(name));
  out.ttl_ms = pttl >= 0 ? pttl : -1;
  std::size_t ttl_mismatches = 0;
  std::string first_mismatch;
  // Each shard is a filter of its own, and a stranger lands in one uniformly: the FPP is the
  // mean of the shards' figures for their fill ratios (sizing.hpp, fpp_at_fill).
  double fpp_sum = 0;
  for (std::size_t j = 0; j < keys.size(); ++j) {
    // BITCOUNT counts the guard bit of a guarded shard too; a counting filter's cells are its
    // non-zero counters, read from the string.
    const auto bit_count =
        static_cast<std::uint64_t>(detail::as_integer(replies[2 * j], "BITCOUNT " + keys[j]));
    const std::uint64_t set = m.cell_bits == 1
                                  ? bit_count - (m.guarded() ? 1 : 0)
                                  : detail::nonzero_counters(c, keys[j], m.layout.shard_bits);
    out.bits_set += set;
    fpp_sum += fpp_at_fill(m.layout.shard_bits, m.layout.hashes,
                           static_cast<double>(set) / static_cast<double>(m.layout.shard_bits));
    // A shard that expires before the meta leaves a filter that cannot answer; one that does
    // not expire with it outlives it.
    const std::int64_t shard_ttl = detail::as_integer(replies[2 * j + 1], "PTTL " + keys[j]);
    const bool mismatch =
        out.ttl_ms < 0 ? shard_ttl >= 0 : shard_ttl < 0 || shard_ttl + 1000 < out.ttl_ms;
    if (mismatch && ttl_mismatches++ == 0) {
      const auto seconds = [](std::int64_t ms) {
        return ms < 0 ? std::string("never") : "in " + std::to_string((ms + 999) / 1000) + " s";
      };
      first_mismatch = "'" + keys[j] + "' expires " + seconds(shard_ttl) + ", " +
                       detail::meta_key(name) + " " + seconds(out.ttl_ms);
    }
  }
  if (ttl_mismatches > 0) {
    out.warnings.push_back("filter '" + name + "': " + std::to_string(ttl_mismatches) +
                           " shards expire other than its meta (" + first_mismatch +
                           "); `bloomkit redis expire " + name +
                           " SECONDS` sets one time to live on every key");
  }
  if (std::string w = eviction_warning(c, "filter '" + name + "'", out.ttl_ms >= 0); !w.empty()) {
    out.warnings.push_back(std::move(w));
  }
  if (state_.uncounted > 0) {
    out.inserted_stale = true;
    out.warnings.push_back("filter '" + name + "': inserted is too low by at least " +
                           std::to_string(state_.uncounted) +
                           ": the server refused to count them (" + state_.count_refusal + ")");
  }
  const double bits = static_cast<double>(m.layout.total_bits());
  const double set = static_cast<double>(out.bits_set);
  out.fill_ratio = set / bits;
  out.estimated_count = estimate_count(m.layout.total_bits(), m.layout.hashes, out.bits_set);
  out.estimated_fpp = fpp_sum / static_cast<double>(m.layout.shard_count);
  return out;
}

}  // namespace bloomkit::redis
