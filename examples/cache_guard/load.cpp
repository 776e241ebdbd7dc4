// cache_guard_load: floods a running cache_guard with a mix of existing and random non-existent
// ids, once with the guard off and once with it on (switched through /admin/guard), and prints
// requests/s, database queries/s and the share of non-existent ids that reached the database
// (from /stats deltas). With --repeat-absent N, two more runs (guard on) repeat N absent ids,
// without and with negative caching (/admin/negative-cache); with --delete-share S, it then
// DELETEs that share of the rows and floods their ids, without and with negative caching.
// Exit 1 on any 5xx, connection failure or wrong answer.

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

namespace {

struct options {
  std::string url = "http://127.0.0.1:8080";
  unsigned threads = 4;
  double duration = 10;        // seconds per run
  std::uint64_t requests = 0;  // per run; 0: run for `duration`
  double existing_share = 0.5;
  std::uint64_t items = 0;          // existing ids are 1..items
  std::uint64_t seed = 0;           // 0: a random one (each run asks for other ids)
  std::uint64_t repeat_absent = 0;  // absent ids repeated in the negative-cache runs (0: none)
  double delete_share = 0;          // rows deleted before the last runs (0: none)
};

// One run: the guard and negative caching on or off; absent ids new random ones, or drawn from
// `absent_pool`; existing ids not in `deleted_every` (every n-th id deleted; 0: none).
struct run_spec {
  std::string label;
  bool guard = true;
  bool negative_cache = false;
  const std::vector<std::uint64_t>* absent_pool = nullptr;
  std::uint64_t deleted_every = 0;
};

// Non-existent ids: far above any seeded or inserted id, random so every one is new.
constexpr std::uint64_t absent_base = 1'000'000'000'000'000;

struct failure_log {
  std::atomic<std::uint64_t> count{0};
  std::mutex mutex;
  std::string first;
  void add(const std::string& what) {
    if (count.fetch_add(1) == 0) {
      std::lock_guard lock(mutex);
      first = what;
    }
  }
};

// The counters of GET /stats (a flat JSON object of numbers and booleans).
struct stats {
  std::uint64_t db_queries = 0, db_not_found = 0, filter_rejections = 0;
  bool guard_enabled = true;
  double target_fpp = 0;
};

std::string field(const std::string& json, const std::string& name) {
  const auto at = json.find("\"" + name + "\": ");
  if (at == std::string::npos)
    throw std::runtime_error("/stats has no field " + name + ": " + json);
  const auto start = at + name.size() + 4;
  return json.substr(start, json.find_first_of(",}", start) - start);
}

stats read_stats(httplib::Client& c) {
  const auto res = c.Get("/stats");
  if (!res || res->status != 200) throw std::runtime_error("GET /stats failed");
  stats s;
  s.db_queries = std::stoull(field(res->body, "db_queries"));
  s.db_not_found = std::stoull(field(res->body, "db_not_found"));
  s.filter_rejections = std::stoull(field(res->body, "filter_rejections"));
  s.guard_enabled = field(res->body, "guard_enabled") == "true";
  s.target_fpp = std::stod(field(res->body, "target_fpp"));
  return s;
}

void set_switch(httplib::Client& c, const char* path, bool on) {
  const auto res = c.Post(std::string(path) + (on ? "?enabled=1" : "?enabled=0"));
  if (!res || res->status != 200) throw std::runtime_error(std::string("POST ") + path + " failed");
}

struct run_result {
  std::uint64_t requests = 0, absent_sent = 0;
  double seconds = 0;
  stats before, after;
};

run_result flood(const options& o, httplib::Client& admin, const run_spec& spec,
                 failure_log& failures) {
  const bool guard = spec.guard;
  set_switch(admin, "/admin/guard", guard);
  set_switch(admin, "/admin/negative-cache", spec.negative_cache);
  run_result r;
  r.before = read_stats(admin);
  std::atomic<std::uint64_t> issued{0}, absent{0};
  const auto started = std::chrono::steady_clock::now();
  const auto deadline = started + std::chrono::duration<double>(o.duration);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < o.threads; ++t) {
    threads.emplace_back([&, t] {
      httplib::Client c(o.url);
      c.set_keep_alive(true);
      c.set_tcp_nodelay(true);
      c.set_read_timeout(30, 0);
      std::mt19937_64 rng(o.seed * 1000 + t + (guard ? 500 : 0));
      std::bernoulli_distribution existing(o.existing_share);
      while (true) {
        if (o.requests != 0 ? issued.fetch_add(1) >= o.requests
                            : std::chrono::steady_clock::now() >= deadline) {
          break;
        }
        if (o.requests == 0) issued.fetch_add(1);
        const bool real = existing(rng);
        std::uint64_t id = 0;
        if (real) {
          id = 1 + rng() % o.items;
          if (spec.deleted_every != 0 && id % spec.deleted_every == 0) --id;  // ids that stay
          if (id == 0) id = 1;
        } else if (spec.absent_pool != nullptr) {
          id = (*spec.absent_pool)[rng() % spec.absent_pool->size()];
        } else {
          id = absent_base + rng() % absent_base;
        }
        if (!real) absent.fetch_add(1);
        const std::string path = "/item/" + std::to_string(id);
        const auto res = c.Get(path);
        if (!res) {
          failures.add("GET " + path + ": " + httplib::to_string(res.error()));
        } else if (res->status >= 500) {
          failures.add("GET " + path + ": " + std::to_string(res->status) + " " + res->body);
        } else if (res->status != (real ? 200 : 404)) {
          failures.add("GET " + path + ": unexpected status " + std::to_string(res->status) +
                       (real ? " for an existing id" : " for a non-existent id"));
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  r.requests = o.requests != 0 ? std::min<std::uint64_t>(issued.load(), o.requests) : issued.load();
  r.absent_sent = absent.load();
  r.after = read_stats(admin);
  return r;
}

// DELETEs every `every`-th row (o.threads connections); returns their ids. A row already gone
// (an earlier flood) answers 404 and is still listed.
std::vector<std::uint64_t> delete_rows(const options& o, std::uint64_t every,
                                       failure_log& failures) {
  std::vector<std::uint64_t> ids;
  for (std::uint64_t id = every; id <= o.items; id += every) ids.push_back(id);
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < o.threads; ++t) {
    threads.emplace_back([&] {
      httplib::Client c(o.url);
      c.set_keep_alive(true);
      c.set_read_timeout(30, 0);
      for (std::size_t i = next.fetch_add(1); i < ids.size(); i = next.fetch_add(1)) {
        const std::string path = "/item/" + std::to_string(ids[i]);
        const auto res = c.Delete(path);
        if (!res || (res->status != 200 && res->status != 404)) {
          failures.add("DELETE " + path + ": " +
                       (res ? std::to_string(res->status) : httplib::to_string(res.error())));
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  return ids;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Floods a running cache_guard with existing and non-existent ids, with the guard off and "
      "then on, and prints the database load of each run.",
      "cache_guard_load"};
  options o;
  // A repeated option overrides the earlier one (flood passes defaults before the user's).
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.add_option("--url", o.url, "the service")->capture_default_str();
  app.add_option("--threads", o.threads, "concurrent connections (at most the service's --threads)")
      ->capture_default_str()
      ->check(CLI::Range(1, 256));
  app.add_option("--duration", o.duration, "seconds per run")
      ->capture_default_str()
      ->check(CLI::Range(0.1, 86400.0));
  app.add_option("--requests", o.requests, "requests per run (instead of --duration)");
  app.add_option("--existing-share", o.existing_share, "share of requests for existing ids")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--items", o.items, "existing ids are 1..N (as seeded)")
      ->required()
      ->check(CLI::Range(std::uint64_t{1}, absent_base - 1));
  app.add_option("--seed", o.seed, "random seed (default: a random one)");
  app.add_option("--repeat-absent", o.repeat_absent,
                 "two more runs (guard on) whose absent ids repeat N ids, without and with "
                 "negative caching");
  app.add_option("--delete-share", o.delete_share,
                 "then DELETE this share of the rows (0.1: every 10th id) and flood their ids, "
                 "without and with negative caching")
      ->check(CLI::Range(0.0, 0.5));
  CLI11_PARSE(app, argc, argv);

  if (o.seed == 0) o.seed = std::random_device{}() | 1u;
  try {
    httplib::Client admin(o.url);
    admin.set_read_timeout(30, 0);
    // Also the first request of the process, from this thread, before the flood threads start
    // (cpp-httplib's client initializes a static on its first response).
    const stats initial = read_stats(admin);
    failure_log failures;
    // The first two runs compare the guard alone (negative caching off: every absent id is new).
    std::vector<run_spec> specs = {{"off", false}, {"on", true}};
    std::vector<std::uint64_t> repeated, gone;  // the absent ids of the later runs
    std::mt19937_64 rng(o.seed);
    for (std::uint64_t i = 0; i < o.repeat_absent; ++i) {
      repeated.push_back(absent_base + rng() % absent_base);
    }
    if (!repeated.empty()) {
      specs.push_back(
          {"on, " + std::to_string(repeated.size()) + " repeated", true, false, &repeated});
      specs.push_back({"  + negative cache", true, true, &repeated});
    }
    std::vector<run_result> results;
    for (const auto& spec : specs) results.push_back(flood(o, admin, spec, failures));
    if (o.delete_share > 0) {
      const auto every = static_cast<std::uint64_t>(std::llround(1 / o.delete_share));
      const auto started = std::chrono::steady_clock::now();
      const auto deleted = delete_rows(o, every, failures);
      std::printf(
          "deleted %zu rows (every %llu-th id) in %.1f s\n", deleted.size(),
          static_cast<unsigned long long>(every),
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
      gone = deleted;
      specs.push_back({"on, deleted ids", true, false, &gone, every});
      specs.push_back({"  + negative cache", true, true, &gone, every});
      for (std::size_t i = specs.size() - 2; i < specs.size(); ++i) {
        results.push_back(flood(o, admin, specs[i], failures));
      }
    }
    set_switch(admin, "/admin/guard", initial.guard_enabled);
    set_switch(admin, "/admin/negative-cache", true);

    char run_length[64];
    if (o.requests != 0) {
      std::snprintf(run_length, sizeof run_length, "%llu requests",
                    static_cast<unsigned long long>(o.requests));
    } else {
      std::snprintf(run_length, sizeof run_length, "%g s", o.duration);
    }
    std::printf(
        "cache_guard_load: %s, %u threads, %s per run, %.0f%% existing ids (1..%llu), "
        "target p %g\n",
        o.url.c_str(), o.threads, run_length, o.existing_share * 100,
        static_cast<unsigned long long>(o.items), initial.target_fpp);
    std::printf("%-20s %10s %11s %13s %18s %11s %8s\n", "guard", "requests", "requests/s",
                "DB queries/s", "non-existent sent", "reached DB", "share");
    for (std::size_t i = 0; i < results.size(); ++i) {
      const run_result* r = &results[i];
      const std::uint64_t queries = r->after.db_queries - r->before.db_queries;
      const std::uint64_t reached = r->after.db_not_found - r->before.db_not_found;
      std::printf("%-20s %10llu %11.1f %13.1f %18llu %11llu %7.2f%%\n", specs[i].label.c_str(),
                  static_cast<unsigned long long>(r->requests), r->requests / r->seconds,
                  queries / r->seconds, static_cast<unsigned long long>(r->absent_sent),
                  static_cast<unsigned long long>(reached),
                  r->absent_sent
                      ? 100.0 * static_cast<double>(reached) / static_cast<double>(r->absent_sent)
                      : 0.0);
    }
    if (failures.count.load() != 0) {
      std::fprintf(stderr, "cache_guard_load: error: %llu failed requests; first: %s\n",
                   static_cast<unsigned long long>(failures.count.load()), failures.first.c_str());
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cache_guard_load: error: %s\n", e.what());
    return 1;
  }
}
