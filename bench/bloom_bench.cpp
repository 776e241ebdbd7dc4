// bloomkit_bench: the classic filter against libbloom and against the machine's memory bound,
// on the same URL-like keys, in one run. See docs/PERFORMANCE.md for the method.
//
// Benchmarks (each iteration handles `batch` keys or memory accesses; the counter per_key is the
// CPU time per key or per access, in seconds: "per_key=24.1ns" on the console):
//   bloomkit/insert, bloomkit/insert_many            into a filter sized for n at p = 0.01
//   bloomkit/contains_{hit,miss}                     single-key loop over a full filter
//   bloomkit/contains_many_{hit,miss}                batches of `batch` keys
//   bloomkit/hash_only                               XXH3-128 of the keys, nothing else
//   blocked/...                                      the same six for the blocked filter
//                                                    (blocked_bloom_filter, p = 0.01)
//   blocked/hash_only                                XXH3-64 of the keys (its digest)
//   blocked_portable/contains{,_many}_miss           the blocked filter on its portable path
//   bits12/{classic,blocked}/contains_many_{hit,miss} equal memory, 12 bits per key: the
//                                                    classic filter (k = 8) and the blocked one
//   counting/...                                     the six for the counting filter (the same
//                                                    pipeline over 4-bit counters)
//   scalable/contains{,_many}_{hit,miss}             a scalable filter from n0 = n/8 (four
//   scalable_blocked/contains{,_many}_{hit,miss}     sub-filters after n keys) over classic and
//                                                    over blocked sub-filters
//   window/...                                       the six for a window filter of n keys per
//                                                    window in 8 slices (window_filter, grouped):
//                                                    lookups over the 8 full live slices, inserts
//                                                    into a count window of n inserts (rotating)
//   mem/hash_and_read                                XXH3-64 of the miss keys plus one random
//                                                    64-byte read per key prefetched 16 keys
//                                                    ahead into L2: the bound of a one-line lookup
//   libbloom/add, libbloom/check_{hit,miss}          Debian's libbloom on the same keys
//   mem/random_read, mem/random_read_prefetch{,_l2}  independent random 64-byte reads into a
//                                                    buffer the size of the filter (plain;
//                                                    prefetch 64 ahead into L1; into L2)
//   mem/chase                                        dependent random reads (pointer chase)
//                                                    through that buffer
//   mem/chase_1GiB                                   the same through 1 GiB
//
// Environment:
//   BLOOMKIT_BENCH_SIZES  comma-separated n values (default "1e5,1e7,1e8"; "1e7" or "10000000")
//   BLOOMKIT_BENCH_CHASE  0 to leave out the 1 GiB pointer chase (default 1)
//   BLOOMKIT_BENCH_KEEP   1 to keep every size's data alive (the default when random
//                         interleaving is on); otherwise data of one n is freed before the next
//                         n's is built.

#include <benchmark/benchmark.h>
#include <bloom.h>
#include <sys/utsname.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bench_dataset.hpp"
#include "bench_keys.hpp"
#include "bloomkit/bit_array.hpp"
#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/hashing.hpp"
#include "bloomkit/scalable_filter.hpp"
#include "bloomkit/sizing.hpp"
#include "bloomkit/version.hpp"
#include "bloomkit/window_filter.hpp"
#include "machine_info.hpp"
#include "memory_bench.hpp"
#include "memory_probe.hpp"

namespace {

using namespace bloomkit::bench;

// ---------------------------------------------------------------------------------------------
// bloomkit

// The filter a benchmark drives. `name` prefixes its cursors (and its benchmark names).
struct classic_subject {
  static constexpr const char* name = "bloomkit";
  static const bloomkit::bloom_filter& full(dataset& d) { return d.full_filter(); }
  static bloomkit::bloom_filter& target(dataset& d) { return d.insert_filter(); }
  static void reset(dataset& d) { d.reset_insert_filter(); }
};
struct blocked_subject {
  static constexpr const char* name = "blocked";
  static const bloomkit::blocked_bloom_filter& full(dataset& d) { return d.full_blocked(); }
  static bloomkit::blocked_bloom_filter& target(dataset& d) { return d.insert_blocked(); }
  static void reset(dataset& d) { d.reset_insert_blocked(); }
};
struct blocked_portable_subject {
  static constexpr const char* name = "blocked_portable";
  static const bloomkit::blocked_bloom_filter& full(dataset& d) {
    return d.full_blocked_portable();
  }
};
struct counting_subject {
  static constexpr const char* name = "counting";
  static const bloomkit::counting_bloom_filter& full(dataset& d) { return d.full_counting(); }
  static bloomkit::counting_bloom_filter& target(dataset& d) { return d.insert_counting(); }
  static void reset(dataset& d) { d.reset_insert_counting(); }
};
struct scalable_subject {
  static constexpr const char* name = "scalable";
  static const bloomkit::scalable_bloom_filter& full(dataset& d) { return d.full_scalable(); }
};
struct scalable_blocked_subject {
  static constexpr const char* name = "scalable_blocked";
  static const bloomkit::scalable_blocked_bloom_filter& full(dataset& d) {
    return d.full_scalable_blocked();
  }
};
struct window_subject {
  static constexpr const char* name = "window";
  static const bloomkit::window_filter& full(dataset& d) { return d.full_window(); }
  static bloomkit::window_filter& target(dataset& d) { return d.insert_window(); }
  static void reset(dataset&) {}  // a count window forgets by itself
};
struct classic_12_subject {
  static constexpr const char* name = "bits12/classic";
  static const bloomkit::bloom_filter& full(dataset& d) { return d.full_classic_12(); }
};
struct blocked_12_subject {
  static constexpr const char* name = "bits12/blocked";
  static const bloomkit::blocked_bloom_filter& full(dataset& d) { return d.full_blocked_12(); }
};

std::string cursor_name(const char* subject, const char* benchmark) {
  return std::string(subject) + "/" + benchmark;
}

template <class Subject>
void bm_insert(benchmark::State& state, std::size_t n) {
  auto& d = data_for(n);
  const auto keys = d.inserts().keys();
  auto& f = Subject::target(d);
  std::size_t& pos = d.cursor(cursor_name(Subject::name, "insert"));
  std::size_t fresh = 0;
  for (auto _ : state) {
    if (pos + batch > keys.size()) {  // every key inserted once: start again, empty
      state.PauseTiming();
      Subject::reset(d);
      pos = 0;
      state.ResumeTiming();
    }
    for (std::size_t j = 0; j < batch; ++j) fresh += f.insert(keys[pos + j]);
    pos += batch;
  }
  benchmark::DoNotOptimize(fresh);
  finish(state);
}

template <class Subject>
void bm_insert_many(benchmark::State& state, std::size_t n) {
  auto& d = data_for(n);
  const auto keys = d.inserts().keys();
  auto& f = Subject::target(d);
  std::size_t& pos = d.cursor(cursor_name(Subject::name, "insert_many"));
  std::size_t fresh = 0;
  for (auto _ : state) {
    if (pos + batch > keys.size()) {
      state.PauseTiming();
      Subject::reset(d);
      pos = 0;
      state.ResumeTiming();
    }
    fresh += f.insert_many(keys.subspan(pos, batch));
    pos += batch;
  }
  benchmark::DoNotOptimize(fresh);
  finish(state);
}

template <class Subject>
void bm_contains(benchmark::State& state, std::size_t n, bool hit) {
  auto& d = data_for(n);
  const auto& f = Subject::full(d);
  const auto keys = (hit ? d.hits() : d.misses()).keys();
  std::size_t& pos = d.cursor(cursor_name(Subject::name, hit ? "contains_hit" : "contains_miss"));
  std::size_t positives = 0;
  for (auto _ : state) {
    for (std::size_t j = 0; j < batch; ++j) positives += f.contains(keys[pos + j]);
    pos = advance(pos, keys.size());
  }
  finish(state, positives, true);
}

template <class Subject>
void bm_contains_many(benchmark::State& state, std::size_t n, bool hit) {
  auto& d = data_for(n);
  const auto& f = Subject::full(d);
  const auto keys = (hit ? d.hits() : d.misses()).keys();
  std::size_t& pos =
      d.cursor(cursor_name(Subject::name, hit ? "contains_many_hit" : "contains_many_miss"));
  std::array<bool, batch> results{};
  std::size_t positives = 0;
  for (auto _ : state) {
    positives += f.contains_many(keys.subspan(pos, batch), results);
    benchmark::ClobberMemory();
    pos = advance(pos, keys.size());
  }
  finish(state, positives, true);
}

// Only the digests of the miss keys: the compute floor of any lookup of these keys. The classic
// filter hashes with XXH3-128, the blocked filter with XXH3-64.
template <class Digest>
void bm_hash(benchmark::State& state, std::size_t n, const char* cursor, Digest digest) {
  auto& d = data_for(n);
  const auto keys = d.misses().keys();
  std::size_t& pos = d.cursor(cursor);
  std::uint64_t sum = 0;
  for (auto _ : state) {
    for (std::size_t j = 0; j < batch; ++j) sum += digest(keys[pos + j]);
    pos = advance(pos, keys.size());
  }
  benchmark::DoNotOptimize(sum);
  finish(state);
}

// ---------------------------------------------------------------------------------------------
// libbloom

void bm_libbloom_add(benchmark::State& state, std::size_t n) {
  auto& d = data_for(n);
  const auto keys = d.inserts().keys();
  auto& f = d.insert_libbloom();
  std::size_t& pos = d.cursor("libbloom/add");
  std::size_t fresh = 0;
  for (auto _ : state) {
    if (pos + batch > keys.size()) {
      state.PauseTiming();
      f.reset();
      pos = 0;
      state.ResumeTiming();
    }
    for (std::size_t j = 0; j < batch; ++j) fresh += f.add(keys[pos + j]);
    pos += batch;
  }
  benchmark::DoNotOptimize(fresh);
  finish(state);
}

void bm_libbloom_check(benchmark::State& state, std::size_t n, bool hit) {
  auto& d = data_for(n);
  auto& f = d.full_libbloom();
  const auto keys = (hit ? d.hits() : d.misses()).keys();
  std::size_t& pos = d.cursor(hit ? "libbloom/check_hit" : "libbloom/check_miss");
  std::size_t positives = 0;
  for (auto _ : state) {
    for (std::size_t j = 0; j < batch; ++j) positives += f.check(keys[pos + j]);
    pos = advance(pos, keys.size());
  }
  finish(state, positives, true);
}

// ---------------------------------------------------------------------------------------------
// Machine description for the JSON context.

std::string compiler_name() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("g++ ") + __VERSION__;
#else
  return "unknown";
#endif
}

void add_context(const std::vector<std::size_t>& sizes) {
  benchmark::AddCustomContext("cpu_model",
                              after_colon(first_line_with("/proc/cpuinfo", "model name")));
  // A VM may hide the model name ("AMD EPYC"); family and model still tell the core.
  benchmark::AddCustomContext("cpu_family_model",
                              after_colon(first_line_with("/proc/cpuinfo", "cpu family")) + "/" +
                                  after_colon(first_line_with("/proc/cpuinfo", "model\t")));
  benchmark::AddCustomContext("mem_total",
                              after_colon(first_line_with("/proc/meminfo", "MemTotal")));
  utsname u{};
  if (uname(&u) == 0)
    benchmark::AddCustomContext("kernel", std::string(u.sysname) + " " + u.release);
  benchmark::AddCustomContext("compiler", compiler_name());
  benchmark::AddCustomContext("thp",
                              first_line_with("/sys/kernel/mm/transparent_hugepage/enabled", ""));
  benchmark::AddCustomContext("bloomkit_version", bloomkit::version_string);
  benchmark::AddCustomContext("libbloom_version", bloom_version());
  benchmark::AddCustomContext("target_fpp", std::to_string(target_p));
  benchmark::AddCustomContext("batch", std::to_string(batch));
  // Mean key length over a sample of the keys.
  std::vector<char> buf(bloomkit::bench::max_key_length);
  std::size_t total = 0;
  constexpr std::size_t sample = 100000;
  for (std::size_t i = 0; i < sample; ++i) total += bloomkit::bench::make_url_key(i, buf.data());
  benchmark::AddCustomContext("key_mean_bytes",
                              std::to_string(static_cast<double>(total) / sample));
  for (const std::size_t n : sizes) {
    const auto params = bloomkit::optimal_params(n, target_p);
    benchmark::AddCustomContext(
        "filter_n" + std::to_string(n),
        "bits=" + std::to_string(params.bits) + " hashes=" + std::to_string(params.hashes) +
            " bytes=" + std::to_string(bloomkit::bytes_for_bits(params.bits)));
    const std::uint64_t blocks = bloomkit::blocked_optimal_blocks(n, target_p);
    benchmark::AddCustomContext(
        "blocked_n" + std::to_string(n),
        "blocks=" + std::to_string(blocks) + " bytes=" + std::to_string(blocks * 32) +
            " expected_fpp=" + std::to_string(bloomkit::blocked_expected_fpp(blocks, n)));
    const std::uint64_t blocks_12 = (std::uint64_t{n} * 12 + 255) / 256;
    benchmark::AddCustomContext(
        "bits12_n" + std::to_string(n),
        "classic_expected_fpp=" + std::to_string(bloomkit::expected_fpp(blocks_12 * 256, 8, n)) +
            " blocked_expected_fpp=" +
            std::to_string(bloomkit::blocked_expected_fpp(blocks_12, n)));
  }
}

// ---------------------------------------------------------------------------------------------
// Registration.

std::vector<std::size_t> parse_sizes(const char* text) {
  std::vector<std::size_t> sizes;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty()) continue;
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (end == item.c_str() || *end != '\0' || !(v >= 1000) || v > 2e9 || v != std::floor(v)) {
      throw std::runtime_error("BLOOMKIT_BENCH_SIZES: bad size '" + item +
                               "' (want an integer from 1000 to 2e9, e.g. 1e7)");
    }
    sizes.push_back(static_cast<std::size_t>(v));
  }
  return sizes;
}

bool env_flag(const char* name, bool fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return !(std::strcmp(v, "0") == 0 || std::strcmp(v, "false") == 0);
}

bool interleaving_requested(int argc, char** argv) {
  bool on = env_flag("BENCHMARK_ENABLE_RANDOM_INTERLEAVING", false);
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    constexpr std::string_view flag = "--benchmark_enable_random_interleaving";
    if (a.rfind(flag, 0) != 0) continue;
    const std::string_view rest = a.substr(flag.size());
    on = rest.empty() || !(rest == "=false" || rest == "=0");
  }
  return on;
}

// insert, insert_many, contains and contains_many (hits and misses) of one filter.
template <class Subject, class Add>
void add_filter_benchmarks(Add& add, std::size_t n) {
  const std::string prefix = std::string(Subject::name) + "/";
  add(prefix + "insert", [n](benchmark::State& s) { bm_insert<Subject>(s, n); });
  add(prefix + "insert_many", [n](benchmark::State& s) { bm_insert_many<Subject>(s, n); });
  add(prefix + "contains_hit", [n](benchmark::State& s) { bm_contains<Subject>(s, n, true); });
  add(prefix + "contains_miss", [n](benchmark::State& s) { bm_contains<Subject>(s, n, false); });
  add(prefix + "contains_many_hit",
      [n](benchmark::State& s) { bm_contains_many<Subject>(s, n, true); });
  add(prefix + "contains_many_miss",
      [n](benchmark::State& s) { bm_contains_many<Subject>(s, n, false); });
}

void register_size(std::size_t n) {
  const std::string suffix = "/n:" + std::to_string(n);
  auto add = [&](const std::string& name, auto fn) {
    benchmark::RegisterBenchmark((name + suffix).c_str(), fn)->Unit(benchmark::kMicrosecond);
  };
  add_filter_benchmarks<classic_subject>(add, n);
  add_filter_benchmarks<blocked_subject>(add, n);
  add_filter_benchmarks<counting_subject>(add, n);
  add_filter_benchmarks<window_subject>(add, n);
  for (const bool hit : {true, false}) {
    const std::string what = hit ? "hit" : "miss";
    add("scalable/contains_" + what,
        [n, hit](benchmark::State& s) { bm_contains<scalable_subject>(s, n, hit); });
    add("scalable/contains_many_" + what,
        [n, hit](benchmark::State& s) { bm_contains_many<scalable_subject>(s, n, hit); });
    add("scalable_blocked/contains_" + what,
        [n, hit](benchmark::State& s) { bm_contains<scalable_blocked_subject>(s, n, hit); });
    add("scalable_blocked/contains_many_" + what,
        [n, hit](benchmark::State& s) { bm_contains_many<scalable_blocked_subject>(s, n, hit); });
  }
  add("bloomkit/hash_only", [n](benchmark::State& s) {
    bm_hash(s, n, "bloomkit/hash_only", [](std::string_view k) {
      const auto h = bloomkit::xxh3_128(k);
      return h.low ^ h.high;
    });
  });
  add("blocked/hash_only", [n](benchmark::State& s) {
    bm_hash(s, n, "blocked/hash_only", [](std::string_view k) { return bloomkit::xxh3_64(k); });
  });
  add("blocked_portable/contains_miss",
      [n](benchmark::State& s) { bm_contains<blocked_portable_subject>(s, n, false); });
  add("blocked_portable/contains_many_miss",
      [n](benchmark::State& s) { bm_contains_many<blocked_portable_subject>(s, n, false); });
  for (const bool hit : {true, false}) {
    const std::string suffix = hit ? "contains_many_hit" : "contains_many_miss";
    add("bits12/classic/" + suffix,
        [n, hit](benchmark::State& s) { bm_contains_many<classic_12_subject>(s, n, hit); });
    add("bits12/blocked/" + suffix,
        [n, hit](benchmark::State& s) { bm_contains_many<blocked_12_subject>(s, n, hit); });
  }
  add("libbloom/add", [n](benchmark::State& s) { bm_libbloom_add(s, n); });
  add("libbloom/check_hit", [n](benchmark::State& s) { bm_libbloom_check(s, n, true); });
  add("libbloom/check_miss", [n](benchmark::State& s) { bm_libbloom_check(s, n, false); });
  add("mem/random_read", [n](benchmark::State& s) { bm_random_read(s, n); });
  add("mem/random_read_prefetch",
      [n](benchmark::State& s) { bm_random_read_prefetch<3>(s, n, "mem/random_read_prefetch"); });
  add("mem/random_read_prefetch_l2", [n](benchmark::State& s) {
    bm_random_read_prefetch<2>(s, n, "mem/random_read_prefetch_l2");
  });
  add("mem/hash_and_read", [n](benchmark::State& s) { bm_hash_and_read(s, n); });
  add("mem/chase", [n](benchmark::State& s) { bm_chase_filter_size(s, n); });
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> sizes;
  try {
    const char* env = std::getenv("BLOOMKIT_BENCH_SIZES");
    sizes = parse_sizes(env != nullptr && *env != '\0' ? env : "1e5,1e7,1e8");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bloomkit_bench: %s\n", e.what());
    return 2;
  }
  keep_all_sizes = env_flag("BLOOMKIT_BENCH_KEEP", interleaving_requested(argc, argv));

  for (const std::size_t n : sizes) register_size(n);
  if (env_flag("BLOOMKIT_BENCH_CHASE", true)) {
    benchmark::RegisterBenchmark("mem/chase_1GiB", bm_chase)->Unit(benchmark::kMicrosecond);
  }
  add_context(sizes);

  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
