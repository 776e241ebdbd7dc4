// redis_static_filter::rebuild: a static filter built here from a source, stored as a new
// generation, then one atomic flip (docs/REDIS.md, "Static filters").
#include <algorithm>
#include <cmath>
#include <ctime>
#include <string>
#include <vector>

#include "../../core/exact_double.hpp"
#include "../client/reply_errors.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/redis/static_filter.hpp"
#include "bloomkit/redis/window_filter.hpp"
#include "bloomkit/sizing.hpp"
#include "filter_access.hpp"
#include "filter_keys.hpp"
#include "filter_lifecycle.hpp"
#include "filter_meta.hpp"
#include "filter_scripts.hpp"
#include "static_meta.hpp"
#include "static_scheme.hpp"
#include "static_store.hpp"
#include "static_strings.hpp"
#include "window_meta.hpp"

namespace bloomkit::redis {

namespace {

// With a delta, the tables take at most this share of the target p and the delta the rest
// (docs/REDIS.md, "Static filters"): the sum stays within p.
constexpr double static_share_with_delta = 15.0 / 16.0;

// The filter's existing static meta, nullopt when there is none; another kind is incompatible.
std::optional<detail::static_meta> existing_static(client& c, const std::string& name) {
  const auto fields = detail::read_meta_fields(c, name);
  if (!fields) return std::nullopt;
  if (!detail::is_static_meta(*fields)) {
    const auto kind = fields->find("kind");
    throw error(errc::incompatible,
                "filter '" + name + "' is a " +
                    (kind == fields->end() ? std::string("native") : kind->second) +
                    " filter: a static rebuild makes static filters only (rebuild it without "
                    "--kind static, or drop it first)");
  }
  return detail::decode_static_meta(name, *fields);
}

// Unlinks N:<generation>:0, 1, ... up to the first thousand of which none existed: the strings
// an interrupted rebuild into `generation` may have left.
void unlink_generation(client& c, const std::string& name, std::uint64_t generation) {
  for (std::uint64_t at = 0;; at += 1000) {
    std::vector<command> cs;
    for (std::uint64_t j = at; j < at + 1000; ++j) {
      cs.push_back(command{{"UNLINK", detail::shard_key(name, generation, j)}, 1});
    }
    std::int64_t removed = 0;
    for (const auto& r : c.execute_many(cs)) removed += detail::as_integer(r, "UNLINK");
    if (removed == 0) return;
  }
}

// The delta's p: what the tables leave of the target p.
double delta_fpp_for(double fpp, double static_fpp) {
  return std::max(fpp - static_fpp, fpp * (1 - static_share_with_delta));
}

// The generation's delta of `capacity` keys at p: a word-blocked filter of 64-bit words
// (word_filter_sizing), in shards of whole words of at most 2^31 bits (every shard has room for
// its guard bit).
shard_layout delta_for(std::uint64_t capacity, double p, unsigned shard_bits) {
  if (capacity == 0) return {};
  const word_filter_params w = word_filter_sizing(redis_window_word_bits, capacity, p);
  return shard_layout::for_bits(w.words * redis_window_word_bits, w.hashes,
                                std::min(shard_bits, max_shard_bits_log2 - 1));
}

}  // namespace

redis_static_filter redis_static_filter::rebuild(client& c, std::string name,
                                                 std::span<const std::string_view> keys,
                                                 const static_rebuild_options& o,
                                                 filter_options options) {
  return rebuild(
      c, std::move(name),
      [keys](const key_sink& sink) {
        for (std::size_t i = 0; i < keys.size(); i += 1000) {
          sink(keys.subspan(i, std::min<std::size_t>(1000, keys.size() - i)));
        }
      },
      o, options);
}

void redis_static_filter::rebuild(const key_source& source, const static_rebuild_options& o) {
  *this = rebuild(*state_.c, state_.name, source, o, state_.options);
}

void redis_static_filter::rebuild(std::span<const std::string_view> keys,
                                  const static_rebuild_options& o) {
  *this = rebuild(*state_.c, state_.name, keys, o, state_.options);
}

redis_static_filter redis_static_filter::rebuild(client& c, std::string name,
                                                 const key_source& source,
                                                 const static_rebuild_options& o,
                                                 filter_options options) {
  detail::validate_name(name);
  const std::optional<detail::static_meta> old = existing_static(c, name);
  const double fpp = o.fpp != 0 ? o.fpp : old ? old->target_fpp : 0;
  if (!std::isfinite(fpp) || !(fpp > 0) || !(fpp < 1)) {
    throw error(errc::invalid_argument,
                old || o.fpp != 0
                    ? "filter '" + name + "': fpp must be in (0, 1), got " + std::to_string(fpp)
                    : "filter '" + name +
                          "' does not exist: a static rebuild that creates it "
                          "needs a target fpp (--fpp P)");
  }
  const std::uint64_t delta_capacity =
      o.delta_capacity.value_or(old ? old->current.delta_capacity : 0);
  const double static_target = delta_capacity > 0 ? fpp * static_share_with_delta : fpp;
  const std::uint32_t bits = detail::fingerprint_bits_for(static_target);
  detail::static_store store;
  store.fpp = fpp;
  store.static_fpp = detail::fingerprint_fpp(bits);
  store.delta_capacity = delta_capacity;
  store.shard_bits = old ? old->shard_bits : o.shard_bits;
  store.allow_empty = o.allow_empty;
  detail::store_static(c, name, old, store, options, [&](std::uint64_t& given) {
    return detail::build_image(source, static_target, given);
  });
  return open(c, std::move(name), options);
}

namespace detail {

void store_static(client& c, const std::string& name, const std::optional<static_meta>& old,
                  const static_store& o, const filter_options& options,
                  const std::function<static_image(std::uint64_t&)>& build) {
  const std::string meta_key = detail::meta_key(name);
  if (old && old->next_generation != 0) {
    throw error(errc::already_exists, "filter '" + name + "': a rebuild into generation " +
                                          std::to_string(old->next_generation) +
                                          " is running (or was interrupted: HDEL " + meta_key +
                                          " next_generation to clear it)");
  }
  const double fpp = o.fpp;
  const std::uint64_t delta_capacity = o.delta_capacity;
  const unsigned shard_bits = o.shard_bits;
  if (shard_bits < min_shard_bits_log2 || shard_bits > max_shard_bits_log2) {
    throw error(errc::invalid_argument,
                "shard bits must be in [" + std::to_string(min_shard_bits_log2) + ", " +
                    std::to_string(max_shard_bits_log2) + "], got " + std::to_string(shard_bits));
  }
  const double delta_fpp = delta_capacity > 0 ? delta_fpp_for(fpp, o.static_fpp) : 0;
  const shard_layout delta = delta_for(delta_capacity, delta_fpp, shard_bits);
  const std::uint64_t target = old ? old->generation + 1 : 1;
  std::vector<std::string> created;
  bool marked = false;
  static_generation g;
  try {
    if (old) {
      unlink_generation(c, name, target);
    } else {
      // Leftovers of an interrupted create are the user's to remove (drop): as create does.
      const reply r = c.execute(command{{"EXISTS", shard_key(name, 1, 0)}, 1});
      if (as_integer(r, "EXISTS") != 0) {
        throw error(errc::already_exists,
                    "filter '" + name + "': key '" + shard_key(name, 1, 0) + "' exists but " +
                        meta_key +
                        " does not (left by an interrupted create, or another create "
                        "is running); `bloomkit redis drop " +
                        name + "` removes every key of the name");
      }
    }
    preallocate(c, shard_keys(name, target, delta.shard_count), delta, true, created);
    if (old) {
      // From here on every writer also writes into the new delta (it reads next_generation with
      // each batch): a key inserted during the rebuild is in the new generation even if the
      // source, read below, missed it.
      std::vector<std::string> mark = {"next_generation", std::to_string(target)};
      const auto fields = next_delta_fields(delta);
      mark.insert(mark.end(), fields.begin(), fields.end());
      const reply r = c.execute(eval_command(static_mark_script, meta_key, mark));
      const std::int64_t marked_now = as_integer(r, "marking " + meta_key);
      if (marked_now == -1) {
        throw error(errc::not_found, "filter '" + name + "' was dropped during its rebuild");
      }
      if (marked_now != 1) {
        throw error(errc::already_exists, "filter '" + name + "': another rebuild started");
      }
      marked = true;
    }
    std::uint64_t given = 0;
    const static_image image = build(given);
    if (given == 0 && !o.allow_empty) {
      throw error(errc::invalid_argument,
                  "filter '" + name +
                      "': the rebuild's source gave no keys: refusing to replace the filter with "
                      "an empty one (--allow-empty, static_rebuild_options::allow_empty, allows "
                      "it)");
    }
    g = image.generation;
    g.delta = delta;
    g.delta_capacity = delta_capacity;
    g.delta_fpp = delta_fpp;
    g.fields_per_string = fields_per_string_for(shard_bits, g.fingerprint_bits);
    if (const std::string problem = g.derive(); !problem.empty()) {
      throw error(errc::invalid_argument, "filter '" + name + "': " + problem);
    }
    write_tables(c, name, target, g, image.cells, created);
    filter_state waiting;
    waiting.c = &c;
    waiting.name = name;
    waiting.options = options;
    wait_for_replicas(waiting);
    // A string evicted or deleted meanwhile: fail before the flip.
    if (const auto broken = broken_strings(c, name, target, g); !broken.empty()) {
      waiting.generation = target;
      throw broken_string_error(waiting, g, broken.front());
    }
    if (old) {
      std::vector<std::string> flip = {std::to_string(target),
                                       "generation",
                                       std::to_string(target),
                                       "inserted",
                                       "0",
                                       "shard_guard",
                                       std::to_string(target),
                                       "target_fpp",
                                       bloomkit::detail::exact_double(fpp)};
      const auto fields = generation_fields(g);
      flip.insert(flip.end(), fields.begin(), fields.end());
      const reply r = c.execute(eval_command(static_flip_script, meta_key, flip));
      if (as_integer(r, "flipping " + meta_key) != 1) {
        throw error(errc::server_error, "filter '" + name + "': the rebuild's mark on " + meta_key +
                                            " vanished before the flip");
      }
    } else {
      static_meta m;
      m.target_fpp = fpp;
      m.shard_bits = shard_bits;
      m.created = static_cast<std::int64_t>(std::time(nullptr));
      m.current = g;
      const reply r = c.execute(eval_command(create_meta_script, meta_key, m.fields()));
      if (as_integer(r, "writing " + meta_key) != 1) {
        throw error(errc::already_exists, "filter '" + name + "' was created by another client");
      }
    }
  } catch (...) {
    if (marked) {
      try {
        c.execute(command{{"HDEL", meta_key, "next_generation", "next_delta_bits_per_shard",
                           "next_delta_shard_count", "next_delta_hashes"},
                          1});
      } catch (...) {
      }
    }
    unlink_quietly(c, created);
    throw;
  }
  if (old) {
    // The old generation stays for readers that read it just before the flip, then expires.
    // A TTL on the filter carries over to the new generation.
    std::vector<command> cs;
    const std::string grace = std::to_string(std::max<long long>(1, options.rebuild_grace.count()));
    for (const auto& k : shard_keys(name, old->generation, old->current.strings())) {
      cs.push_back(command{{"PEXPIRE", k, grace}, 1});
    }
    const std::int64_t pttl =
        as_integer(c.execute(command{{"PTTL", meta_key}, 1}), "PTTL " + meta_key);
    if (pttl > 0) {
      for (const auto& k : shard_keys(name, target, g.strings())) {
        cs.push_back(command{{"PEXPIRE", k, std::to_string(pttl)}, 1});
      }
    }
    for (const auto& r : c.execute_many(cs)) {
      check_reply(r, "filter '" + name + "': PEXPIRE");
    }
  }
}

}  // namespace detail

}  // namespace bloomkit::redis
