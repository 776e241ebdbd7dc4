// bloomkit_redis_static_bench: a static generation in Redis (redis_static_filter) against the
// native filter (redis_filter) for the same keys at the same p: lookups per second and
// redis-server CPU per key (batches of 1000 keys, present keys and strangers), and the Redis
// memory each takes (MEMORY USAGE of every key of the filter, summed).
//
//   native   redis_filter::create(n, p), insert_many of the n keys, then contains_many
//   static   redis_static_filter::rebuild of the n keys (no delta), then contains_many
//   delta    the same with a delta of n/100 keys, n/100 more keys inserted into it: lookups
//            read the tables and the delta in one round trip
//
//   bloomkit_redis_static_bench --url redis://127.0.0.1:6379 [--keys 1000000] [--fpp 0.01]
//                               [--rounds 3] [--methods native,static,delta]
// Output: one JSON object per line and measurement (bench/redis/run_static summarises).

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "bench_keys.hpp"
#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/redis/static_filter.hpp"
#include "redis_measure.hpp"

namespace {

using namespace bloomkit;
using bench::measure;
using bench::measurement;

constexpr std::size_t batch = 1000;

struct options {
  std::string url = "redis://127.0.0.1:6379";
  std::size_t keys = 1000000;
  double fpp = 0.01;
  int rounds = 3;
  std::string methods = "native,static,delta";
};

// MEMORY USAGE of every key NAME:* (a benchmark's own server: KEYS is fine here).
long long memory_of(redis::client& c, const std::string& name) {
  const redis::reply keys = c.execute(redis::command{{"KEYS", name + ":*"}, 1});
  std::vector<redis::command> cs;
  for (const auto& k : keys.elements()) {
    cs.push_back(redis::command{{"MEMORY", "USAGE", k.str(), "SAMPLES", "0"}, 2});
  }
  long long total = 0;
  for (const auto& r : c.execute_many(cs)) total += r.integer();
  return total;
}

template <class Filter>
measurement lookups(redis::client& c, Filter& f, std::span<const std::string_view> keys) {
  return measure(c, [&] {
    std::size_t present = 0;
    bool results[batch];
    for (std::size_t i = 0; i < keys.size(); i += batch) {
      const std::size_t n = std::min(batch, keys.size() - i);
      present += f.contains_many(keys.subspan(i, n), {results, n});
    }
    return present;
  });
}

void report(const char* method, const char* op, int round, std::size_t keys, const measurement& m,
            long long memory) {
  std::printf(
      "{\"method\": \"%s\", \"op\": \"%s\", \"round\": %d, \"keys\": %zu, \"seconds\": %.6f, "
      "\"server_cpu_seconds\": %.6f, \"keys_per_second\": %.1f, "
      "\"cpu_seconds_per_million_keys\": %.4f, \"client_cpu_seconds_per_million_keys\": %.4f, "
      "\"positive\": %zu, \"memory_bytes\": %lld}\n",
      method, op, round, keys, m.seconds, m.cpu, keys / m.seconds, m.cpu / keys * 1e6,
      m.client_cpu / keys * 1e6, m.positive, memory);
  std::fflush(stdout);
}

template <class Filter>
void measure_lookups(redis::client& c, Filter& f, const char* method, int round,
                     const bench::key_set& hits, const bench::key_set& misses,
                     const std::string& name) {
  const long long memory = memory_of(c, name);
  report(method, "hits", round, hits.keys().size(), lookups(c, f, hits.keys()), memory);
  report(method, "misses", round, misses.keys().size(), lookups(c, f, misses.keys()), memory);
}

void run(redis::client& c, const options& o, const std::string& method, int round,
         const bench::key_set& keys, const bench::key_set& misses) {
  const std::string name = "bench:" + method + ":" + std::to_string(round);
  if (method == "native") {
    auto f = redis::redis_filter::create(c, name, o.keys, o.fpp);
    bench::insert_all(f, keys.keys(), batch);
    f.flush();
    measure_lookups(c, f, "native", round, keys, misses, name);
    f.drop();
    return;
  }
  redis::static_rebuild_options so;
  so.fpp = o.fpp;
  const bool delta = method == "delta";
  const std::size_t delta_keys = delta ? o.keys / 100 : 0;
  so.delta_capacity = delta_keys;
  const auto all = keys.keys();
  const auto base = all.subspan(0, all.size() - delta_keys);
  auto f = redis::redis_static_filter::rebuild(c, name, base, so);
  if (delta) bench::insert_all(f, all.subspan(base.size()), batch);
  f.flush();
  measure_lookups(c, f, delta ? "delta" : "static", round, keys, misses, name);
  redis::redis_filter::drop(c, name);
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const char* v = argv[i + 1];
    if (flag == "--url") {
      o.url = v;
    } else if (flag == "--keys") {
      o.keys = static_cast<std::size_t>(std::atof(v));
    } else if (flag == "--fpp") {
      o.fpp = std::atof(v);
    } else if (flag == "--rounds") {
      o.rounds = std::atoi(v);
    } else if (flag == "--methods") {
      o.methods = v;
    } else {
      std::fprintf(stderr, "unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  try {
    auto c = redis::client::connect(o.url);
    const auto keys = bench::make_insert_keys(o.keys);
    const auto misses = bench::make_miss_queries(o.keys);
    for (int round = 0; round < o.rounds; ++round) {
      // A new order every round: no method always runs on a warmer server.
      std::vector<std::string> methods;
      for (const char* m : {"native", "static", "delta"}) {
        if (("," + o.methods + ",").find(std::string(",") + m + ",") != std::string::npos) {
          methods.emplace_back(m);
        }
      }
      std::rotate(methods.begin(), methods.begin() + round % methods.size(), methods.end());
      for (const auto& m : methods) run(c, o, m, round, keys, misses);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bloomkit_redis_static_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
