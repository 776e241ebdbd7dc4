// Lookups and inserts of redis_static_filter (docs/REDIS.md, "Static filters"): the batch
// engine over the static tables and the delta of the handle's generation, in one round trip
// with the meta check that native filters use (filter_access.hpp).
#include <iterator>
#include <map>
#include <utility>

#include "bloomkit/error.hpp"
#include "bloomkit/redis/static_filter.hpp"
#include "filter_access.hpp"
#include "filter_keys.hpp"
#include "shard_guard.hpp"
#include "static_layout.hpp"
#include "static_strings.hpp"

namespace bloomkit::redis {

namespace {

// After this many changes of the generation during one call, something is wrong.
constexpr int max_static_generation_changes = 8;

detail::delta_layout delta_layout_of(const std::string& name, const shard_layout& delta,
                                     std::uint64_t generation) {
  return detail::delta_layout(name, delta, generation);
}

error static_gone(const std::string& name) {
  return error(errc::not_found,
               "filter '" + name + "' no longer exists (no key '" + detail::meta_key(name) + "')");
}

}  // namespace

std::size_t redis_static_filter::read(std::span<const std::string_view> keys,
                                      std::vector<char>& out, std::span<const command> also,
                                      std::vector<reply>* also_replies) {
  if (keys.empty()) return 0;
  const std::size_t per_command = state_.options.keys_per_command;
  for (int attempt = 0;; ++attempt) {
    const std::uint64_t generation = state_.generation;
    const auto g = current_;
    const detail::static_layout tables(state_.name, generation, g);
    const detail::batch_plan table_plan =
        detail::batch_plan::make(tables, keys, detail::cell_op::read, per_command);
    std::vector<command> cs;
    const detail::batch_commands table_where = detail::append_commands(tables, table_plan, cs);
    std::optional<detail::delta_layout> delta;
    detail::batch_plan delta_plan;
    detail::batch_commands delta_where;
    if (g->has_delta()) {
      delta.emplace(delta_layout_of(state_.name, g->delta, generation));
      delta_plan = detail::batch_plan::make(*delta, keys, detail::cell_op::read, per_command);
      delta_where = detail::append_commands(*delta, delta_plan, cs);
    }
    const std::size_t own = cs.size();
    cs.insert(cs.end(), also.begin(), also.end());
    detail::meta_view view;
    auto replies = detail::run_checked(state_, cs, view);
    if (also_replies != nullptr) {
      also_replies->assign(
          std::make_move_iterator(replies.begin() + static_cast<std::ptrdiff_t>(own)),
          std::make_move_iterator(replies.end()));
    }
    if (!view.exists) throw static_gone(state_.name);
    // Answers from the generation current when the meta was read are good; after a flip the
    // old one may already be expiring, so read again from the new one.
    if (generation == state_.generation) {
      detail::batch_answers a = detail::decode(tables, table_plan, table_where, cs, replies);
      if (!a.broken.empty()) throw detail::broken_string_error(state_, *g, a.broken.front());
      if (delta) {
        const detail::batch_answers d =
            detail::decode(*delta, delta_plan, delta_where, cs, replies);
        if (!d.broken.empty()) throw detail::broken_string_error(state_, *g, d.broken.front());
        for (std::size_t i = 0; i < a.answers.size(); ++i) a.answers[i] |= d.answers[i];
      }
      out = std::move(a.answers);
      if (view.changed) reload();  // a rebuild started or ended: its delta, for writes
      break;
    }
    if (attempt > max_static_generation_changes) {
      throw error(errc::conflict,
                  "filter '" + state_.name + "': its generation keeps changing during a read");
    }
    reload();
  }
  std::size_t present = 0;
  for (char x : out) present += x;
  return present;
}

std::size_t redis_static_filter::write(std::span<const std::string_view> keys,
                                       std::vector<char>& out) {
  if (keys.empty()) return 0;
  if (!current_->has_delta()) {
    throw error(errc::unsupported,
                "filter '" + state_.name +
                    "' is a static filter without a delta: it takes no inserts (rebuild it with "
                    "a delta capacity, `bloomkit redis rebuild " +
                    state_.name + " --delta-capacity N`, to add keys between rebuilds)");
  }
  const std::size_t per_command = state_.options.keys_per_command;
  std::map<std::uint64_t, std::vector<char>> written;  // generation -> new in its delta
  std::vector<char> in_tables;                         // present in the current tables
  for (int attempt = 0;; ++attempt) {
    const auto g = current_;
    std::vector<std::uint64_t> generations;
    std::vector<detail::delta_layout> targets;
    std::vector<shard_layout> layouts;
    for (std::uint64_t gen : {state_.generation, state_.next_generation}) {
      if (gen == 0 || written.count(gen)) continue;
      const shard_layout& l = gen == state_.generation ? g->delta : next_delta_;
      if (l.shard_count == 0) continue;  // a rebuild to a filter without a delta
      generations.push_back(gen);
      layouts.push_back(l);
      targets.push_back(delta_layout_of(state_.name, l, gen));
    }
    std::vector<command> cs;
    const detail::static_layout tables(state_.name, state_.generation, g);
    const detail::batch_plan table_plan =
        detail::batch_plan::make(tables, keys, detail::cell_op::read, per_command);
    const detail::batch_commands table_where = detail::append_commands(tables, table_plan, cs);
    std::vector<detail::batch_plan> plans;
    std::vector<detail::batch_commands> where;
    for (const auto& t : targets) {
      plans.push_back(detail::batch_plan::make(t, keys, detail::cell_op::write, per_command));
      where.push_back(detail::append_commands(t, plans.back(), cs));
    }
    const std::uint64_t generation = state_.generation;
    detail::meta_view view;
    const auto replies = detail::run_checked(state_, cs, view);
    detail::batch_answers t = detail::decode(tables, table_plan, table_where, cs, replies);
    std::string broken_current;
    std::string cleanup;
    std::size_t broken_index = 0;
    for (std::size_t i = 0; i < targets.size(); ++i) {
      detail::batch_answers a = detail::decode(targets[i], plans[i], where[i], cs, replies);
      written[generations[i]] = std::move(a.answers);
      if (a.broken.empty()) continue;
      // The write just created these delta shards: remove them again. In a rebuild's
      // generation that fails the rebuild (its check before the flip), not this write.
      const std::string problem =
          detail::remove_orphan_shards(*state_.c, a.broken, layouts[i], true);
      if (generations[i] == generation) {
        broken_current = a.broken.front();
        cleanup = problem;
        broken_index = i;
      }
    }
    if (!view.exists) throw static_gone(state_.name);
    if (!broken_current.empty()) {
      throw detail::broken_write(state_.name, layouts[broken_index], broken_current, true, cleanup);
    }
    if (!t.broken.empty()) throw detail::broken_string_error(state_, *g, t.broken.front());
    if (generation == state_.generation || in_tables.empty()) in_tables = std::move(t.answers);
    if (view.changed) reload();
    const auto has_delta = [&](std::uint64_t gen) {
      return gen == state_.generation ? current_->has_delta() : next_delta_.shard_count != 0;
    };
    const bool complete = (written.count(state_.generation) || !has_delta(state_.generation)) &&
                          (state_.next_generation == 0 || written.count(state_.next_generation) ||
                           !has_delta(state_.next_generation));
    if (complete) break;
    if (attempt > max_static_generation_changes) {
      throw error(errc::conflict,
                  "filter '" + state_.name + "': its generation keeps changing during a write");
    }
  }
  // New: in neither the tables nor the delta of the current generation. A flip to a
  // generation whose delta this write did not reach (it has none) counts the key as not new.
  auto fresh = written.count(state_.generation) ? std::move(written[state_.generation])
                                                : std::vector<char>(keys.size(), 0);
  std::size_t added = 0;
  for (std::size_t i = 0; i < fresh.size(); ++i) {
    fresh[i] = fresh[i] && !in_tables[i];
    added += fresh[i];
  }
  out = std::move(fresh);
  state_.pending_count += static_cast<std::int64_t>(added);
  detail::wait_for_replicas(state_);
  return added;
}

}  // namespace bloomkit::redis
