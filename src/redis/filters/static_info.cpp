// redis_static_filter::info: the meta, every string checked, the delta's fill, warnings
// (docs/REDIS.md, "Static filters").
#include <cmath>
#include <string>
#include <vector>

#include "../client/reply_errors.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/redis/eviction.hpp"
#include "bloomkit/redis/static_filter.hpp"
#include "bloomkit/redis/window_filter.hpp"
#include "bloomkit/sizing.hpp"
#include "filter_access.hpp"
#include "filter_keys.hpp"
#include "static_scheme.hpp"
#include "static_strings.hpp"

namespace bloomkit::redis {

static_info redis_static_filter::info() {
  detail::flush_count(state_);
  client& c = *state_.c;
  const std::string& name = state_.name;
  const auto m = detail::read_static_meta(c, name);
  if (!m) {
    throw error(errc::not_found,
                "filter '" + name + "' does not exist (no key '" + detail::meta_key(name) + "')");
  }
  adopt(*m);
  const detail::static_generation& g = *current_;
  static_info out;
  out.name = name;
  out.generation = m->generation;
  out.created = m->created;
  out.target_fpp = m->target_fpp;
  out.fingerprint_bits = g.fingerprint_bits;
  out.static_shards = g.tables.size();
  out.keys = g.keys;
  out.strings = g.strings();
  out.static_bits = g.static_bits();
  out.bits_per_key =
      g.keys == 0 ? 0 : static_cast<double>(out.static_bits) / static_cast<double>(g.keys);
  out.static_fpp = g.keys == 0 ? 0 : detail::fingerprint_fpp(g.fingerprint_bits);
  out.delta_capacity = g.delta_capacity;
  out.delta = g.delta;
  out.inserted = m->inserted;
  if (const auto broken = detail::broken_strings(c, name, m->generation, g); !broken.empty()) {
    const error e = detail::broken_string_error(state_, g, broken.front());
    throw error(e.code(), std::string(e.what()) + (broken.size() > 1
                                                       ? " (" + std::to_string(broken.size() - 1) +
                                                             " more strings are missing or short)"
                                                       : std::string()));
  }
  const auto keys = detail::shard_keys(name, m->generation, g.strings());
  std::vector<command> cs;
  for (std::uint64_t j = 0; j < g.delta.shard_count; ++j) {
    cs.push_back(command{{"BITCOUNT", keys[j]}, 1});
  }
  for (const auto& key : keys) cs.push_back(command{{"STRLEN", key}, 1});
  cs.push_back(command{{"PTTL", detail::meta_key(name)}, 1});
  const auto replies = c.execute_many(cs);
  const std::int64_t pttl = detail::as_integer(replies.back(), "PTTL " + detail::meta_key(name));
  out.ttl_ms = pttl >= 0 ? pttl : -1;
  double delta_fpp_sum = 0;
  for (std::uint64_t j = 0; j < g.delta.shard_count; ++j) {
    // BITCOUNT counts the guard bit too.
    const auto set =
        static_cast<std::uint64_t>(detail::as_integer(replies[j], "BITCOUNT " + keys[j])) - 1;
    out.delta_bits_set += set;
    delta_fpp_sum +=
        fpp_at_fill(g.delta.shard_bits, g.delta.hashes,
                    static_cast<double>(set) / static_cast<double>(g.delta.shard_bits));
  }
  for (std::size_t j = 0; j < keys.size(); ++j) {
    out.bytes += static_cast<std::uint64_t>(
        detail::as_integer(replies[g.delta.shard_count + j], "STRLEN " + keys[j]));
  }
  if (g.has_delta()) {
    out.delta_fill =
        static_cast<double>(out.delta_bits_set) / static_cast<double>(g.delta.total_bits());
    out.delta_estimated_count =
        estimate_count(g.delta.total_bits(), g.delta.hashes, out.delta_bits_set);
    // The delta's words: the FPP of a word-blocked filter holding that many keys.
    out.delta_fpp = word_filter_fpp(
        redis_window_word_bits, g.delta.hashes, g.delta.total_bits() / redis_window_word_bits,
        static_cast<std::uint64_t>(std::llround(out.delta_estimated_count)));
  }
  out.estimated_fpp = 1 - (1 - out.static_fpp) * (1 - out.delta_fpp);
  if (std::string w = eviction_warning(c, "filter '" + name + "'", out.ttl_ms >= 0); !w.empty()) {
    out.warnings.push_back(std::move(w));
  }
  if (g.has_delta() && out.delta_estimated_count > static_cast<double>(g.delta_capacity)) {
    out.warnings.push_back("filter '" + name + "': its delta holds about " +
                           std::to_string(std::llround(out.delta_estimated_count)) +
                           " keys, more than its capacity " + std::to_string(g.delta_capacity) +
                           " (FPP now " + std::to_string(out.estimated_fpp) +
                           "); rebuild it to fold them into the static tables");
  }
  return out;
}

}  // namespace bloomkit::redis
