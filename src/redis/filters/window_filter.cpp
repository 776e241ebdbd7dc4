// The time-window filter in Redis (docs/REDIS.md, "Window filters"): create / open over the
// window meta, inserts and lookups through the batch engine over the window layout, info.

#include "bloomkit/redis/window_filter.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "../client/reply_errors.hpp"
#include "batch_engine.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/sizing.hpp"
#include "filter_access.hpp"
#include "filter_keys.hpp"
#include "filter_lifecycle.hpp"
#include "filter_scripts.hpp"
#include "window_layout.hpp"
#include "window_meta.hpp"

namespace bloomkit::redis {

window_slice_format window_slice_format_named(std::string_view name) {
  if (name == to_string(window_slice_format::words)) return window_slice_format::words;
  if (name == to_string(window_slice_format::bits)) return window_slice_format::bits;
  throw error(errc::invalid_argument,
              "slice_format '" + std::string(name) + "' is not 'words' or 'bits'");
}

namespace {

// Written last by create, read by every call: a meta that is gone means a dropped filter.
command meta_check(const std::string& name) {
  return command{{"HEXISTS", detail::meta_key(name), "kind"}, 1};
}

void require_meta_exists(const reply& r, const std::string& name) {
  if (detail::as_integer(r, "filter '" + name + "': HEXISTS " + detail::meta_key(name)) == 0) {
    throw error(errc::not_found,
                "filter '" + name + "' no longer exists (no key '" + detail::meta_key(name) + "')");
  }
}

}  // namespace

redis_window_filter::redis_window_filter(client& c, std::string name,
                                         const redis_window_config& config,
                                         const shard_layout& layout, std::int64_t created,
                                         filter_options options)
    : c_(&c),
      name_(std::move(name)),
      config_(config),
      layout_(layout),
      created_(created),
      options_(options),
      clock_(system_unix_seconds) {}

redis_window_filter redis_window_filter::create(client& c, std::string name,
                                                const redis_window_config& config,
                                                filter_options options) {
  detail::validate_name(name);
  detail::window_meta want = detail::window_meta_for(config);
  want.created = static_cast<std::int64_t>(system_unix_seconds());
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (const auto fields = detail::read_meta_fields(c, name)) {
      const detail::window_meta have = detail::decode_window_meta(name, *fields);
      // A filter in the other format is opened as it is (every client reads both): its layout
      // is compared with that format's sizing of the same parameters.
      redis_window_config same_format = config;
      same_format.slice_format = have.config.slice_format;
      const std::string diff = detail::window_differences(
          have, same_format == config ? want : detail::window_meta_for(same_format));
      if (!diff.empty()) {
        throw error(errc::already_exists,
                    "filter '" + name + "' exists with other parameters: " + diff);
      }
      return redis_window_filter(c, name, have.config, have.layout, have.created, options);
    }
    // Only if no meta exists: two clients creating at once cannot overwrite each other's.
    const reply r = c.execute(
        detail::eval_command(detail::create_meta_script, detail::meta_key(name), want.fields()));
    detail::check_reply(r, "filter '" + name + "': creating " + detail::meta_key(name));
    if (r.integer() == 1) {
      return redis_window_filter(c, name, want.config, want.layout, want.created, options);
    }
  }
  throw error(errc::conflict, "filter '" + name + "': its meta keeps changing during create");
}

redis_window_filter redis_window_filter::open(client& c, std::string name, filter_options options) {
  detail::validate_name(name);
  const auto fields = detail::read_meta_fields(c, name);
  if (!fields) {
    throw error(errc::not_found,
                "filter '" + name + "' does not exist (no key '" + detail::meta_key(name) + "')");
  }
  const detail::window_meta m = detail::decode_window_meta(name, *fields);
  return redis_window_filter(c, name, m.config, m.layout, m.created, options);
}

bool redis_window_filter::is_window(client& c, const std::string& name) {
  const reply r = c.execute(command{{"HGET", detail::meta_key(name), "kind"}, 1});
  if (r.is_error()) return false;  // not a hash: not a window filter's meta
  return !r.is_nil() && r.str() == detail::window_kind;
}

void redis_window_filter::set_now(std::uint64_t now) {
  check_window_time(now);
  clock_ = [now] { return now; };
}

std::uint64_t redis_window_filter::now() const {
  const std::uint64_t t = clock_();
  check_window_time(t);
  return t;
}

std::uint64_t redis_window_filter::current_slice() const {
  return slice_of_time(now(), config_.window, config_.slices);
}

std::vector<std::uint64_t> redis_window_filter::live_slices() const {
  const std::uint64_t t = now();
  const std::uint64_t back = config_.window + config_.skew;
  const std::uint64_t first =
      slice_of_time(t > back ? t - back : 0, config_.window, config_.slices);
  const std::uint64_t last = slice_of_time(t + config_.skew, config_.window, config_.slices);
  std::vector<std::uint64_t> out;
  for (std::uint64_t e = last + 1; e-- > first;) out.push_back(e);  // newest first
  return out;
}

namespace {

// Keys per round trip. Bits: at most max_keys_per_round_trip placements over all slices read
// (a placement of k cells). Words: a read placement is one cell, a write k; at most as many
// cells as a native batch of max_keys_per_round_trip keys of 16 cells, and never more keys.
std::size_t chunk_of(window_slice_format format, std::size_t slices, std::size_t cells_per_key) {
  if (format == window_slice_format::words) {
    const std::size_t cells = detail::max_keys_per_round_trip * max_word_hashes;
    return std::clamp<std::size_t>(cells / std::max<std::size_t>(1, cells_per_key), 1,
                                   detail::max_keys_per_round_trip);
  }
  return std::max<std::size_t>(1,
                               detail::max_keys_per_round_trip / std::max<std::size_t>(1, slices));
}

// Keys per BITFIELD_RO: a words read is one field per key and slice, so k times as many keys
// as keys_per_command, the fields of a native command: fewer commands for Redis to dispatch.
std::size_t read_keys_per_command(const redis_window_config& config, const shard_layout& layout,
                                  const filter_options& options) {
  return config.slice_format == window_slice_format::words
             ? options.keys_per_command * layout.hashes
             : options.keys_per_command;
}

}  // namespace

std::size_t redis_window_filter::insert_many(std::span<const std::string_view> keys,
                                             std::span<bool> fresh) {
  if (!fresh.empty() && fresh.size() != keys.size()) {
    throw error(errc::invalid_argument, "insert_many: fresh must have one slot per key");
  }
  return write_many(keys, fresh, true);
}

void redis_window_filter::record_many(std::span<const std::string_view> keys) {
  write_many(keys, {}, false);
}

std::size_t redis_window_filter::write_many(std::span<const std::string_view> keys,
                                            std::span<bool> fresh, bool answer) {
  const std::uint64_t current = current_slice();
  std::vector<std::uint64_t> others;
  if (answer) others = live_slices();
  others.erase(std::remove(others.begin(), others.end(), current), others.end());
  const detail::window_layout read(name_, layout_, others, config_.slice_format);
  const detail::window_layout write(name_, layout_, {current}, config_.slice_format);
  // Every client computes the same expiry for a slice: the end of the slice, plus the window,
  // plus twice the skew (a client whose clock is late reads it that much longer).
  const std::uint64_t expire_at =
      slice_start(current + 1, config_.window, config_.slices) + config_.window + 2 * config_.skew;
  if (const std::uint64_t system = system_unix_seconds(); expire_at <= system) {
    throw error(errc::invalid_argument,
                "window filter '" + name_ + "': time " + std::to_string(now()) +
                    " is older than the window: its slice expired at unix second " +
                    std::to_string(expire_at) + ", before the system clock's " +
                    std::to_string(system) +
                    "; a key inserted at it could not be remembered, so it is not stored");
  }
  std::size_t added = 0;
  const std::size_t chunk =
      chunk_of(config_.slice_format, others.size() + 1, others.size() + layout_.hashes);
  for (std::size_t at = 0; at < keys.size(); at += chunk) {
    const auto part = keys.subspan(at, std::min(chunk, keys.size() - at));
    std::vector<command> cs;
    detail::batch_plan read_plan;
    detail::batch_commands read_where;
    if (!others.empty()) {
      read_plan = detail::batch_plan::make(read, part, detail::cell_op::read,
                                           read_keys_per_command(config_, layout_, options_));
      read_where = detail::append_commands(read, read_plan, cs);
    }
    const auto write_plan =
        detail::batch_plan::make(write, part, detail::cell_op::write, options_.keys_per_command);
    const auto write_where = detail::append_commands(write, write_plan, cs);
    const std::size_t expires_begin = cs.size();
    for (std::size_t g = 0; g < write_plan.groups.size(); ++g) {
      if (g > 0 && write_plan.groups[g].string == write_plan.groups[g - 1].string) continue;
      cs.push_back(command{
          {"EXPIREAT", write.string_key(write_plan.groups[g].string), std::to_string(expire_at)},
          1});
    }
    cs.push_back(meta_check(name_));
    const auto replies = c_->execute_many(cs);
    require_meta_exists(replies.back(), name_);
    for (std::size_t i = expires_begin; i + 1 < cs.size(); ++i) {
      detail::check_reply(replies[i], "filter '" + name_ + "': EXPIREAT " + cs[i].args[1]);
    }
    const auto written = detail::decode(write, write_plan, write_where, cs, replies);
    std::vector<char> seen(part.size(), 0);
    if (!others.empty()) seen = detail::decode(read, read_plan, read_where, cs, replies).answers;
    for (std::size_t i = 0; i < part.size(); ++i) {
      const bool is_new = written.answers[i] && !seen[i];
      if (!fresh.empty()) fresh[at + i] = is_new;
      added += is_new ? 1 : 0;
    }
  }
  detail::filter_state waiting;  // WAIT as a native filter's writes do
  waiting.c = c_;
  waiting.name = name_;
  waiting.options = options_;
  detail::wait_for_replicas(waiting);
  return added;
}

std::size_t redis_window_filter::contains_many(std::span<const std::string_view> keys,
                                               std::span<bool> results) {
  if (results.size() != keys.size()) {
    throw error(errc::invalid_argument, "contains_many: results must have one slot per key");
  }
  const detail::window_layout read(name_, layout_, live_slices(), config_.slice_format);
  std::size_t present = 0;
  const std::size_t chunk =
      chunk_of(config_.slice_format, read.slices().size(), read.slices().size());
  for (std::size_t at = 0; at < keys.size(); at += chunk) {
    const auto part = keys.subspan(at, std::min(chunk, keys.size() - at));
    const auto plan = detail::batch_plan::make(read, part, detail::cell_op::read,
                                               read_keys_per_command(config_, layout_, options_));
    std::vector<command> cs;
    const auto where = detail::append_commands(read, plan, cs);
    cs.push_back(meta_check(name_));
    const auto replies = c_->execute_many(cs);
    require_meta_exists(replies.back(), name_);
    const auto answers = detail::decode(read, plan, where, cs, replies).answers;
    for (std::size_t i = 0; i < part.size(); ++i) {
      results[at + i] = answers[i] != 0;
      present += answers[i] != 0 ? 1 : 0;
    }
  }
  return present;
}

bool redis_window_filter::insert(std::string_view key) {
  bool fresh = false;
  insert_many({&key, 1}, {&fresh, 1});
  return fresh;
}

bool redis_window_filter::contains(std::string_view key) {
  bool present = false;
  contains_many({&key, 1}, {&present, 1});
  return present;
}

window_info redis_window_filter::info() {
  window_info out;
  out.name = name_;
  out.config = config_;
  out.layout = layout_;
  out.created = created_;
  out.now = now();
  out.current_slice = current_slice();
  const std::vector<std::uint64_t> slices = live_slices();
  std::vector<command> cs;
  for (std::uint64_t e : slices) {
    for (std::uint64_t j = 0; j < layout_.shard_count; ++j) {
      const std::string key = detail::shard_key(name_, e, j);
      cs.push_back(command{{"BITCOUNT", key}, 1});
      cs.push_back(command{{"PTTL", key}, 1});
    }
  }
  cs.push_back(meta_check(name_));
  const auto replies = c_->execute_many(cs);
  require_meta_exists(replies.back(), name_);
  const double bits = static_cast<double>(layout_.total_bits());
  double all_negative = 1;
  std::uint64_t set_total = 0;
  std::size_t r = 0;
  for (std::uint64_t e : slices) {
    window_slice_info s;
    s.slice = e;
    for (std::uint64_t j = 0; j < layout_.shard_count; ++j, r += 2) {
      const std::string what = "filter '" + name_ + "': " + cs[r].args[1];
      s.bits_set += static_cast<std::uint64_t>(detail::as_integer(replies[r], what + " BITCOUNT"));
      const long long ttl = detail::as_integer(replies[r + 1], what + " PTTL");
      if (ttl != -2 && !s.exists) {
        s.exists = true;
        s.ttl_ms = ttl;
      }
    }
    s.fill_ratio = static_cast<double>(s.bits_set) / bits;
    s.estimated_count = estimate_count(layout_.total_bits(), layout_.hashes, s.bits_set);
    out.estimated_count += s.estimated_count;
    all_negative *= 1 - std::pow(s.fill_ratio, layout_.hashes);
    set_total += s.bits_set;
    out.slices.push_back(s);
  }
  out.fill_ratio = static_cast<double>(set_total) / (bits * static_cast<double>(slices.size()));
  out.estimated_fpp = 1 - all_negative;
  return out;
}

}  // namespace bloomkit::redis
