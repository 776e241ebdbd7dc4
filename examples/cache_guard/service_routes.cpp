// The service's HTTP handlers: GET /item/{id}, POST /item, POST /admin/rebuild,
// POST /admin/guard and GET /stats (README.md, "The service").
#include "service.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <optional>
#include <string_view>

#include "bloomkit/error.hpp"
#include "http_server.hpp"
#include "service_support.hpp"

namespace cache_guard {

namespace {

using bloomkit::errc;
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

}  // namespace

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

}  // namespace cache_guard
