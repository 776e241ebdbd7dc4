// Serving and deleting items (README.md, "Deletes and negative caching"): GET /item/{id} with
// the filter lookup and the cache reads in one round trip, negative caching, DELETE /item/{id},
// and the filter's rebuild (POST /admin/rebuild, --rebuild-every).
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/redis/counting_filter.hpp"
#include "service.hpp"
#include "service_support.hpp"

namespace cache_guard {

namespace {

using bloomkit::redis::command;
using bloomkit::redis::key_sink;
using bloomkit::redis::redis_filter;
using bloomkit::redis::reply;

// Fills the cache unless the id has a negative entry: a GET that read the row just before a
// DELETE must not put it back after the DELETE removed the cache entry (the DELETE writes the
// negative entry first). One script, so the test and the SET are one step.
constexpr const char* fill_script =
    "if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end "
    "redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) return 1";

// Takes a negative entry back only if it still holds `token`, the value its writer gave it: a
// newer entry (another DELETE's, another GET's) stays.
constexpr const char* take_back_script =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end "
    "return 0";

// A value no other negative entry has: which writer wrote an entry (take_back_script).
std::string entry_token() {
  static std::atomic<std::uint64_t> next{0};
  static const std::uint64_t process = std::random_device{}();
  return std::to_string(process) + ":" + std::to_string(next.fetch_add(1));
}

// After writing a negative entry with `token` and finding its row there again (a POST of the id
// committed meanwhile): deletes the entry, unless a newer one replaced it. A POST deletes the
// entry after committing its row, so either that comes after the SET, or the read after the SET
// sees the row and this takes the entry back: no entry is left over an existing row.
void take_back_negative_entry(bloomkit::redis::client& redis, const std::string& absent,
                              const std::string& token) {
  const reply r = redis.execute({{"EVAL", take_back_script, "1", absent, token}, 3});
  if (r.is_error()) {
    throw bloomkit::error(bloomkit::errc::server_error,
                          "negative cache entry " + absent + " could not be removed: " + r.str());
  }
}

// How long a DELETE's negative entry lives at least: longer than any GET that read the row
// before the DELETE can take to fill the cache.
constexpr std::chrono::seconds min_deleted_ttl{60};

bool is_string(const reply& r) {
  return r.type() == reply::kind::string;
}

}  // namespace

void service::serve_item(worker& w, std::int64_t id, const std::string& key,
                         httplib::Response& res) {
  const std::string item = cache_key(key), absent = absent_key(key);
  const std::vector<command> reads = {{{"GET", item}}, {{"GET", absent}}};
  std::vector<reply> cached;
  if (ask_filter(w, key, reads, cached) == verdict::absent) {
    // Definitely absent: neither the cache nor the database is asked.
    counters_.filter_rejections.fetch_add(1, std::memory_order_relaxed);
    reply_text(res, 404, "item " + key + " not found\n");
    return;
  }
  // The cache is an optimization: when Redis fails, the database answers.
  if (cached.size() != reads.size() && redis_usable()) {
    try {
      cached = w.redis().execute_many(reads);
    } catch (const bloomkit::error& e) {
      cached.clear();
      redis_failed(e);
    }
  }
  if (cached.size() == reads.size()) {
    // The negative entry wins: it is newer than any cached value (a DELETE writes it first).
    if (is_string(cached[1]) && negative_cache_enabled_.load()) {
      counters_.negative_cache_hits.fetch_add(1, std::memory_order_relaxed);
      reply_text(res, 404, "item " + key + " not found\n");
      return;
    }
    if (is_string(cached[0])) {
      counters_.cache_hits.fetch_add(1, std::memory_order_relaxed);
      reply_text(res, 200, cached[0].str());
      return;
    }
  }
  counters_.db_queries.fetch_add(1, std::memory_order_relaxed);
  auto value = w.db().find(id);
  if (!value && options_.negative_ttl.count() > 0 && negative_cache_enabled_.load() &&
      redis_usable()) {
    try {
      const std::string token = entry_token();
      w.redis().execute(
          {{"SET", absent, token, "EX", std::to_string(options_.negative_ttl.count())}});
      // A POST of this id may have committed and cleared the entry before the SET: read again,
      // and take the entry back if the row is there now (one lookup in db_queries).
      value = w.db().find(id);
      if (value) take_back_negative_entry(w.redis(), absent, token);
    } catch (const bloomkit::error& e) {
      redis_failed(e);
    }
  }
  if (!value) {
    counters_.db_not_found.fetch_add(1, std::memory_order_relaxed);
    reply_text(res, 404, "item " + key + " not found\n");
    return;
  }
  counters_.db_found.fetch_add(1, std::memory_order_relaxed);
  if (redis_usable()) {
    try {
      w.redis().execute({{"EVAL", fill_script, "2", item, absent, *value,
                          std::to_string(options_.cache_ttl.count())},
                         3});
    } catch (const bloomkit::error& e) {
      redis_failed(e);
    }
  }
  reply_text(res, 200, *value);
}

void service::install_delete_route() {
  server_->Delete(R"(/item/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    counters_.requests.fetch_add(1, std::memory_order_relaxed);
    const auto id = item_id(req, res);
    if (!id) return;
    const std::string key = std::to_string(*id);
    try {
      auto w = pool_.take();
      // A rebuild or reload (claim_busy) waits for this DELETE; while one runs, the id is not
      // removed from the filter (the new filter may or may not hold it: removing an id it lacks
      // would decrement other ids' counters). It stays a false positive until the next rebuild.
      std::shared_lock lock(removes_mutex_);
      const bool remove = removes() && !busy_.load() && filter_trusted();
      // 1. The row: until it is gone, the filter and the cache still answer for it.
      if (!w->db().remove(*id)) {
        pool_.give_back(std::move(w));
        reply_text(res, 404, "item " + key + " not found\n");
        return;
      }
      counters_.deletes.fetch_add(1, std::memory_order_relaxed);
      // 2. The negative entry, then the cache entry: a GET from here on answers 404 (negative
      // entry or database), and a GET that read the row before cannot refill the cache.
      const auto ttl = std::max(options_.negative_ttl, min_deleted_ttl);
      const std::string token = entry_token();
      const std::vector<command> steps = {
          {{"SET", absent_key(key), token, "EX", std::to_string(ttl.count())}},
          {{"DEL", cache_key(key)}}};
      const auto replies = w->redis().execute_many(steps);
      for (const auto& r : replies) {
        if (r.is_error()) {
          throw std::runtime_error("item " + key +
                                   " is deleted, but its cache entry may remain: " + r.str());
        }
      }
      // A POST may have reused the id (SQLite gives the largest id again) and cleared the
      // entry before the SET: the entry goes again if the row is back.
      if (w->db().find(*id)) take_back_negative_entry(w->redis(), absent_key(key), token);
      // 3. The filter: only for a row this DELETE deleted (so its id was inserted).
      std::optional<bloomkit::error> failed;
      if (remove) {
        try {
          const bool removed =
              cuckoo()
                  ? module_cuckoo::open(w->redis(), options_.filter_name).remove(key)
                  : bloomkit::redis::redis_counting_filter::open(w->redis(), options_.filter_name)
                        .remove(key);
          if (removed) counters_.filter_removes.fetch_add(1, std::memory_order_relaxed);
        } catch (const bloomkit::error& e) {
          failed = e;  // the id stays a false positive: never a wrong 404
        }
      }
      lock.unlock();  // before redis_failed, which may start a reload (claim_busy)
      if (failed) redis_failed(*failed);
      pool_.give_back(std::move(w));
      reply_text(res, 200, "deleted item " + key + "\n");
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cache_guard: DELETE %s: %s\n", req.path.c_str(), e.what());
      reply_text(res, 500, std::string(e.what()) + "\n");
    }
  });
}

std::string service::rebuild_filter(worker& w) {
  const std::uint64_t failures_before = insert_failures_.load();
  const auto started = clock::now();
  scan s;
  guard_filter* f = nullptr;
  try {
    f = &w.filter(epoch_.load());
    // An empty table is an empty filter. A static filter's new generation holds every id of the
    // scan (read after the rebuild marked it: ids created meanwhile reach its new delta too).
    f->rebuild([&](const key_sink& sink) { s = stream_ids(w.db(), 0, "rebuilding filter", sink); });
  } catch (const bloomkit::error& e) {
    w.forget_filter();
    redis_failed(e);
    throw;
  }
  write_stamp(w.redis(), *f, w.db(), s.max_id);
  failures_covered_.store(failures_before);
  counters_.rebuilds.fetch_add(1, std::memory_order_relaxed);
  const double seconds = seconds_since(started);
  std::fprintf(stderr, "rebuilt filter %s: %llu ids, generation %llu, %.3f s\n",
               options_.filter_name.c_str(), static_cast<unsigned long long>(s.ids),
               static_cast<unsigned long long>(f->generation()), seconds);
  return "{\"ids\": " + std::to_string(s.ids) +
         ", \"generation\": " + std::to_string(f->generation()) +
         ", \"seconds\": " + std::to_string(seconds) + "}\n";
}

void service::schedule_rebuilds() {
  while (true) {
    wait_for_stop(options_.rebuild_every);
    if (stopping_.load()) return;
    if (!claim_busy()) continue;  // a rebuild or reload runs: the next period
    try {
      auto w = pool_.take();
      rebuild_filter(*w);
      pool_.give_back(std::move(w));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cache_guard: scheduled rebuild of %s failed: %s\n",
                   options_.filter_name.c_str(), e.what());
    }
    busy_.store(false);
    if (reload_wanted_.load()) start_reloader();
  }
}

}  // namespace cache_guard
