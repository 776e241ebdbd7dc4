#pragma once
// The cache-penetration guard: an HTTP service that serves items from a database, with Redis as
// its cache and a bloomkit Redis filter of every existing id in front of both. See README.md.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/redis/url.hpp"
#include "guard_filter.hpp"
#include "http_server.hpp"
#include "item_store.hpp"

namespace cache_guard {

class http_server;

struct service_options {
  db_location db;
  // Parsed, password included (main.cpp: --redis, BLOOMKIT_REDIS_URL, REDISCLI_AUTH).
  bloomkit::redis::url redis_url = bloomkit::redis::parse_url(bloomkit::redis::default_url);
  bloomkit::redis::client_options redis_options;  // TLS files (--tls-ca, ...)
  std::string filter_name = "cache_guard:items";
  // --filter: "counting" (DELETE removes the id from the filter), "cuckoo" (the same with the
  // server's CF.* commands: module_cuckoo.hpp), "bloom" (a deleted id stays in the filter until
  // a rebuild: --rebuild-every) or "static" (a static generation of the ids with a delta for the
  // ids created between rebuilds; a rebuild folds them in).
  std::string filter_kind = "bloom";
  // Ids that pass the filter but miss the database are cached as absent this long (0: never).
  std::chrono::seconds negative_ttl{30};
  std::chrono::seconds rebuild_every{0};  // 0: no scheduled rebuild
  std::uint64_t capacity = 0;             // 0: twice the database's row count (at least 1000)
  double fpp = 0.01;
  std::chrono::seconds cache_ttl{300};
  unsigned threads = 8;            // HTTP worker threads
  std::size_t load_batch = 10000;  // ids per database page and filter batch
  // Limits against slow and surplus clients (http_server.hpp).
  std::chrono::milliseconds read_timeout{5000};  // a whole request must arrive within it
  std::chrono::milliseconds keep_alive_timeout{5000};
  std::size_t max_connections = 512;  // served or waiting for a worker; more get 503
};

// What one request needs, used by one thread at a time: a Redis client with the filter's handle,
// and a database connection, each opened on first use (so requests are answered from the
// database while Redis is down, and ids the filter rejects while the database is down).
class worker {
 public:
  explicit worker(const service_options& o) : options_(o) {}
  item_store& db();
  bloomkit::redis::client& redis();
  // The handle of the filter as of `epoch` (service::epoch_): reopened when the service has
  // recreated the filter since, because a handle keeps the layout it read when it opened.
  guard_filter& filter(std::uint64_t epoch);
  void forget_filter() { filter_.reset(); }  // after an error: reopen on next use

 private:
  const service_options& options_;
  std::optional<bloomkit::redis::client> redis_;
  std::optional<guard_filter> filter_;  // refers to *redis_: workers never move
  std::uint64_t filter_epoch_ = 0;
  std::optional<item_store> db_;
};

// Workers for the HTTP threads: taken for a request, given back after it (or dropped after an
// error, so a broken connection is never reused).
class worker_pool {
 public:
  explicit worker_pool(const service_options& o) : options_(o) {}
  std::unique_ptr<worker> take();
  void give_back(std::unique_ptr<worker> w);

 private:
  const service_options& options_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<worker>> idle_;
};

struct counters {
  std::atomic<std::uint64_t> requests{0}, filter_rejections{0}, cache_hits{0}, db_queries{0},
      db_found{0}, db_not_found{0}, inserts{0}, rebuilds{0};
  // Lookups answered 404 by the negative cache; DELETEs that deleted a row; ids removed from a
  // counting filter by them.
  std::atomic<std::uint64_t> negative_cache_hits{0}, deletes{0}, filter_removes{0};
  // Lookups that skipped the filter because it could not be trusted (guard on); Redis calls that
  // failed (filter or cache); reloads of a missing or broken filter that completed.
  std::atomic<std::uint64_t> bypassed_lookups{0}, redis_errors{0}, filter_reloads{0};
};

class service {
 public:
  // Connects to Redis and the database, checks the table, creates or opens the filter and
  // loads it (progress on stderr). Throws bloomkit::error / db_error with a clear message.
  explicit service(service_options options);
  ~service();

  // Binds (port 0: any free port); returns the port.
  int bind(const std::string& host, int port);
  // Serves until stop() (from any thread).
  void run();
  void stop();

 private:
  struct scan {
    std::uint64_t ids = 0;
    std::int64_t max_id = 0;
  };
  enum class verdict { absent, maybe, not_asked };

  void load_filter();
  // Loads the existing filter's missing ids (see the stamp), or rebuilds it from this database.
  void load_existing(bloomkit::redis::client& redis, item_store& db, guard_filter& f);
  // A complete filter from scratch: removes what is left of the old one (discard_filter),
  // creates it, loads every id of the database and stamps it.
  scan recreate_filter(bloomkit::redis::client& redis, item_store& db, const char* verb);
  // Creates the filter --filter asks for (a static one with an empty first generation).
  guard_filter create_filter(bloomkit::redis::client& redis, item_store& db,
                             std::uint64_t capacity);
  // Feeds the ids above `above` to `sink` in batches, with progress lines "<verb>: n/N ids".
  scan stream_ids(item_store& db, std::int64_t above, const char* verb,
                  const bloomkit::redis::key_sink& sink);
  // Remembers in Redis (<filter>:cache_guard) which database, filter instance and ids up to
  // max_id the filter holds, so a restart can skip the load.
  void write_stamp(bloomkit::redis::client& c, guard_filter& f, const item_store& db,
                   std::int64_t max_id);
  void install_routes();
  void install_delete_route();
  // GET /item/{id} with a worker (service_items.cpp).
  void serve_item(worker& w, std::int64_t id, const std::string& key, httplib::Response& res);
  // Rebuilds the filter from a database scan (POST /admin/rebuild, --rebuild-every): its JSON.
  // The caller holds busy_ (claim_busy).
  std::string rebuild_filter(worker& w);
  // Takes busy_ (a rebuild or reload runs) unless it is taken; waits for DELETEs removing ids
  // from the filter to finish first, so none removes while a new filter is filled.
  bool claim_busy();
  void schedule_rebuilds();  // the --rebuild-every thread
  bool counting() const { return options_.filter_kind == "counting"; }
  bool static_kind() const { return options_.filter_kind == "static"; }
  bool cuckoo() const { return options_.filter_kind == "cuckoo"; }
  // Whether a DELETE removes its id from the filter (counting, cuckoo).
  bool removes() const { return counting() || cuckoo(); }
  // Opens the filter the options ask for; errc::incompatible when it is of another kind or
  // sizing.
  guard_filter open_filter(bloomkit::redis::client& redis);
  // A cache entry is "item:{id}", its negative entry (absent, or deleted) "item:{id}:absent":
  // one hash slot, so the cache fill's script may test both in a cluster.
  static std::string cache_key(const std::string& id) { return "item:{" + id + "}"; }
  static std::string absent_key(const std::string& id) { return cache_key(id) + ":absent"; }
  std::string stats_json() const;

  // Whether lookups may take the filter's "absent" for an answer now.
  bool filter_trusted() const;
  bool redis_usable() const;
  // Asks the filter about `key` when the guard is on and the filter trusted; on a failure the
  // lookup goes to the database instead (counted, and a reload requested if the filter is gone).
  // `also` runs in the same round trip as the lookup; its replies land in also_replies (left
  // empty when the filter was not asked).
  verdict ask_filter(worker& w, const std::string& key,
                     std::span<const bloomkit::redis::command> also,
                     std::vector<bloomkit::redis::reply>& also_replies);
  // A failed Redis call: counted; unreachable or timed out: Redis is skipped for a moment;
  // a filter missing or broken (errc::not_found, wrong_type, incompatible, corrupt_file): reload
  // it.
  void redis_failed(const bloomkit::error& e);
  // Lookups bypass the filter until a background reload has recreated it from the database.
  void request_reload(const std::string& why);
  void start_reloader();  // unless a rebuild or reload runs (it starts one when it ends)
  void reload_loop();     // the reloader thread: reloads until done (or stop), retrying
  void wait_for_stop(std::chrono::milliseconds pause);

  service_options options_;
  worker_pool pool_;
  counters counters_;
  std::atomic<bool> guard_enabled_{true};
  std::atomic<bool> negative_cache_enabled_{true};  // POST /admin/negative-cache (measuring)
  // Filter inserts that failed after their row was committed: until a rebuild or reload covers
  // them, the filter may lack an existing id, so lookups bypass it (never a false negative).
  std::atomic<std::uint64_t> insert_failures_{0};
  std::atomic<std::uint64_t> failures_covered_{0};
  // A native cuckoo filter had no room for an insert: the next recreate doubles the rows.
  std::atomic<bool> cuckoo_full_{false};
  // Until then (steady_clock ticks) Redis was found unreachable: requests skip it.
  std::atomic<std::int64_t> redis_down_until_{0};

  // The filter's recovery. filter_missing_: lookups bypass the filter until a reload completes;
  // reload_wanted_: a reload must (still) run, cleared by the reload once its new filter exists;
  // both change together under reload_mutex_. busy_: a rebuild or the reloader runs. epoch_:
  // bumped whenever a reload replaces the filter (workers reopen their handles).
  std::mutex reload_mutex_;
  std::atomic<bool> filter_missing_{false};
  std::atomic<bool> reload_wanted_{false};
  std::atomic<bool> busy_{false};
  std::shared_mutex removes_mutex_;  // DELETEs (shared) against claim_busy (exclusive)
  std::thread scheduler_;            // --rebuild-every
  std::atomic<std::uint64_t> epoch_{1};
  std::mutex reloader_mutex_;  // reloader_ (started from HTTP threads, joined at the end)
  std::thread reloader_;
  std::atomic<bool> stopping_{false};
  std::mutex stop_mutex_;
  std::condition_variable stop_signal_;  // wakes the reloader's pause between attempts

  std::chrono::steady_clock::time_point started_;
  std::unique_ptr<http_server> server_;
};

}  // namespace cache_guard
