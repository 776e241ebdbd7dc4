// cache_guard: the cache-penetration guard example (README.md).
//   cache_guard [--db sqlite:PATH | postgres://...] [--redis URL] [--listen HOST:PORT] ...
//   (without --redis: $BLOOMKIT_REDIS_URL, else redis://127.0.0.1:6379; the password of a URL
//   without one: $REDISCLI_AUTH)
//   cache_guard seed --db ... --items N [--replace]

#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>

#include "bloomkit/redis/url.hpp"
#include "item_store.hpp"
#include "service.hpp"

namespace {

using namespace cache_guard;

// "HOST:PORT" (port 0: any free port).
std::pair<std::string, int> parse_listen(const std::string& text) {
  const auto colon = text.rfind(':');
  int port = -1;
  if (colon != std::string::npos && colon > 0) {
    try {
      std::size_t used = 0;
      port = std::stoi(text.substr(colon + 1), &used);
      if (used != text.size() - colon - 1) port = -1;
    } catch (const std::exception&) {
    }
  }
  if (port < 0 || port > 65535) {
    throw std::runtime_error("--listen \"" + text + "\": expected HOST:PORT (port 0-65535)");
  }
  return {text.substr(0, colon), port};
}

// "90s", "30m", "6h", "1d" or plain seconds; at least one second.
std::chrono::seconds parse_duration(const std::string& text, const char* option) {
  std::size_t used = 0;
  long long n = -1;
  try {
    n = std::stoll(text, &used);
  } catch (const std::exception&) {
  }
  const std::string unit = text.substr(std::min(used, text.size()));
  const long long scale = unit.empty() || unit == "s" ? 1
                          : unit == "m"               ? 60
                          : unit == "h"               ? 3600
                          : unit == "d"               ? 86400
                                                      : 0;
  if (n < 1 || scale == 0 || text[0] == '+' || n > 100'000'000'000LL / scale) {
    throw std::runtime_error(std::string(option) + " \"" + text +
                             "\": expected a duration of at least 1 s such as 90s, 30m, 6h or 1d");
  }
  return std::chrono::seconds(n * scale);
}

int serve(service_options options, const std::string& listen) {
  const auto [host, port] = parse_listen(listen);
  // SIGINT / SIGTERM go to one thread that stops the server, so the process exits cleanly.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  service svc(std::move(options));
  const int bound = svc.bind(host, port);
  std::fprintf(stderr, "listening on http://%s:%d\n", host.c_str(), bound);
  std::mutex run_mutex;
  std::condition_variable run_ended;
  bool running = true;
  std::thread stopper([&] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    // httplib's stop() does nothing before its accept loop has started, so a signal that comes
    // right after "listening on" is repeated until run() has returned.
    std::unique_lock lock(run_mutex);
    do {
      svc.stop();
    } while (!run_ended.wait_for(lock, std::chrono::milliseconds(50), [&] { return !running; }));
  });
  svc.run();
  {
    std::lock_guard lock(run_mutex);
    running = false;
  }
  run_ended.notify_all();
  ::kill(::getpid(), SIGTERM);  // wakes the stopper if the server ended by itself
  stopper.join();
  std::fprintf(stderr, "stopped\n");
  return 0;
}

int seed(const std::string& db, std::uint64_t items, bool replace) {
  const auto started = std::chrono::steady_clock::now();
  auto store = item_store::open(parse_db_location(db), /*create=*/true);
  store.seed(items, replace);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("seeded %llu items into %s in %.3f s\n", static_cast<unsigned long long>(items),
              store.location().describe().c_str(), seconds);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  ::signal(SIGPIPE, SIG_IGN);  // a client that hangs up must not kill the service
  CLI::App app{
      "HTTP service of items in SQLite or PostgreSQL, cached in Redis, with a bloomkit Redis "
      "filter of every existing id in front of both (the cache-penetration guard).",
      "cache_guard"};
  std::string db = "sqlite:cache_guard.db";
  std::string listen = "127.0.0.1:8080";
  service_options o;
  std::uint64_t ttl = 300;
  app.add_option("--db", db, "sqlite:PATH or PATH (SQLite), or postgres://... (PostgreSQL)")
      ->capture_default_str();
  std::optional<std::string> redis_url;
  app.add_option("--redis", redis_url,
                 "Redis URL, redis://, redis-cluster:// or redis-sentinel://...; rediss... for "
                 "TLS (default: $BLOOMKIT_REDIS_URL, else redis://127.0.0.1:6379); a URL without "
                 "a password takes $REDISCLI_AUTH");
  bloomkit::redis::tls_options tls;
  app.add_option("--tls-ca", tls.ca_file, "With rediss...: PEM file of the CA to trust");
  app.add_option("--tls-cert", tls.cert_file, "With rediss...: client certificate (PEM)");
  app.add_option("--tls-key", tls.key_file, "With --tls-cert: its private key (PEM)");
  app.add_option("--tls-server-name", tls.server_name,
                 "With rediss...: the name the server's certificate must carry");
  app.add_option("--listen", listen, "HOST:PORT to serve on (port 0: any free port)")
      ->capture_default_str();
  app.add_option("--filter-name", o.filter_name, "name of the Redis filter")->capture_default_str();
  app.add_option("--filter", o.filter_kind,
                 "counting (DELETE removes ids from the filter), cuckoo (the same in a cuckoo "
                 "filter in the server: the bloomkit module's native kind, about a third of the "
                 "memory, or RedisBloom's CF.* commands), bloom (deleted ids stay in it until a "
                 "rebuild: --rebuild-every) or "
                 "static (a static generation of the ids with a delta for new ones; "
                 "--rebuild-every folds them in)")
      ->check(CLI::IsMember({"counting", "cuckoo", "bloom", "static"}))
      ->capture_default_str();
  std::uint64_t negative_ttl = 30;
  app.add_option("--negative-ttl", negative_ttl,
                 "seconds an id that passes the filter but is not in the database is cached as "
                 "absent (0: not cached)")
      ->capture_default_str()
      ->check(CLI::Range(0, 100'000'000));
  std::string rebuild_every;
  app.add_option("--rebuild-every", rebuild_every,
                 "rebuild the filter from the database this often (e.g. 30m, 6h, 90s; with "
                 "--filter bloom it drops deleted ids)");
  app.add_option("--capacity", o.capacity,
                 "filter capacity when creating it (default: 2 x the database's rows)");
  app.add_option("--p", o.fpp, "target false-positive probability when creating the filter")
      ->capture_default_str()
      ->check(CLI::Range(1e-9, 0.5));
  app.add_option("--cache-ttl", ttl, "seconds an item stays in the Redis cache")
      ->capture_default_str()
      ->check(CLI::Range(1, 100'000'000));
  app.add_option("--threads", o.threads, "HTTP worker threads")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  // Limits against slow clients (slowloris) and too many connections (http_server.hpp).
  double read_timeout = 5, keep_alive_timeout = 5;
  app.add_option("--read-timeout", read_timeout,
                 "seconds within which a whole request must arrive (and a reply be sent)")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 3600.0));
  app.add_option("--keep-alive-timeout", keep_alive_timeout,
                 "seconds an idle keep-alive connection waits for its next request")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 3600.0));
  app.add_option("--max-connections", o.max_connections,
                 "connections open at once (served or waiting for a thread); more get 503")
      ->capture_default_str()
      ->check(CLI::Range(1, 1'000'000));

  auto* seed_cmd = app.add_subcommand("seed", "create the items table with rows 1..N");
  std::string seed_db;
  std::uint64_t items = 0;
  bool replace = false;
  seed_cmd->add_option("--db", seed_db, "sqlite:PATH or PATH, or postgres://...")->required();
  seed_cmd->add_option("--items", items, "rows to create (values item-<id>)")->required();
  seed_cmd->add_flag("--replace", replace, "drop an existing items table first");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::fprintf(stderr, "cache_guard: error: %s\nRun 'cache_guard --help' for usage.\n", e.what());
    return 2;
  }

  try {
    if (seed_cmd->parsed()) return seed(seed_db, items, replace);
    o.redis_url = bloomkit::redis::settings_from_environment(redis_url).url;
    o.redis_options.tls = tls;
    o.db = parse_db_location(db);
    o.cache_ttl = std::chrono::seconds(ttl);
    o.negative_ttl = std::chrono::seconds(negative_ttl);
    if (!rebuild_every.empty()) o.rebuild_every = parse_duration(rebuild_every, "--rebuild-every");
    const auto to_ms = [](double s) { return std::chrono::milliseconds(std::llround(s * 1000)); };
    o.read_timeout = to_ms(read_timeout);
    o.keep_alive_timeout = to_ms(keep_alive_timeout);
    return serve(std::move(o), listen);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cache_guard: error: %s\n", e.what());
    return 1;
  }
}
