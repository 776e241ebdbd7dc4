// bloomkit_window_pairs: the window filter's batched costs as ratios to the blocked filter's,
// measured in adjacent pairs. On a shared host the cost of the same lookup varies several times
// between runs a minute apart, and within a run in spells of milliseconds (bench/RESULTS.md,
// issue 14), so ratios taken from separate benchmark repetitions move with it. Here a round
// times 64 batches of each filter alternating batch by batch over the same keys, and the figure
// is the median over rounds of each round's ratio: both sides of a ratio see the same machine.
//
//   bloomkit_window_pairs [n] [rounds] [portable]
//       default n = 1e7 keys per window, 101 rounds; `portable`: the window filter's portable
//       batch paths instead of its AVX2 ones (window_filter::set_simd), to see what they add
//
// Data as bloomkit_bench's window/ and blocked/ rows (bench_dataset.hpp): a blocked filter of n
// keys at p = 1%; a time window of n keys in 8 slices, every slice full, looked up at the end of
// the last slice; inserts into a blocked filter sized for n (emptied, untimed, when every key is
// in) and into a count window of n inserts, which rotates. A batch is 1024 keys.

#include <sys/utsname.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bench_dataset.hpp"
#include "machine_info.hpp"

namespace {

using namespace bloomkit::bench;
using clock_type = std::chrono::steady_clock;

constexpr std::size_t batches_per_stretch = 64;

// One row's stretch: `batches_per_stretch` batches of the blocked filter and as many of the
// window filter, alternating batch by batch (which goes first alternates too), so that a slow
// spell of the host (seen here: whole milliseconds at a time) lands on both sides alike.
// Returns nanoseconds per key of each: {blocked, window}.
template <class Blocked, class Window>
std::pair<double, double> time_alternating(std::span<const std::string_view> keys, std::size_t& pos,
                                           Blocked run_blocked, Window run_window) {
  std::chrono::duration<double, std::nano> spent[2] = {};
  for (std::size_t b = 0; b < batches_per_stretch; ++b) {
    if (pos + batch > keys.size()) pos = 0;
    const auto these = keys.subspan(pos, batch);
    pos += batch;
    for (int side = 0; side < 2; ++side) {
      const int which = (side + static_cast<int>(b)) % 2;  // 0: blocked, 1: window
      const auto start = clock_type::now();
      if (which == 0) {
        run_blocked(these);
      } else {
        run_window(these);
      }
      spent[which] += clock_type::now() - start;
    }
  }
  const double keys_run = static_cast<double>(batches_per_stretch * batch);
  return {spent[0].count() / keys_run, spent[1].count() / keys_run};
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

struct row {
  const char* name;
  std::vector<double> blocked_ns, window_ns, ratios;
};

void report(const row& r) {
  std::printf(
      "%-20s blocked %7.1f ns  window %7.1f ns  window/blocked median %.2fx  (quartiles "
      "%.2f - %.2f)\n",
      r.name, median(r.blocked_ns), median(r.window_ns), median(r.ratios), quantile(r.ratios, 0.25),
      quantile(r.ratios, 0.75));
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? static_cast<std::size_t>(std::atof(argv[1])) : 10'000'000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 101;
  const bool portable = argc > 3 && std::string(argv[3]) == "portable";
  if (n < batch * batches_per_stretch || rounds < 1 || (argc > 3 && !portable) || argc > 4) {
    std::fprintf(stderr, "usage: bloomkit_window_pairs [n >= %zu] [rounds >= 1] [portable]\n",
                 batch * batches_per_stretch);
    return 2;
  }
  utsname host{};
  ::uname(&host);
  double load[3] = {};
  ::getloadavg(load, 3);
  std::printf("Machine: %s; %ld cores; %s %s; load average %.2f; n = %zu, %d rounds\n",
              after_colon(first_line_with("/proc/cpuinfo", "model name")).c_str(),
              ::sysconf(_SC_NPROCESSORS_ONLN), host.sysname, host.release, load[0], n, rounds);

  dataset& d = data_for(n);
  const auto hits = d.hits().keys();
  const auto misses = d.misses().keys();
  const auto inserts = d.inserts().keys();
  const bloomkit::blocked_bloom_filter& blocked = d.full_blocked();
  bloomkit::window_filter window = d.full_window();  // a copy, whose paths can be chosen
  bloomkit::blocked_bloom_filter& blocked_target = d.insert_blocked();
  bloomkit::window_filter& window_target = d.insert_window();
  window.set_simd(!portable);
  window_target.set_simd(!portable);
  std::printf("Window batch paths: %s\n", window.simd() ? "avx2" : "portable");

  std::array<bool, batch> results{};
  std::size_t positives = 0;
  auto lookups = [&](const auto& filter) {
    return [&](std::span<const std::string_view> keys) {
      positives += filter.contains_many(keys, results);
    };
  };
  row hit_row{"contains_many hit", {}, {}, {}};
  row miss_row{"contains_many miss", {}, {}, {}};
  row insert_row{"insert_many", {}, {}, {}};
  std::size_t hit_pos = 0, miss_pos = 0, insert_pos = 0;

  auto record = [](row& r, std::pair<double, double> ns) {
    r.blocked_ns.push_back(ns.first);
    r.window_ns.push_back(ns.second);
    r.ratios.push_back(ns.second / ns.first);
  };
  for (int round = 0; round < rounds; ++round) {
    record(hit_row, time_alternating(hits, hit_pos, lookups(blocked), lookups(window)));
    record(miss_row, time_alternating(misses, miss_pos, lookups(blocked), lookups(window)));
    // The two insert targets take the same keys; the blocked one is emptied (untimed) before
    // it would hold more than n, the window forgets by itself.
    if (insert_pos + batch * batches_per_stretch > n) {
      d.reset_insert_blocked();
      insert_pos = 0;
    }
    record(insert_row, time_alternating(
                           inserts, insert_pos,
                           [&](std::span<const std::string_view> k) {
                             positives += blocked_target.insert_many(k);
                           },
                           [&](std::span<const std::string_view> k) {
                             positives += window_target.insert_many(k);
                           }));
  }
  report(hit_row);
  report(miss_row);
  report(insert_row);
  std::printf("(checksum %zu)\n", positives);
  return 0;
}
