#include "service.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <optional>

#include "bloomkit/error.hpp"
#include "bloomkit/redis/shard_layout.hpp"
#include "http_server.hpp"

namespace cache_guard {

namespace {

using bloomkit::errc;
using bloomkit::redis::client;
using bloomkit::redis::command;
using bloomkit::redis::key_sink;
using bloomkit::redis::redis_filter;
using clock = std::chrono::steady_clock;

// How long requests skip Redis after finding it unreachable (instead of each paying the
// client's connect retries).
constexpr auto redis_retry_after = std::chrono::seconds(1);

// The id of /item/{id}: a positive decimal integer that fits int64.
std::optional<std::int64_t> parse_id(const std::string& text) {
  std::int64_t id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || end != text.data() + text.size() || id <= 0 || text[0] == '+') {
    return std::nullopt;
  }
  return id;
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

void reply_text(httplib::Response& res, int status, const std::string& body) {
  res.status = status;
  res.set_content(body, "text/plain");
}

std::string stamp_key(const service_options& o) {
  return o.filter_name + ":cache_guard";
}

// Progress lines at every 10% of a scan ("loading filter: 400000/1000000 ids (40%)").
class progress {
 public:
  progress(const char* verb, std::uint64_t total) : verb_(verb), total_(total) {}
  void advance(std::uint64_t n) {
    done_ += n;
    const std::uint64_t percent =
        total_ == 0 ? 100 : std::min<std::uint64_t>(done_ * 100 / total_, 100);
    if (static_cast<int>(percent / 10) > last_tenth_) {
      last_tenth_ = static_cast<int>(percent / 10);
      std::fprintf(stderr, "%s: %llu/%llu ids (%llu%%)\n", verb_,
                   static_cast<unsigned long long>(done_), static_cast<unsigned long long>(total_),
                   static_cast<unsigned long long>(percent));
    }
  }

 private:
  const char* verb_;
  std::uint64_t total_;
  std::uint64_t done_ = 0;
  int last_tenth_ = -1;
};

// Errors that say the filter is missing or broken (rather than Redis being unreachable or
// busy): a reload recreates it.
bool filter_is_broken(errc code) {
  return code == errc::not_found || code == errc::wrong_type || code == errc::incompatible ||
         code == errc::corrupt_file;  // a corrupt meta
}

// Removes what is left of the service's filter so that a create starts clean: its stamp, and
// every key of the filter through redis_filter::drop (meta, shards, and orphan shards that a
// write through a stale handle or an interrupted create left without a meta). drop refuses a
// meta that is not a hash (errc::wrong_type) rather than guess; the service owns the name, so it
// removes that meta first.
void discard_filter(client& c, const service_options& o) {
  const auto unlink = [&](const std::string& key) {
    const auto r = c.execute({{"UNLINK", key}});
    if (r.is_error()) {
      throw bloomkit::error(errc::server_error,
                            "removing what is left of filter " + o.filter_name + ": " + r.str());
    }
  };
  unlink(stamp_key(o));
  const auto drop = [&] {
    try {
      redis_filter::drop(c, o.filter_name);
    } catch (const bloomkit::error& e) {
      if (e.code() != errc::not_found) throw;  // nothing left: a clean start already
    }
  };
  try {
    drop();
  } catch (const bloomkit::error& e) {
    if (e.code() != errc::wrong_type) throw;
    unlink(o.filter_name + ":meta");
    drop();
  }
}

double seconds_since(clock::time_point start) {
  return std::chrono::duration<double>(clock::now() - start).count();
}

}  // namespace

item_store& worker::db() {
  if (!db_) db_.emplace(item_store::open(options_.db));
  return *db_;
}

client& worker::redis() {
  if (!redis_) redis_.emplace(client::connect(options_.redis_url, options_.redis_options));
  return *redis_;
}

redis_filter& worker::filter(std::uint64_t epoch) {
  if (!filter_ || filter_epoch_ != epoch) {
    filter_.reset();
    filter_.emplace(redis_filter::open(redis(), options_.filter_name));
    filter_epoch_ = epoch;
  }
  return *filter_;
}

std::unique_ptr<worker> worker_pool::take() {
  {
    std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      auto w = std::move(idle_.back());
      idle_.pop_back();
      return w;
    }
  }
  return std::make_unique<worker>(options_);  // connects outside the lock
}

void worker_pool::give_back(std::unique_ptr<worker> w) {
  std::lock_guard lock(mutex_);
  idle_.push_back(std::move(w));
}

service::service(service_options options)
    : options_(std::move(options)), pool_(options_), started_(std::chrono::steady_clock::now()) {
  load_filter();
  install_routes();
}

service::~service() {
  {
    std::lock_guard lock(stop_mutex_);
    stopping_.store(true);
  }
  stop_signal_.notify_all();
  std::lock_guard lock(reloader_mutex_);
  if (reloader_.joinable()) reloader_.join();
}

service::scan service::stream_ids(item_store& db, std::int64_t above, const char* verb,
                                  const key_sink& sink) {
  progress report(verb, db.count(above));
  report.advance(0);
  scan result{0, above};
  std::vector<std::string> ids;
  std::vector<std::string_view> keys;
  while (true) {
    db.ids_after(result.max_id, options_.load_batch, ids);
    if (ids.empty()) break;
    keys.assign(ids.begin(), ids.end());
    sink(keys);
    result.ids += ids.size();
    std::from_chars(ids.back().data(), ids.back().data() + ids.back().size(), result.max_id);
    report.advance(ids.size());
  }
  return result;
}

void service::write_stamp(bloomkit::redis::client& c, redis_filter& f, const item_store& db,
                          std::int64_t max_id) {
  const auto info = f.info();
  c.execute({{"HSET", stamp_key(options_), "source", db.location().describe(), "max_id",
              std::to_string(max_id), "created", std::to_string(info.created), "generation",
              std::to_string(info.generation)}});
}

void service::load_filter() {
  auto redis = client::connect(options_.redis_url, options_.redis_options);
  auto db = item_store::open(options_.db);
  db.require_table();
  const char* name = options_.filter_name.c_str();

  // Whatever is wrong with an existing filter (a meta of other parameters or broken, a missing
  // shard, orphan shards without a meta): start over rather than refuse to start.
  const auto recreate_because = [&](const bloomkit::error& e) {
    if (!filter_is_broken(e.code()) && e.code() != errc::already_exists) throw;
    std::fprintf(stderr, "filter %s cannot be used (%s): recreating it\n", name, e.what());
    recreate_filter(redis, db, "loading filter");
  };
  std::optional<redis_filter> existing;
  try {
    existing.emplace(options_.capacity != 0 ? redis_filter::open(redis, options_.filter_name,
                                                                 options_.capacity, options_.fpp)
                                            : redis_filter::open(redis, options_.filter_name));
  } catch (const bloomkit::error& e) {
    if (e.code() == errc::not_found) {
      recreate_filter(redis, db, "loading filter");
    } else {
      recreate_because(e);
    }
    return;
  }
  try {
    load_existing(redis, db, *existing);
  } catch (const bloomkit::error& e) {
    recreate_because(e);
  }
}

void service::load_existing(client& redis, item_store& db, redis_filter& f) {
  const std::string source = db.location().describe();
  const std::uint64_t rows = db.count();
  const char* name = options_.filter_name.c_str();
  if (rows > f.capacity()) {
    std::fprintf(stderr,
                 "warning: filter %s has capacity %llu but the database has %llu rows: its false "
                 "positive rate is above p (drop it, or pass a larger --capacity)\n",
                 name, static_cast<unsigned long long>(f.capacity()),
                 static_cast<unsigned long long>(rows));
  }
  // The stamp says which database, and which ids of it, this filter was loaded from.
  const auto stamp =
      redis.execute({{"HMGET", stamp_key(options_), "source", "max_id", "created", "generation"}});
  const auto info = f.info();
  const auto field = [&](std::size_t i) {
    const auto& e = stamp.elements()[i];
    return e.is_nil() ? std::string() : e.str();
  };
  const bool same = field(0) == source && field(2) == std::to_string(info.created) &&
                    field(3) == std::to_string(info.generation);
  const std::string loaded_up_to = field(1);
  std::int64_t max_id = 0;
  if (same &&
      std::from_chars(loaded_up_to.data(), loaded_up_to.data() + loaded_up_to.size(), max_id).ec ==
          std::errc()) {
    const std::uint64_t newer = db.count(max_id);
    if (newer == 0) {
      std::fprintf(stderr, "filter %s already holds every id of %s: skipping the load\n", name,
                   source.c_str());
      return;
    }
    std::fprintf(stderr, "filter %s holds the ids of %s up to %lld: loading the %llu newer ones\n",
                 name, source.c_str(), static_cast<long long>(max_id),
                 static_cast<unsigned long long>(newer));
    const scan s = stream_ids(db, max_id, "loading filter",
                              [&](std::span<const std::string_view> keys) { f.insert_many(keys); });
    write_stamp(redis, f, db, s.max_id);
    return;
  }
  std::fprintf(stderr, "filter %s exists but was not loaded from %s: rebuilding it\n", name,
               source.c_str());
  scan s;
  // The database is the source of truth: an empty table is an empty filter, not a failed export.
  f.rebuild([&](const key_sink& sink) { s = stream_ids(db, 0, "rebuilding filter", sink); },
            {.allow_empty = true});
  write_stamp(redis, f, db, s.max_id);
}

service::scan service::recreate_filter(client& redis, item_store& db, const char* verb) {
  const std::uint64_t capacity =
      options_.capacity != 0 ? options_.capacity : std::max<std::uint64_t>(2 * db.count(), 1000);
  discard_filter(redis, options_);
  auto f = redis_filter::create(redis, options_.filter_name, capacity, options_.fpp);
  std::fprintf(stderr, "created filter %s: capacity %llu, p %g, %llu bits, %u hashes\n",
               options_.filter_name.c_str(), static_cast<unsigned long long>(capacity),
               options_.fpp, static_cast<unsigned long long>(f.layout().total_bits()),
               f.layout().hashes);
  // Every row committed from here on is added by its POST /item through a handle of this filter
  // (it reads the epoch after its commit, and a new epoch makes workers reopen their handles);
  // every row committed before is in the scan below. Requests for a reload until now are served
  // by this one.
  epoch_.fetch_add(1);
  {
    std::lock_guard lock(reload_mutex_);
    reload_wanted_.store(false);
  }
  const std::uint64_t failures = insert_failures_.load();
  const scan s = stream_ids(db, 0, verb, [&](std::span<const std::string_view> keys) {
    if (stopping_.load()) throw std::runtime_error("stopping");
    f.insert_many(keys);
  });
  write_stamp(redis, f, db, s.max_id);
  failures_covered_.store(failures);
  return s;
}

bool service::redis_usable() const {
  return clock::now().time_since_epoch().count() >= redis_down_until_.load();
}

bool service::filter_trusted() const {
  return !filter_missing_.load() && insert_failures_.load() == failures_covered_.load() &&
         redis_usable();
}

service::verdict service::ask_filter(worker& w, const std::string& key) {
  if (!guard_enabled_.load(std::memory_order_relaxed)) return verdict::not_asked;
  const std::uint64_t epoch = epoch_.load();
  if (filter_trusted()) {
    try {
      if (w.filter(epoch).contains(key)) return verdict::maybe;
      // "Absent" counts only if no reload began replacing the filter meanwhile.
      if (epoch_.load() == epoch && filter_trusted()) return verdict::absent;
    } catch (const bloomkit::error& e) {
      w.forget_filter();
      redis_failed(e);
    } catch (const std::exception& e) {
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
  if (stopping_.load() || busy_.exchange(true)) return;
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
  } while (reload_wanted_.load() && !stopping_.load() && !busy_.exchange(true));
}

void service::wait_for_stop(std::chrono::milliseconds pause) {
  std::unique_lock lock(stop_mutex_);
  stop_signal_.wait_for(lock, pause, [this] { return stopping_.load(); });
}

void service::install_routes() {
  http_limits limits;
  limits.threads = std::max(1u, options_.threads);
  limits.request_timeout = options_.read_timeout;
  limits.keep_alive_timeout = options_.keep_alive_timeout;
  limits.max_connections = options_.max_connections;
  server_ = std::make_unique<http_server>(limits);

  // Runs `handle` with a worker; any exception is a 500 naming the problem, and the worker
  // (whose connections may be broken) is dropped.
  const auto with_worker = [this](const httplib::Request& req, httplib::Response& res,
                                  const auto& handle) {
    try {
      auto w = pool_.take();
      handle(*w);
      pool_.give_back(std::move(w));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "cache_guard: %s %s: %s\n", req.method.c_str(), req.path.c_str(),
                   e.what());
      reply_text(res, 500, std::string(e.what()) + "\n");
    }
  };

  server_->Get(
      R"(/item/([^/]+))", [this, with_worker](const httplib::Request& req, httplib::Response& res) {
        counters_.requests.fetch_add(1, std::memory_order_relaxed);
        const std::string text = req.matches[1];
        const auto id = parse_id(text);
        if (!id) {
          reply_text(res, 400, "bad id \"" + text + "\": expected a positive integer\n");
          return;
        }
        // The filter and cache key is the canonical form: /item/007 is item 7.
        const std::string key = std::to_string(*id);
        with_worker(req, res, [&](worker& w) {
          if (ask_filter(w, key) == verdict::absent) {
            // Definitely absent: neither the cache nor the database is asked.
            counters_.filter_rejections.fetch_add(1, std::memory_order_relaxed);
            reply_text(res, 404, "item " + key + " not found\n");
            return;
          }
          // The cache is an optimization: when Redis fails, the database answers.
          const std::string cache_key = "item:" + key;
          if (redis_usable()) {
            try {
              const auto cached = w.redis().execute({{"GET", cache_key}});
              if (cached.type() == bloomkit::redis::reply::kind::string) {
                counters_.cache_hits.fetch_add(1, std::memory_order_relaxed);
                reply_text(res, 200, cached.str());
                return;
              }
            } catch (const bloomkit::error& e) {
              redis_failed(e);
            }
          }
          counters_.db_queries.fetch_add(1, std::memory_order_relaxed);
          const auto value = w.db().find(*id);
          if (!value) {
            // Not cached: a flood of absent ids is what the filter stops, not the cache.
            counters_.db_not_found.fetch_add(1, std::memory_order_relaxed);
            reply_text(res, 404, "item " + key + " not found\n");
            return;
          }
          counters_.db_found.fetch_add(1, std::memory_order_relaxed);
          if (redis_usable()) {
            try {
              w.redis().execute(
                  {{"SET", cache_key, *value, "EX", std::to_string(options_.cache_ttl.count())}});
            } catch (const bloomkit::error& e) {
              redis_failed(e);
            }
          }
          reply_text(res, 200, *value);
        });
      });

  server_->Post("/item", [this, with_worker](const httplib::Request& req, httplib::Response& res) {
    counters_.requests.fetch_add(1, std::memory_order_relaxed);
    with_worker(req, res, [&](worker& w) {
      // The row first, then the filter: a committed row is never absent from the filter.
      const std::int64_t id = w.db().insert(req.body);
      const std::string key = std::to_string(id);
      // Read after the commit: see recreate_filter.
      const std::uint64_t epoch = epoch_.load();
      try {
        w.filter(epoch).insert(key);
      } catch (const std::exception& e) {
        w.forget_filter();
        const auto* redis_error = dynamic_cast<const bloomkit::error*>(&e);
        // The filter is gone: the reload this requests (or the one running) loads this row too.
        const bool gone = redis_error != nullptr && redis_error->code() == errc::not_found;
        if (!gone) insert_failures_.fetch_add(1);
        if (redis_error != nullptr) redis_failed(*redis_error);
        if (!gone) {
          // The row exists, so the filter must not be trusted until a reload has added it.
          request_reload("adding item " + key + " failed: " + e.what());
          throw std::runtime_error("item " + key +
                                   " is stored, but adding it to the filter failed (" + e.what() +
                                   "): lookups bypass the filter until it is reloaded");
        }
      }
      counters_.inserts.fetch_add(1, std::memory_order_relaxed);
      reply_text(res, 201, key + "\n");
    });
  });

  server_->Post(
      "/admin/rebuild", [this, with_worker](const httplib::Request& req, httplib::Response& res) {
        if (busy_.exchange(true)) {
          reply_text(res, 409, "a rebuild or a reload of the filter is running\n");
          return;
        }
        const std::uint64_t failures_before = insert_failures_.load();
        const auto started = clock::now();
        with_worker(req, res, [&](worker& w) {
          scan s;
          redis_filter* f = nullptr;
          try {
            f = &w.filter(epoch_.load());
            f->rebuild(
                [&](const key_sink& sink) { s = stream_ids(w.db(), 0, "rebuilding filter", sink); },
                {.allow_empty = true});  // an empty table is an empty filter
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
          res.set_content("{\"ids\": " + std::to_string(s.ids) +
                              ", \"generation\": " + std::to_string(f->generation()) +
                              ", \"seconds\": " + std::to_string(seconds) + "}\n",
                          "application/json");
        });
        busy_.store(false);
        if (reload_wanted_.load()) start_reloader();  // requested while this rebuild ran
      });

  server_->Post("/admin/guard", [this](const httplib::Request& req, httplib::Response& res) {
    const std::string value = req.get_param_value("enabled");
    if (value != "0" && value != "1") {
      reply_text(res, 400, "enabled must be 0 or 1\n");
      return;
    }
    guard_enabled_.store(value == "1");
    res.set_content(std::string("{\"guard_enabled\": ") + (value == "1" ? "true" : "false") + "}\n",
                    "application/json");
  });

  server_->Get("/stats", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(stats_json(), "application/json");
  });
}

std::string service::stats_json() const {
  const auto n = [](const std::atomic<std::uint64_t>& c) {
    return std::to_string(c.load(std::memory_order_relaxed));
  };
  const double uptime =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  char uptime_text[32];
  std::snprintf(uptime_text, sizeof uptime_text, "%.3f", uptime);
  char fpp_text[32];
  std::snprintf(fpp_text, sizeof fpp_text, "%g", options_.fpp);
  const auto flag = [](bool b) { return std::string(b ? "true" : "false"); };
  // guard: lookups ask the filter; bypass: it cannot be trusted now (missing or reloading, Redis
  // unreachable, an insert not in it yet): the database answers; off: the guard is switched off.
  const bool bypassed = !filter_trusted();
  const char* mode = !guard_enabled_.load() ? "off" : bypassed ? "bypass" : "guard";
  return "{\"requests\": " + n(counters_.requests) +
         ", \"filter_rejections\": " + n(counters_.filter_rejections) +
         ", \"cache_hits\": " + n(counters_.cache_hits) +
         ", \"db_queries\": " + n(counters_.db_queries) +
         ", \"db_found\": " + n(counters_.db_found) +
         ", \"db_not_found\": " + n(counters_.db_not_found) +
         ", \"inserts\": " + n(counters_.inserts) + ", \"rebuilds\": " + n(counters_.rebuilds) +
         ", \"guard_enabled\": " + (guard_enabled_.load() ? "true" : "false") +
         ", \"uptime\": " + uptime_text + ", \"filter\": " + json_string(options_.filter_name) +
         ", \"target_fpp\": " + fpp_text + ", \"filter_mode\": \"" + mode +
         "\", \"filter_bypassed\": " + flag(bypassed) +
         ", \"reloading\": " + flag(filter_missing_.load()) +
         ", \"filter_reloads\": " + n(counters_.filter_reloads) +
         ", \"bypassed_lookups\": " + n(counters_.bypassed_lookups) +
         ", \"redis_errors\": " + n(counters_.redis_errors) +
         ", \"refused_connections\": " + std::to_string(server_->refused_connections()) + "}\n";
}

int service::bind(const std::string& host, int port) {
  if (port == 0) {
    const int bound = server_->bind_to_any_port(host);
    if (bound < 0) throw std::runtime_error("cannot listen on " + host + ": no free port");
    return bound;
  }
  if (!server_->bind_to_port(host, port)) {
    throw std::runtime_error("cannot listen on " + host + ":" + std::to_string(port) +
                             " (in use, or not an address of this machine)");
  }
  return port;
}

void service::run() {
  server_->listen_after_bind();
}

void service::stop() {
  {
    std::lock_guard lock(stop_mutex_);
    stopping_.store(true);
  }
  stop_signal_.notify_all();
  server_->stop();
}

}  // namespace cache_guard
