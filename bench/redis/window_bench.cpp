// bloomkit_redis_window_bench: keys per second and redis-server CPU per key of a window filter
// in Redis (redis_window_filter) against the native Redis filter (redis_filter), on the same
// server, the same URL-like keys (bench/bench_keys.hpp) and the same batches, in one run:
//
//   native        redis_filter sized for --capacity keys at --fpp
//   window        redis_window_filter of --capacity keys per --window seconds in --slices slices,
//                 the words format (one GET i64 per key and live slice)
//   window-bits   the same in the bits format (what bloomkit made before words; k GET u1 per key
//                 and live slice). Not in the default --methods: it is about 10x slower.
//
// Each round makes every method's filter afresh, in an order shuffled per round, and times
//   add      insert_many of --keys new keys (batches of --batch)
//   hits     contains_many of the same keys
//   misses   contains_many of --keys keys never inserted
//   record_many window filters only: record_many (no "new" answer) of the misses' keys, after them
// The window's clock is fixed inside one slice, ahead of the server's clock (slices expire by it),
// and its older live slices are filled beforehand (untimed) with --filler keys each, so every
// slice a lookup reads exists. Server CPU is used_cpu_sys + used_cpu_user (INFO CPU) before and
// after. Output: one JSON object per line; bench/redis/run_window starts a server, runs it and
// prints medians.
//
//   bloomkit_redis_window_bench --url redis://127.0.0.1:6379 [--rounds 5] [--keys 500000]
//       [--capacity 1e7] [--fpp 0.01] [--window 604800] [--slices 8] [--batch 4096]
//       [--filler 20000] [--methods native,window,window-bits]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "bench_keys.hpp"
#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/redis/window_filter.hpp"
#include "redis_measure.hpp"

namespace {

using namespace bloomkit;
using bench::insert_all;
using bench::measure;
using bench::measurement;
using redis::command;

struct options {
  std::string url = "redis://127.0.0.1:6379";
  int rounds = 5;
  std::size_t keys = 500000;
  std::uint64_t capacity = 10000000;
  double fpp = 0.01;
  std::uint64_t window = 7 * 86400;
  std::uint32_t slices = 8;
  std::size_t batch = 4096;
  std::size_t filler = 20000;
  std::string methods = "native,window";
};

void report(const char* method, const char* op, int round, std::size_t keys, const measurement& m) {
  std::printf(
      "{\"method\": \"%s\", \"op\": \"%s\", \"round\": %d, \"keys\": %zu, \"seconds\": %.6f, "
      "\"keys_per_second\": %.1f, \"server_cpu_seconds_per_million_keys\": %.4f, "
      "\"positive\": %zu}\n",
      method, op, round, keys, m.seconds, static_cast<double>(keys) / m.seconds,
      m.cpu / static_cast<double>(keys) * 1e6, m.positive);
  std::fflush(stdout);
}

// Times add, hits and misses over any filter with insert_many / contains_many.
template <class Filter>
void time_ops(redis::client& c, Filter& f, const char* method, int round,
              const bench::key_set& keys, const bench::key_set& misses, std::size_t batch) {
  const auto all = keys.keys();
  const auto add = measure(c, [&] { return insert_all(f, all, batch); });
  report(method, "add", round, all.size(), add);
  auto results = std::make_unique<bool[]>(batch);
  const auto lookup = [&](std::span<const std::string_view> ks) {
    return measure(c, [&] {
      std::size_t present = 0;
      for (std::size_t i = 0; i < ks.size(); i += batch) {
        const std::size_t n = std::min(batch, ks.size() - i);
        present += f.contains_many(ks.subspan(i, n), {results.get(), n});
      }
      return present;
    });
  };
  report(method, "hits", round, all.size(), lookup(all));
  report(method, "misses", round, misses.size(), lookup(misses.keys()));
  if constexpr (requires { f.record_many(all); }) {
    // Inserts without the "new to the window" answer, of keys not yet in (the misses').
    const auto more = misses.keys();
    const auto added = measure(c, [&] {
      for (std::size_t i = 0; i < more.size(); i += batch) {
        f.record_many(more.subspan(i, std::min(batch, more.size() - i)));
      }
      return more.size();
    });
    report(method, "record_many", round, more.size(), added);
  }
}

// A moment inside a slice, a day ahead of the server's clock (slices expire by EXPIREAT).
std::uint64_t window_now(const options& o) {
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  const std::uint64_t ahead = static_cast<std::uint64_t>(seconds) + 86400;
  const std::uint64_t slice = slice_of_time(ahead, o.window, o.slices);
  return slice_start(slice, o.window, o.slices) + o.window / o.slices / 2;
}

void run_window(redis::client& c, const options& o, int round, const bench::key_set& keys,
                const bench::key_set& misses, redis::window_slice_format format) {
  const char* method = format == redis::window_slice_format::words ? "window" : "window-bits";
  const std::string name = std::string("bench:") + method + ":" + std::to_string(round);
  redis::redis_window_config config;
  config.capacity = o.capacity;
  config.target_fpp = o.fpp;
  config.window = o.window;
  config.slices = o.slices;
  config.slice_format = format;
  redis::filter_options fo;
  fo.keys_per_command = redis::filter_options{}.keys_per_command;
  auto f = redis::redis_window_filter::create(c, name, config, fo);
  // Filler keys in every older live slice (ids past the misses'), untimed.
  const std::uint64_t now = window_now(o);
  f.set_now(now);
  const auto live = f.live_slices();
  const auto filler = bench::key_set::generate(
      o.filler * live.size(), [](std::size_t i) { return (std::uint64_t{1} << 41) + i; });
  std::size_t at = 0;
  for (const std::uint64_t e : live) {
    if (e == f.current_slice()) continue;
    f.set_now(slice_start(e, o.window, o.slices));
    const auto part = filler.keys().subspan(at, o.filler);
    for (std::size_t i = 0; i < part.size(); i += o.batch) {
      f.insert_many(part.subspan(i, std::min(o.batch, part.size() - i)));
    }
    at += o.filler;
  }
  f.set_now(now);
  time_ops(c, f, method, round, keys, misses, o.batch);
  redis::redis_filter::drop(c, name);
}

void run_native(redis::client& c, const options& o, int round, const bench::key_set& keys,
                const bench::key_set& misses) {
  const std::string name = "bench:native:" + std::to_string(round);
  auto f = redis::redis_filter::create(c, name, o.capacity, o.fpp);
  time_ops(c, f, "native", round, keys, misses, o.batch);
  f.drop();
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const char* v = argv[i + 1];
    if (flag == "--url") {
      o.url = v;
    } else if (flag == "--rounds") {
      o.rounds = std::atoi(v);
    } else if (flag == "--keys") {
      o.keys = static_cast<std::size_t>(std::atof(v));
    } else if (flag == "--capacity") {
      o.capacity = static_cast<std::uint64_t>(std::atof(v));
    } else if (flag == "--fpp") {
      o.fpp = std::atof(v);
    } else if (flag == "--window") {
      o.window = static_cast<std::uint64_t>(std::atof(v));
    } else if (flag == "--slices") {
      o.slices = static_cast<std::uint32_t>(std::atoi(v));
    } else if (flag == "--batch") {
      o.batch = static_cast<std::size_t>(std::atof(v));
    } else if (flag == "--filler") {
      o.filler = static_cast<std::size_t>(std::atof(v));
    } else if (flag == "--methods") {
      o.methods = v;
    } else {
      std::fprintf(stderr, "bloomkit_redis_window_bench: unknown flag %s\n", flag.c_str());
      std::exit(2);
    }
  }
  return o;
}

bool wanted(const options& o, const char* method) {
  return ("," + o.methods + ",").find(std::string(",") + method + ",") != std::string::npos;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  try {
    redis::client c = redis::client::connect(o.url);
    const auto keys = bench::make_insert_keys(o.keys);
    const auto misses = bench::make_miss_queries(o.keys);
    std::mt19937 rng(12345);
    for (int round = 0; round < o.rounds; ++round) {
      std::vector<int> order = {0, 1, 2};
      std::shuffle(order.begin(), order.end(), rng);  // interleaved, a new order every round
      for (const int method : order) {
        if (method == 0 && wanted(o, "native")) run_native(c, o, round, keys, misses);
        if (method == 1 && wanted(o, "window")) {
          run_window(c, o, round, keys, misses, redis::window_slice_format::words);
        }
        if (method == 2 && wanted(o, "window-bits")) {
          run_window(c, o, round, keys, misses, redis::window_slice_format::bits);
        }
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bloomkit_redis_window_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
