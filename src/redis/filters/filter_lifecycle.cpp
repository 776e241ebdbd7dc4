// create, open, expire and drop of a native filter, and the steps create, push and rebuild
// share (docs/REDIS.md, "Creating and opening").
#include "filter_lifecycle.hpp"

#include <algorithm>
#include <ctime>
#include <optional>
#include <utility>

#include "../client/reply_errors.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "filter_keys.hpp"
#include "filter_scripts.hpp"
#include "shard_guard.hpp"

namespace bloomkit::redis {

namespace detail {

namespace {

// Fails with already_exists naming the first of `keys` that exists. Writes nothing.
void require_absent(client& c, const std::string& name, const std::vector<std::string>& keys) {
  std::vector<command> cs;
  for (const auto& k : keys) cs.push_back(command{{"EXISTS", k}, 1});
  const auto replies = c.execute_many(cs);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (as_integer(replies[i], "EXISTS " + keys[i]) != 0) {
      throw error(errc::already_exists,
                  "filter '" + name + "': key '" + keys[i] + "' exists but " + meta_key(name) +
                      " does not (left by an interrupted create, or another create is "
                      "running); `bloomkit redis drop " +
                      name + "` (redis_filter::drop) removes every key of the name");
    }
  }
}

}  // namespace

void validate_name(const std::string& name) {
  if (name.empty()) throw error(errc::invalid_argument, "a filter name must not be empty");
}

void unlink_quietly(client& c, const std::vector<std::string>& keys) noexcept {
  try {
    std::vector<command> cs;
    for (const auto& k : keys) cs.push_back(command{{"UNLINK", k}, 1});
    if (!cs.empty()) c.execute_many(cs);
  } catch (...) {
  }
}

void preallocate(client& c, const std::vector<std::string>& keys, const shard_layout& layout,
                 bool guarded, std::vector<std::string>& created) {
  for (const auto& key : keys) {
    created.push_back(key);
    const reply r = c.execute(preallocate_command(key, layout, guarded));
    check_reply(r, "preallocating shard '" + key + "'");
  }
}

void require_whole(client& c, const std::string& name, const std::vector<std::string>& keys,
                   const shard_layout& layout, bool guarded) {
  const auto broken = broken_shards(c, keys, layout, guarded);
  if (!broken.empty()) throw broken_shard_error(name, broken.front(), &c, layout, guarded);
}

filter_meta create_with(client& c, const std::string& name, const filter_meta& want,
                        const std::function<void(const std::vector<std::string>&)>& fill) {
  if (const auto have = read_meta(c, name)) {
    const std::string diff = differences(*have, want);
    if (diff.empty() && !fill) return *have;
    throw error(errc::already_exists,
                "filter '" + name + "' already exists" +
                    (diff.empty() ? std::string() : " with other parameters: " + diff));
  }
  const auto keys = shard_keys(name, 1, want.layout.shard_count);
  require_absent(c, name, keys);
  std::vector<std::string> created;
  try {
    preallocate(c, keys, want.stored(), want.guarded(), created);
    if (fill) fill(keys);
    // A shard evicted or deleted meanwhile (and maybe recreated short by a push's SETRANGE):
    // fail now rather than make a filter that cannot answer.
    require_whole(c, name, keys, want.stored(), want.guarded());
    const reply r = c.execute(eval_command(create_meta_script, meta_key(name), want.fields()));
    if (as_integer(r, "writing " + meta_key(name)) == 1) return want;
  } catch (...) {
    unlink_quietly(c, created);
    throw;
  }
  // Another client created the filter between our check and our meta write.
  const auto have = read_meta(c, name);
  if (have && differences(*have, want).empty() && !fill) return *have;
  // Undo only the shards the winner does not use.
  const std::uint64_t theirs = have ? have->layout.shard_count : 0;
  unlink_quietly(
      c, std::vector<std::string>(keys.begin() + static_cast<std::ptrdiff_t>(
                                                     std::min<std::uint64_t>(theirs, keys.size())),
                                  keys.end()));
  throw error(errc::already_exists,
              "filter '" + name + "' was created by another client" +
                  (have ? " with other parameters: " + differences(*have, want) : std::string()));
}

}  // namespace detail

redis_filter::redis_filter(client& c, std::string name, const detail::filter_meta& m,
                           filter_options options) {
  state_.c = &c;
  state_.name = std::move(name);
  state_.options = options;
  detail::adopt(state_, m);
}

redis_filter redis_filter::create(client& c, std::string name, std::uint64_t capacity, double fpp,
                                  unsigned shard_bits, filter_options options) {
  detail::validate_name(name);
  detail::filter_meta want = detail::meta_for(capacity, fpp, shard_bits);
  want.created = static_cast<std::int64_t>(std::time(nullptr));
  const detail::filter_meta m = detail::create_with(c, name, want, nullptr);
  return redis_filter(c, std::move(name), m, options);
}

redis_filter redis_filter::open(client& c, std::string name, filter_options options) {
  detail::validate_name(name);
  const detail::filter_meta m = detail::require_meta(c, name);
  return redis_filter(c, std::move(name), m, options);
}

redis_filter redis_filter::open(client& c, std::string name, std::uint64_t capacity, double fpp,
                                unsigned shard_bits, filter_options options) {
  detail::validate_name(name);
  const detail::filter_meta want = detail::meta_for(capacity, fpp, shard_bits);
  const detail::filter_meta m = detail::require_meta(c, name);
  if (const std::string diff = detail::differences(m, want); !diff.empty()) {
    throw error(errc::incompatible, "filter '" + name + "' has other parameters: " + diff);
  }
  return redis_filter(c, std::move(name), m, options);
}

void redis_filter::expire(std::chrono::seconds ttl) {
  if (ttl.count() < 1) {
    throw error(errc::invalid_argument,
                "expire: seconds must be at least 1, got " + std::to_string(ttl.count()));
  }
  client& c = *state_.c;
  const std::string& name = state_.name;
  const detail::filter_meta m = detail::require_meta(c, name);
  std::vector<std::string> keys;
  for (std::uint64_t g : {m.generation, m.next_generation}) {
    if (g == 0) continue;
    const auto shards = detail::shard_keys(name, g, m.layout.shard_count);
    keys.insert(keys.end(), shards.begin(), shards.end());
  }
  keys.push_back(detail::meta_key(name));
  std::vector<command> cs;
  for (const auto& k : keys) cs.push_back(command{{"EXPIRE", k, std::to_string(ttl.count())}, 1});
  const auto replies = c.execute_many(cs);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (detail::as_integer(replies[i], "EXPIRE " + keys[i]) != 1) {
      throw error(errc::not_found, "filter '" + name + "': key '" + keys[i] +
                                       "' does not exist (the filter is incomplete or was "
                                       "dropped meanwhile)");
    }
  }
}

void redis_filter::drop() {
  state_.pending_count = 0;  // the filter is going: nothing left to count
  drop(*state_.c, state_.name);
}

std::size_t redis_filter::drop(client& c, const std::string& name) {
  detail::validate_name(name);
  const std::string key = detail::meta_key(name);
  // The meta first, so that every client sees "does not exist" at once; then the shards of the
  // generations it names, at once (no scan needed); then everything of the name's key shapes
  // that is left, on every master: orphans of interrupted creates, rebuilds and old writers.
  const reply type = c.execute(command{{"TYPE", key}, 1});
  detail::check_reply(type, "filter '" + name + "': TYPE " + key);
  if (type.str() != "none" && type.str() != "hash") {
    throw error(errc::wrong_type, "filter '" + name + "': key '" + key + "' exists but is not a " +
                                      "hash (not a bloomkit filter meta); nothing was deleted");
  }
  std::optional<detail::filter_meta> m;
  if (type.str() == "hash") {
    try {
      m = detail::read_meta(c, name);
    } catch (const error&) {
      // A meta this build cannot read: its keys are still found by their names below.
    }
  }
  std::size_t removed = 0;
  auto unlink = [&](const std::vector<std::string>& keys) {
    for (std::size_t at = 0; at < keys.size(); at += 1000) {
      std::vector<command> cs;
      for (std::size_t i = at; i < std::min(keys.size(), at + 1000); ++i) {
        cs.push_back(command{{"UNLINK", keys[i]}, 1});
      }
      for (const auto& r : c.execute_many(cs)) {
        removed += static_cast<std::size_t>(detail::as_integer(r, "filter '" + name + "': UNLINK"));
      }
    }
  };
  unlink({key});
  if (m) {
    for (std::uint64_t g : {m->generation, m->next_generation}) {
      if (g != 0) unlink(detail::shard_keys(name, g, m->layout.shard_count));
    }
  }
  unlink(detail::find_filter_keys(c, name));
  if (removed == 0) {
    throw error(errc::not_found,
                "filter '" + name + "' does not exist (no key '" + key + "', no shard keys)");
  }
  return removed;
}

}  // namespace bloomkit::redis
