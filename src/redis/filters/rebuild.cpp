// redis_filter::rebuild: a new generation filled from a source, then one atomic flip
// (docs/REDIS.md, "Generations and rebuild").
#include <algorithm>
#include <string>
#include <vector>

#include "../client/reply_errors.hpp"
#include "batch_engine.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "filter_access.hpp"
#include "filter_keys.hpp"
#include "filter_lifecycle.hpp"
#include "filter_meta.hpp"
#include "filter_scripts.hpp"
#include "native_layout.hpp"
#include "shard_guard.hpp"

namespace bloomkit::redis {

using detail::max_keys_per_round_trip;

void redis_filter::rebuild(std::span<const std::string_view> keys, rebuild_options options) {
  rebuild(
      [keys](const key_sink& sink) {
        for (std::size_t i = 0; i < keys.size(); i += 1000) {
          sink(keys.subspan(i, std::min<std::size_t>(1000, keys.size() - i)));
        }
      },
      options);
}

void redis_filter::rebuild(const key_source& source, rebuild_options options) {
  client& c = *state_.c;
  const std::string& name = state_.name;
  const std::string meta_key = detail::meta_key(name);
  const detail::filter_meta m = detail::require_meta(c, name);
  if (m.next_generation != 0) {
    throw error(errc::already_exists, "filter '" + name + "': a rebuild into generation " +
                                          std::to_string(m.next_generation) +
                                          " is running (or was interrupted: HDEL " + meta_key +
                                          " next_generation to clear it)");
  }
  detail::adopt(state_, m);  // next_generation is 0
  // The new generation gets guard bits whenever they fit, also when the old one had none.
  const shard_layout stored = m.stored();  // the strings (counting: 4 bits per counter)
  const bool guarded = stored.has_guard_room();
  const std::uint64_t target = m.generation + 1;
  const auto keys = detail::shard_keys(name, target, m.layout.shard_count);
  // Shards of `target` are not referenced by the meta: leftovers of an interrupted rebuild.
  detail::unlink_quietly(c, keys);
  std::vector<std::string> created;
  bool marked = false;
  try {
    detail::preallocate(c, keys, stored, guarded, created);
    // From here on every writer also writes into `target` (it reads next_generation with each
    // batch), so nothing inserted during the rebuild is lost at the flip.
    const reply r =
        c.execute(command{{"HSETNX", meta_key, "next_generation", std::to_string(target)}, 1});
    if (detail::as_integer(r, "HSETNX " + meta_key) != 1) {
      throw error(errc::already_exists, "filter '" + name + "': another rebuild started");
    }
    marked = true;
    // The fill writes into `target` only.
    const detail::native_layout fill(name, m.layout, target, guarded, m.cell_bits);
    std::uint64_t fresh = 0;
    std::uint64_t given = 0;
    source([&](std::span<const std::string_view> batch) {
      given += batch.size();
      for (std::size_t at = 0; at < batch.size(); at += max_keys_per_round_trip) {
        const auto part = batch.subspan(at, std::min(max_keys_per_round_trip, batch.size() - at));
        const detail::batch_answers a = detail::run_batch(c, fill, part, detail::cell_op::write,
                                                          state_.options.keys_per_command);
        if (!a.broken.empty()) {
          const std::string cleanup = detail::remove_orphan_shards(c, a.broken, stored, guarded);
          throw detail::broken_write(name, stored, a.broken.front(), guarded, cleanup);
        }
        fresh += a.count();
      }
    });
    if (given == 0 && !options.allow_empty) {
      throw error(errc::invalid_argument,
                  "filter '" + name +
                      "': the rebuild's source gave no keys: refusing to replace the filter with "
                      "an empty one (--allow-empty, rebuild_options::allow_empty, allows it)");
    }
    detail::wait_for_replicas(state_);
    // A shard of the new generation evicted or deleted during the fill: fail before the flip
    // rather than switch to a filter that cannot answer.
    detail::require_whole(c, name, keys, stored, guarded);
    const reply flipped = c.execute(detail::eval_command(
        detail::flip_script, meta_key,
        {std::to_string(target), std::to_string(fresh), std::to_string(guarded ? target : 0)}));
    if (detail::as_integer(flipped, "flipping " + meta_key) != 1) {
      throw error(errc::server_error, "filter '" + name + "': the rebuild's mark on " + meta_key +
                                          " vanished before the flip");
    }
  } catch (...) {
    if (marked) {
      try {
        c.execute(command{{"HDEL", meta_key, "next_generation"}, 1});
      } catch (...) {
      }
    }
    detail::unlink_quietly(c, created);
    state_.next_generation = 0;
    throw;
  }
  state_.generation = target;
  state_.next_generation = 0;
  state_.guard_generation = guarded ? target : 0;
  // The old generation stays for readers that read it just before the flip, then expires.
  // A TTL on the filter carries over to the new generation.
  std::vector<command> cs;
  const std::string grace =
      std::to_string(std::max<long long>(1, state_.options.rebuild_grace.count()));
  for (const auto& k : detail::shard_keys(name, m.generation, m.layout.shard_count)) {
    cs.push_back(command{{"PEXPIRE", k, grace}, 1});
  }
  const std::int64_t pttl =
      detail::as_integer(c.execute(command{{"PTTL", meta_key}, 1}), "PTTL " + meta_key);
  if (pttl > 0) {
    for (const auto& k : keys) cs.push_back(command{{"PEXPIRE", k, std::to_string(pttl)}, 1});
  }
  for (const auto& r : c.execute_many(cs)) detail::check_reply(r, "filter '" + name + "': PEXPIRE");
}

}  // namespace bloomkit::redis
