#include "service.hpp"

#include <httplib.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <optional>

#include "bloomkit/error.hpp"

namespace cache_guard {

namespace {

using bloomkit::redis::key_sink;
using bloomkit::redis::redis_filter;

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

}  // namespace

worker::worker(const service_options& o)
    : options(o),
      redis(bloomkit::redis::client::connect(o.redis_url)),
      filter(redis_filter::open(redis, o.filter_name)) {}

item_store& worker::db() {
  if (!db_) db_.emplace(item_store::open(options.db));
  return *db_;
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

service::~service() = default;

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
  using bloomkit::errc;
  auto redis = bloomkit::redis::client::connect(options_.redis_url);
  auto db = item_store::open(options_.db);
  db.require_table();
  const std::string source = db.location().describe();
  const std::uint64_t rows = db.count();
  const char* name = options_.filter_name.c_str();

  std::optional<redis_filter> existing;
  try {
    existing.emplace(options_.capacity != 0 ? redis_filter::open(redis, options_.filter_name,
                                                                 options_.capacity, options_.fpp)
                                            : redis_filter::open(redis, options_.filter_name));
  } catch (const bloomkit::error& e) {
    if (e.code() != errc::not_found) throw;
  }

  if (!existing) {
    const std::uint64_t capacity =
        options_.capacity != 0 ? options_.capacity : std::max<std::uint64_t>(2 * rows, 1000);
    auto f = redis_filter::create(redis, options_.filter_name, capacity, options_.fpp);
    std::fprintf(stderr, "created filter %s: capacity %llu, p %g, %llu bits, %u hashes\n", name,
                 static_cast<unsigned long long>(capacity), options_.fpp,
                 static_cast<unsigned long long>(f.layout().total_bits()), f.layout().hashes);
    const scan s = stream_ids(db, 0, "loading filter",
                              [&](std::span<const std::string_view> keys) { f.insert_many(keys); });
    write_stamp(redis, f, db, s.max_id);
    return;
  }

  redis_filter& f = *existing;
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
  f.rebuild([&](const key_sink& sink) { s = stream_ids(db, 0, "rebuilding filter", sink); });
  write_stamp(redis, f, db, s.max_id);
}

void service::install_routes() {
  server_ = std::make_unique<httplib::Server>();
  const unsigned threads = std::max(1u, options_.threads);
  server_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  // A load generator keeps its connections: no reconnect every 5 requests.
  server_->set_keep_alive_max_count(1'000'000);
  server_->set_tcp_nodelay(true);  // small replies: no Nagle / delayed-ACK stalls

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
          const bool use_filter = guard_enabled_.load(std::memory_order_relaxed) &&
                                  insert_failures_.load() == failures_covered_.load();
          if (use_filter && !w.filter.contains(key)) {
            // Definitely absent: neither the cache nor the database is asked.
            counters_.filter_rejections.fetch_add(1, std::memory_order_relaxed);
            reply_text(res, 404, "item " + key + " not found\n");
            return;
          }
          const std::string cache_key = "item:" + key;
          const auto cached = w.redis.execute({{"GET", cache_key}});
          if (cached.type() == bloomkit::redis::reply::kind::string) {
            counters_.cache_hits.fetch_add(1, std::memory_order_relaxed);
            reply_text(res, 200, cached.str());
            return;
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
          w.redis.execute(
              {{"SET", cache_key, *value, "EX", std::to_string(options_.cache_ttl.count())}});
          reply_text(res, 200, *value);
        });
      });

  server_->Post("/item", [this, with_worker](const httplib::Request& req, httplib::Response& res) {
    counters_.requests.fetch_add(1, std::memory_order_relaxed);
    with_worker(req, res, [&](worker& w) {
      // The row first, then the filter: a committed row is never absent from the filter.
      const std::int64_t id = w.db().insert(req.body);
      const std::string key = std::to_string(id);
      try {
        w.filter.insert(key);
      } catch (const std::exception& e) {
        // The row exists, so the filter must not be trusted until a rebuild has added it.
        insert_failures_.fetch_add(1);
        throw std::runtime_error("item " + key +
                                 " is stored, but adding it to the filter failed (" + e.what() +
                                 "): lookups bypass the filter until the next rebuild");
      }
      counters_.inserts.fetch_add(1, std::memory_order_relaxed);
      reply_text(res, 201, key + "\n");
    });
  });

  server_->Post(
      "/admin/rebuild", [this, with_worker](const httplib::Request& req, httplib::Response& res) {
        if (rebuilding_.exchange(true)) {
          reply_text(res, 409, "a rebuild is running\n");
          return;
        }
        const std::uint64_t failures_before = insert_failures_.load();
        const auto started = std::chrono::steady_clock::now();
        with_worker(req, res, [&](worker& w) {
          scan s;
          w.filter.rebuild(
              [&](const key_sink& sink) { s = stream_ids(w.db(), 0, "rebuilding filter", sink); });
          write_stamp(w.redis, w.filter, w.db(), s.max_id);
          failures_covered_.store(failures_before);
          counters_.rebuilds.fetch_add(1, std::memory_order_relaxed);
          const double seconds =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
          std::fprintf(stderr, "rebuilt filter %s: %llu ids, generation %llu, %.3f s\n",
                       options_.filter_name.c_str(), static_cast<unsigned long long>(s.ids),
                       static_cast<unsigned long long>(w.filter.generation()), seconds);
          res.set_content("{\"ids\": " + std::to_string(s.ids) +
                              ", \"generation\": " + std::to_string(w.filter.generation()) +
                              ", \"seconds\": " + std::to_string(seconds) + "}\n",
                          "application/json");
        });
        rebuilding_.store(false);
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
  return "{\"requests\": " + n(counters_.requests) +
         ", \"filter_rejections\": " + n(counters_.filter_rejections) +
         ", \"cache_hits\": " + n(counters_.cache_hits) +
         ", \"db_queries\": " + n(counters_.db_queries) +
         ", \"db_found\": " + n(counters_.db_found) +
         ", \"db_not_found\": " + n(counters_.db_not_found) +
         ", \"inserts\": " + n(counters_.inserts) + ", \"rebuilds\": " + n(counters_.rebuilds) +
         ", \"guard_enabled\": " + (guard_enabled_.load() ? "true" : "false") +
         ", \"uptime\": " + uptime_text + ", \"filter\": " + json_string(options_.filter_name) +
         ", \"target_fpp\": " + fpp_text + "}\n";
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
  server_->stop();
}

}  // namespace cache_guard
