// redis_static_filter: open, the handle's view of its meta, the single-key and batch calls, and
// expire (docs/REDIS.md, "Static filters"). Lookups and inserts: static_access.cpp; rebuild:
// static_rebuild.cpp; push and pull: static_transfer.cpp; info: static_info.cpp.
#include "bloomkit/redis/static_filter.hpp"

#include <algorithm>
#include <utility>

#include "../client/reply_errors.hpp"
#include "batch_engine.hpp"
#include "bloomkit/detail/result_slots.hpp"
#include "bloomkit/error.hpp"
#include "filter_access.hpp"
#include "filter_keys.hpp"
#include "filter_lifecycle.hpp"
#include "static_meta.hpp"

namespace bloomkit::redis {

using detail::max_keys_per_round_trip;

redis_static_filter::redis_static_filter(client& c, std::string name, const detail::static_meta& m,
                                         filter_options options) {
  state_.c = &c;
  state_.name = std::move(name);
  state_.options = options;
  adopt(m);
}

void redis_static_filter::adopt(const detail::static_meta& m) {
  current_ = std::make_shared<const detail::static_generation>(m.current);
  next_delta_ = m.next_delta;
  target_fpp_ = m.target_fpp;
  shard_bits_ = m.shard_bits;
  state_.layout = m.current.delta;
  state_.capacity = m.current.delta_capacity;
  state_.target_fpp = m.target_fpp;
  state_.generation = m.generation;
  state_.next_generation = m.next_generation;
  state_.guard_generation = m.generation;
}

void redis_static_filter::reload() {
  const auto m = detail::read_static_meta(*state_.c, state_.name);
  if (!m) {
    throw error(errc::not_found, "filter '" + state_.name + "' no longer exists (no key '" +
                                     detail::meta_key(state_.name) + "')");
  }
  adopt(*m);
}

redis_static_filter redis_static_filter::open(client& c, std::string name, filter_options options) {
  detail::validate_name(name);
  const auto m = detail::read_static_meta(c, name);
  if (!m) {
    throw error(errc::not_found,
                "filter '" + name + "' does not exist (no key '" + detail::meta_key(name) + "')");
  }
  return redis_static_filter(c, std::move(name), *m, options);
}

bool redis_static_filter::is_static(client& c, const std::string& name) {
  const std::string key = detail::meta_key(name);
  const reply r = c.execute(command{{"HGET", key, "kind"}, 1});
  if (r.is_error()) return false;  // not a hash: no filter of ours
  return !r.is_nil() && r.str() == detail::static_kind;
}

std::uint32_t redis_static_filter::fingerprint_bits() const noexcept {
  return current_->fingerprint_bits;
}
bool redis_static_filter::has_delta() const noexcept {
  return current_->has_delta();
}
std::uint64_t redis_static_filter::delta_capacity() const noexcept {
  return current_->delta_capacity;
}

bool redis_static_filter::insert(std::string_view key) {
  std::vector<char> out;
  return write({&key, 1}, out) == 1;
}

bool redis_static_filter::contains(std::string_view key) {
  std::vector<char> out;
  return read({&key, 1}, out) == 1;
}

bool redis_static_filter::contains_with(std::string_view key, std::span<const command> also,
                                        std::vector<reply>& also_replies) {
  std::vector<char> out;
  return read({&key, 1}, out, also, &also_replies) == 1;
}

std::size_t redis_static_filter::insert_many(std::span<const std::string_view> keys,
                                             std::span<bool> fresh) {
  if (!fresh.empty()) {
    bloomkit::detail::require_result_slots(keys.size(), fresh.size(), "insert_many");
  }
  return detail::in_round_trips(
      keys, fresh, [&](auto part, std::vector<char>& out) { return write(part, out); });
}

std::size_t redis_static_filter::contains_many(std::span<const std::string_view> keys,
                                               std::span<bool> results) {
  bloomkit::detail::require_result_slots(keys.size(), results.size());
  return detail::in_round_trips(keys, results,
                                [&](auto part, std::vector<char>& out) { return read(part, out); });
}

void redis_static_filter::flush() {
  detail::flush_count(state_);
}

void redis_static_filter::expire(std::chrono::seconds ttl) {
  if (ttl.count() < 1) {
    throw error(errc::invalid_argument,
                "expire: seconds must be at least 1, got " + std::to_string(ttl.count()));
  }
  reload();
  client& c = *state_.c;
  std::vector<std::string> keys =
      detail::shard_keys(state_.name, state_.generation, current_->strings());
  if (state_.next_generation != 0) {
    // A running rebuild's delta; its tables are written after the check and get the TTL from
    // the meta at the flip.
    const auto next =
        detail::shard_keys(state_.name, state_.next_generation, next_delta_.shard_count);
    keys.insert(keys.end(), next.begin(), next.end());
  }
  keys.push_back(detail::meta_key(state_.name));
  std::vector<command> cs;
  for (const auto& k : keys) cs.push_back(command{{"EXPIRE", k, std::to_string(ttl.count())}, 1});
  const auto replies = c.execute_many(cs);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (detail::as_integer(replies[i], "EXPIRE " + keys[i]) != 1) {
      throw error(errc::not_found, "filter '" + state_.name + "': key '" + keys[i] +
                                       "' does not exist (the filter is incomplete or was "
                                       "dropped meanwhile)");
    }
  }
}

}  // namespace bloomkit::redis
