#pragma once
// The cache-penetration guard: an HTTP service that serves items from a database, with Redis as
// its cache and a bloomkit Redis filter of every existing id in front of both. See README.md.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/redis/url.hpp"
#include "item_store.hpp"

namespace httplib {
class Server;
}

namespace cache_guard {

struct service_options {
  db_location db;
  // Parsed, password included (main.cpp: --redis, BLOOMKIT_REDIS_URL, REDISCLI_AUTH).
  bloomkit::redis::url redis_url = bloomkit::redis::parse_url(bloomkit::redis::default_url);
  std::string filter_name = "cache_guard:items";
  std::uint64_t capacity = 0;  // 0: twice the database's row count (at least 1000)
  double fpp = 0.01;
  std::chrono::seconds cache_ttl{300};
  unsigned threads = 8;            // HTTP worker threads
  std::size_t load_batch = 10000;  // ids per database page and filter batch
};

// What one request needs, used by one thread at a time: a Redis client with its filter handle,
// and a database connection, opened on first use (so ids the filter rejects are answered even
// while the database is down).
struct worker {
  explicit worker(const service_options& o);
  item_store& db();

  const service_options& options;
  bloomkit::redis::client redis;
  bloomkit::redis::redis_filter filter;  // refers to `redis`: a worker never moves

 private:
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
  void load_filter();
  // Feeds the ids above `above` to `sink` in batches, with progress lines "<verb>: n/N ids".
  scan stream_ids(item_store& db, std::int64_t above, const char* verb,
                  const bloomkit::redis::key_sink& sink);
  // Remembers in Redis (<filter>:cache_guard) which database, filter instance and ids up to
  // max_id the filter holds, so a restart can skip the load.
  void write_stamp(bloomkit::redis::client& c, bloomkit::redis::redis_filter& f,
                   const item_store& db, std::int64_t max_id);
  void install_routes();
  std::string stats_json() const;

  service_options options_;
  worker_pool pool_;
  counters counters_;
  std::atomic<bool> guard_enabled_{true};
  std::atomic<bool> rebuilding_{false};
  // Filter inserts that failed after their row was committed: until a rebuild covers them, the
  // filter may lack an existing id, so lookups bypass it (never a false negative).
  std::atomic<std::uint64_t> insert_failures_{0};
  std::atomic<std::uint64_t> failures_covered_{0};
  std::chrono::steady_clock::time_point started_;
  std::unique_ptr<httplib::Server> server_;
};

}  // namespace cache_guard
