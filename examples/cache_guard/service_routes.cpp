// The service's HTTP handlers: GET /item/{id}, POST /item, POST /admin/rebuild,
// POST /admin/guard and GET /stats (README.md, "The service"); serving an item and DELETE are
// service_items.cpp.
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
std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
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

  server_->Get(R"(/item/([^/]+))",
               [this, with_worker](const httplib::Request& req, httplib::Response& res) {
                 counters_.requests.fetch_add(1, std::memory_order_relaxed);
                 const auto id = item_id(req, res);
                 if (!id) return;
                 // The filter and cache key is the canonical form: /item/007 is item 7.
                 const std::string key = std::to_string(*id);
                 with_worker(req, res, [&](worker& w) { serve_item(w, *id, key, res); });
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
        // A native cuckoo filter with no room: the row is stored and lookups bypass the filter
        // until the reload (at twice the rows) has added it, so the POST succeeded.
        const bool full = redis_error != nullptr && redis_error->code() == errc::too_large;
        if (!gone) insert_failures_.fetch_add(1);
        if (redis_error != nullptr) redis_failed(*redis_error);
        if (full) cuckoo_full_.store(true);
        if (full) request_reload("adding item " + key + ": " + e.what());
        if (!gone && !full) {
          // The row exists, so the filter must not be trusted until a reload has added it.
          request_reload("adding item " + key + " failed: " + e.what());
          throw std::runtime_error("item " + key +
                                   " is stored, but adding it to the filter failed (" + e.what() +
                                   "): lookups bypass the filter until it is reloaded");
        }
      }
      counters_.inserts.fetch_add(1, std::memory_order_relaxed);
      // The id may have been cached as absent (asked before it existed, or deleted before: SQLite
      // reuses the largest id): that entry goes before the POST answers.
      try {
        w.redis().execute({{"DEL", absent_key(key)}});
      } catch (const bloomkit::error& e) {
        redis_failed(e);
        throw std::runtime_error("item " + key + " is stored, but its negative cache entry " +
                                 absent_key(key) + " could not be removed (" + e.what() +
                                 "): it may answer 404 until it expires");
      }
      reply_text(res, 201, key + "\n");
    });
  });

  server_->Post(
      "/admin/rebuild", [this, with_worker](const httplib::Request& req, httplib::Response& res) {
        if (!claim_busy()) {
          reply_text(res, 409, "a rebuild or a reload of the filter is running\n");
          return;
        }
        with_worker(req, res,
                    [&](worker& w) { res.set_content(rebuild_filter(w), "application/json"); });
        busy_.store(false);
        if (reload_wanted_.load()) start_reloader();  // requested while this rebuild ran
      });

  install_delete_route();

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

  server_->Post("/admin/negative-cache",
                [this](const httplib::Request& req, httplib::Response& res) {
                  const std::string value = req.get_param_value("enabled");
                  if (value != "0" && value != "1") {
                    reply_text(res, 400, "enabled must be 0 or 1\n");
                    return;
                  }
                  negative_cache_enabled_.store(value == "1");
                  res.set_content(std::string("{\"negative_cache_enabled\": ") +
                                      (value == "1" ? "true" : "false") + "}\n",
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
         ", \"negative_cache_hits\": " + n(counters_.negative_cache_hits) +
         ", \"deletes\": " + n(counters_.deletes) +
         ", \"filter_removes\": " + n(counters_.filter_removes) +
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
