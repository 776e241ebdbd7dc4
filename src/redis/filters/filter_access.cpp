#include "filter_access.hpp"

#include <iterator>
#include <map>
#include <utility>

#include "../client/reply_errors.hpp"
#include "batch_engine.hpp"
#include "filter_keys.hpp"
#include "filter_meta.hpp"
#include "native_layout.hpp"
#include "shard_guard.hpp"

namespace bloomkit::redis::detail {

namespace {

// After this many changes of the generation during one call, something is wrong.
constexpr int max_generation_changes = 8;

bool is_guarded(const filter_state& f, std::uint64_t generation) {
  return generation != 0 && generation == f.guard_generation;
}

native_layout layout_of(const filter_state& f, std::uint64_t generation) {
  return native_layout(f.name, f.layout, generation, is_guarded(f, generation), f.cell_bits);
}

}  // namespace

std::vector<reply> run_checked(filter_state& f, std::vector<command>& cs, meta_view& view) {
  client& c = *f.c;
  const std::string key = meta_key(f.name);
  const std::int64_t count = f.pending_count;
  std::vector<command> tail;
  if (count != 0) tail.push_back(command{{"HINCRBY", key, "inserted", std::to_string(count)}, 1});
  tail.push_back(command{{"HMGET", key, "generation", "next_generation", "shard_guard"}, 1});
  std::vector<reply> replies;
  std::vector<reply> tail_replies;
  if (!c.is_cluster()) {
    const std::size_t n = cs.size();
    cs.insert(cs.end(), tail.begin(), tail.end());
    try {
      replies = c.execute_many(cs);
    } catch (...) {
      cs.resize(n);
      throw;
    }
    cs.resize(n);
    tail_replies.assign(std::make_move_iterator(replies.begin() + static_cast<std::ptrdiff_t>(n)),
                        std::make_move_iterator(replies.end()));
    replies.resize(n);
  } else {
    if (!cs.empty()) replies = c.execute_many(cs);
    tail_replies = c.execute_many(tail);
  }
  bool counted = false;
  if (count != 0) {
    f.pending_count -= count;
    const reply& r = tail_replies.front();
    counted = !r.is_error();
    if (!counted && count > 0) {
      // Not an error of the call: its keys are in. inserted is now too low; say so.
      f.uncounted += static_cast<std::uint64_t>(count);
      f.count_refusal = "HINCRBY " + key + ": " + r.str();
    }
  }
  const reply& r = tail_replies.back();
  check_reply(r, "filter '" + f.name + "': HMGET " + key);
  const auto& e = r.elements();
  std::uint64_t generation = 0;
  view.exists = e.size() == 3 && !e[0].is_nil() && parse_u64(e[0].str(), generation);
  if (!view.exists) {
    if (counted) remove_stray_meta(c, key);
    return replies;
  }
  std::uint64_t next = 0;
  if (!e[1].is_nil() && !parse_u64(e[1].str(), next)) next = 0;
  std::uint64_t guarded = 0;
  if (!e[2].is_nil() && !parse_u64(e[2].str(), guarded)) guarded = 0;
  view.changed =
      generation != f.generation || next != f.next_generation || guarded != f.guard_generation;
  f.generation = generation;
  f.next_generation = next;
  f.guard_generation = guarded;
  return replies;
}

namespace {

error gone(const filter_state& f) {
  return error(errc::not_found,
               "filter '" + f.name + "' no longer exists (no key '" + meta_key(f.name) + "')");
}

}  // namespace

error broken_write(const std::string& name, const shard_layout& layout, const std::string& key,
                   bool guarded, const std::string& cleanup) {
  const error e = broken_shard_error(name, key, nullptr, layout, guarded);
  if (cleanup.empty()) return e;
  return error(e.code(), std::string(e.what()) + " (" + cleanup + "; `bloomkit redis drop " + name +
                             "` removes it)");
}

// A shard that the write found missing is removed again (the write created it) and, in the
// current generation, is errc::not_found; in a rebuild's generation it fails the rebuild, not
// this write. A remove goes through the same steps (it creates nothing to remove).
static std::size_t change_keys(filter_state& f, std::span<const std::string_view> keys, cell_op op,
                               std::vector<char>& out) {
  if (keys.empty()) return 0;
  const batch_plan plan =
      batch_plan::make(layout_of(f, f.generation), keys, op, f.options.keys_per_command);
  const shard_layout stored = stored_layout(f.layout, f.cell_bits);
  std::map<std::uint64_t, std::vector<char>> written;  // generation -> its answers
  for (int attempt = 0;; ++attempt) {
    std::vector<std::uint64_t> generations;
    std::vector<native_layout> targets;
    for (std::uint64_t g : {f.generation, f.next_generation}) {
      if (g == 0 || written.count(g)) continue;
      generations.push_back(g);
      targets.push_back(layout_of(f, g));
    }
    std::vector<batch_commands> where;
    std::vector<command> cs;
    for (const auto& t : targets) where.push_back(append_commands(t, plan, cs));
    meta_view view;
    const auto replies = run_checked(f, cs, view);
    std::vector<std::vector<std::string>> broken(targets.size());
    std::vector<std::string> orphans;
    for (std::size_t t = 0; t < targets.size(); ++t) {
      batch_answers a = decode(targets[t], plan, where[t], cs, replies);
      written[generations[t]] = std::move(a.answers);
      broken[t] = std::move(a.broken);
      if (op == cell_op::write) orphans.insert(orphans.end(), broken[t].begin(), broken[t].end());
    }
    const bool guarded = !where.empty() && where.front().check.how == string_check::kind::guard_bit;
    const std::string cleanup = remove_orphan_shards(*f.c, orphans, stored, guarded);
    if (!view.exists) throw gone(f);
    for (std::size_t t = 0; t < targets.size(); ++t) {
      if (generations[t] == f.generation && !broken[t].empty()) {
        throw broken_write(f.name, stored, broken[t].front(), guarded, cleanup);
      }
    }
    const bool complete =
        written.count(f.generation) && (f.next_generation == 0 || written.count(f.next_generation));
    if (!view.changed || complete) break;
    if (attempt > max_generation_changes) {
      throw error(errc::conflict,
                  "filter '" + f.name + "': its generation keeps changing during a write");
    }
  }
  out = std::move(written[f.generation]);
  std::size_t changed = 0;
  for (char x : out) changed += x;
  // `inserted` counts new keys less removed ones, like the in-process counting filter; the
  // count is sent with the next call or flush_count().
  const auto delta = static_cast<std::int64_t>(changed);
  f.pending_count += op == cell_op::write ? delta : -delta;
  wait_for_replicas(f);
  return changed;
}

std::size_t write_keys(filter_state& f, std::span<const std::string_view> keys,
                       std::vector<char>& out) {
  return change_keys(f, keys, cell_op::write, out);
}

std::size_t remove_keys(filter_state& f, std::span<const std::string_view> keys,
                        std::vector<char>& out) {
  return change_keys(f, keys, cell_op::remove, out);
}

std::size_t read_keys(filter_state& f, std::span<const std::string_view> keys,
                      std::vector<char>& out, std::span<const command> also,
                      std::vector<reply>* also_replies) {
  if (keys.empty()) return 0;
  const batch_plan plan =
      batch_plan::make(layout_of(f, f.generation), keys, cell_op::read, f.options.keys_per_command);
  for (int attempt = 0;; ++attempt) {
    const std::uint64_t generation = f.generation;
    const native_layout layout = layout_of(f, generation);
    std::vector<command> cs;
    const batch_commands where = append_commands(layout, plan, cs);
    const std::size_t own = cs.size();
    cs.insert(cs.end(), also.begin(), also.end());
    meta_view view;
    auto replies = run_checked(f, cs, view);
    if (also_replies != nullptr) {
      also_replies->assign(
          std::make_move_iterator(replies.begin() + static_cast<std::ptrdiff_t>(own)),
          std::make_move_iterator(replies.end()));
    }
    if (!view.exists) throw gone(f);
    // Answers from the generation current when the meta was read are good; after a flip the
    // old one may already be expired, so read again from the new one.
    if (generation == f.generation) {
      batch_answers a = decode(layout, plan, where, cs, replies);
      if (!a.broken.empty()) {
        throw broken_shard_error(f.name, a.broken.front(), f.c,
                                 stored_layout(f.layout, f.cell_bits),
                                 where.check.how == string_check::kind::guard_bit);
      }
      out = std::move(a.answers);
      break;
    }
    if (attempt > max_generation_changes) {
      throw error(errc::conflict,
                  "filter '" + f.name + "': its generation keeps changing during a read");
    }
  }
  std::size_t present = 0;
  for (char x : out) present += x;
  return present;
}

void flush_count(filter_state& f) {
  if (f.pending_count == 0) return;  // (negative after removes)
  std::vector<command> none;
  meta_view view;
  run_checked(f, none, view);
  if (!view.exists) throw gone(f);
}

void wait_for_replicas(const filter_state& f) {
  if (f.options.wait_replicas <= 0) return;
  const long long acked = f.c->wait_replicas(f.options.wait_replicas, f.options.wait_timeout);
  if (acked < f.options.wait_replicas) {
    throw error(errc::timeout, "filter '" + f.name + "': only " + std::to_string(acked) + " of " +
                                   std::to_string(f.options.wait_replicas) +
                                   " replicas acknowledged the write within " +
                                   std::to_string(f.options.wait_timeout.count()) + " ms");
  }
}

}  // namespace bloomkit::redis::detail
