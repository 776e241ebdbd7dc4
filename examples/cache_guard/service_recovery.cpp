// When lookups may trust the filter, what a failed Redis call means, and the background reload
// that recreates a missing or broken filter from the database.
#include "service.hpp"

#include <algorithm>
#include <cstdio>
#include <thread>

#include "bloomkit/error.hpp"
#include "service_support.hpp"

namespace cache_guard {

namespace {

using bloomkit::errc;
using bloomkit::redis::client;

// How long requests skip Redis after finding it unreachable (instead of each paying the
// client's connect retries).
constexpr auto redis_retry_after = std::chrono::seconds(1);

}  // namespace

bool service::redis_usable() const {
  return clock::now().time_since_epoch().count() >= redis_down_until_.load();
}

bool service::filter_trusted() const {
  return !filter_missing_.load() && insert_failures_.load() == failures_covered_.load() &&
         redis_usable();
}

service::verdict service::ask_filter(worker& w, const std::string& key,
                                     std::span<const bloomkit::redis::command> also,
                                     std::vector<bloomkit::redis::reply>& also_replies) {
  also_replies.clear();
  if (!guard_enabled_.load(std::memory_order_relaxed)) return verdict::not_asked;
  const std::uint64_t epoch = epoch_.load();
  if (filter_trusted()) {
    try {
      if (w.filter(epoch).contains_with(key, also, also_replies)) return verdict::maybe;
      // "Absent" counts only if no reload began replacing the filter meanwhile.
      if (epoch_.load() == epoch && filter_trusted()) return verdict::absent;
    } catch (const bloomkit::error& e) {
      also_replies.clear();
      w.forget_filter();
      redis_failed(e);
    } catch (const std::exception& e) {
      also_replies.clear();
      w.forget_filter();
      std::fprintf(stderr, "cache_guard: looking up %s in the filter: %s\n", key.c_str(), e.what());
    }
  }
  counters_.bypassed_lookups.fetch_add(1, std::memory_order_relaxed);
  return verdict::not_asked;
}

void service::redis_failed(const bloomkit::error& e) {
  counters_.redis_errors.fetch_add(1, std::memory_order_relaxed);
  if (e.code() == errc::unreachable || e.code() == errc::timeout) {
    const auto now = clock::now();
    const std::int64_t until = (now + redis_retry_after).time_since_epoch().count();
    std::int64_t was = redis_down_until_.load();
    // One line per outage, not one per request.
    if (was <= now.time_since_epoch().count() &&
        redis_down_until_.compare_exchange_strong(was, until)) {
      std::fprintf(stderr, "cache_guard: %s: answering from the database\n", e.what());
    }
  } else if (filter_is_broken(e.code())) {
    request_reload(e.what());
  } else {
    std::fprintf(stderr, "cache_guard: Redis: %s\n", e.what());
  }
}

void service::request_reload(const std::string& why) {
  {
    std::lock_guard lock(reload_mutex_);
    filter_missing_.store(true);
    if (reload_wanted_.exchange(true)) return;  // requested already
  }
  std::fprintf(stderr,
               "cache_guard: filter %s is missing or unusable (%s): answering from the database "
               "while it is reloaded\n",
               options_.filter_name.c_str(), why.c_str());
  start_reloader();
}

void service::start_reloader() {
  if (stopping_.load() || !claim_busy()) return;
  std::lock_guard lock(reloader_mutex_);
  if (reloader_.joinable()) reloader_.join();  // a reloader that has just ended
  reloader_ = std::thread([this] { reload_loop(); });
}

void service::reload_loop() {
  do {
    for (unsigned attempt = 0; reload_wanted_.load() && !stopping_.load(); ++attempt) {
      const auto started = clock::now();
      try {
        auto redis = client::connect(options_.redis_url, options_.redis_options);
        auto db = item_store::open(options_.db);
        const scan s = recreate_filter(redis, db, "reloading filter");
        {
          std::lock_guard lock(reload_mutex_);
          if (!reload_wanted_.load()) filter_missing_.store(false);
        }
        counters_.filter_reloads.fetch_add(1);
        std::fprintf(stderr, "reloaded filter %s: %llu ids, %.3f s\n", options_.filter_name.c_str(),
                     static_cast<unsigned long long>(s.ids), seconds_since(started));
        attempt = 0;
      } catch (const std::exception& e) {
        if (stopping_.load()) break;
        {
          // It may have failed after taking over the requests (a Redis restart mid-load).
          std::lock_guard lock(reload_mutex_);
          reload_wanted_.store(true);
        }
        const auto pause = std::min<std::chrono::milliseconds>(
            std::chrono::milliseconds(250 << std::min(attempt, 5u)), std::chrono::seconds(5));
        std::fprintf(stderr, "cache_guard: reloading filter %s failed (%s): retrying in %.2f s\n",
                     options_.filter_name.c_str(), e.what(),
                     std::chrono::duration<double>(pause).count());
        wait_for_stop(pause);
      }
    }
    busy_.store(false);
    // A request that came while busy_ was still set found it taken: pick it up.
  } while (reload_wanted_.load() && !stopping_.load() && claim_busy());
}

bool service::claim_busy() {
  std::unique_lock lock(removes_mutex_);
  return !busy_.exchange(true);
}

void service::wait_for_stop(std::chrono::milliseconds pause) {
  std::unique_lock lock(stop_mutex_);
  stop_signal_.wait_for(lock, pause, [this] { return stopping_.load(); });
}

}  // namespace cache_guard
