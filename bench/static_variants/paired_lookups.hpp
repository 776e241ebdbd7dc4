#pragma once
// Lookup costs of several filters measured in adjacent chunks: each round times every filter on
// the same chunk of queries, in a new random order, so a burst of load from elsewhere on the
// machine lands on all of them alike; the ratios to the first filter are taken per round and
// their median reported (the window filter's pairs in bench/window_pairs.cpp do the same).
// Times are the thread's CPU time, not wall time: on a host busier than its cores, a chunk that
// takes longer is more often descheduled midway, which wall time would charge to it.

#include <time.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace bloomkit::bench::static_variants {

// One filter's lookup loops over a chunk of key hashes; each returns how many were present.
struct lookup_subject {
  std::string name;
  std::function<std::size_t(std::span<const std::uint64_t>)> single, batch;
};

// CPU time of the calling thread, in ns.
inline double thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

inline double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto k = v.size() / 2;
  return v.size() % 2 ? v[k] : (v[k - 1] + v[k]) / 2;
}

// Prints one markdown row per subject: median ns/key of single and batched lookups of hits and
// misses, and each as a ratio to subjects[0] (median over rounds of the per-round ratio).
inline void paired_lookups(const std::vector<lookup_subject>& subjects,
                           std::span<const std::uint64_t> hits,
                           std::span<const std::uint64_t> misses, std::size_t chunk,
                           unsigned rounds, const std::string& label) {
  // ns[pass][subject][round]; passes: single hit, single miss, batch hit, batch miss
  std::vector<std::vector<std::vector<double>>> ns(
      4, std::vector<std::vector<double>>(subjects.size()));
  std::mt19937_64 rng(rounds);
  std::vector<std::size_t> order(subjects.size());
  for (unsigned r = 0; r < rounds; ++r) {
    const std::size_t at = (r * chunk) % (hits.size() - chunk + 1);
    const auto hit_chunk = hits.subspan(at, chunk), miss_chunk = misses.subspan(at, chunk);
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    for (const auto s : order) {
      for (int pass = 0; pass < 4; ++pass) {
        const auto keys = pass % 2 == 0 ? hit_chunk : miss_chunk;
        const auto& loop = pass < 2 ? subjects[s].single : subjects[s].batch;
        const double t0 = thread_cpu_ns();
        const std::size_t present = loop(keys);
        const double t = thread_cpu_ns() - t0;
        if (pass % 2 == 0 && present != keys.size()) {
          std::fprintf(stderr, "%s: FALSE NEGATIVE\n", subjects[s].name.c_str());
          std::exit(1);
        }
        ns[pass][s].push_back(t / static_cast<double>(keys.size()));
      }
    }
  }
  for (std::size_t s = 0; s < subjects.size(); ++s) {
    std::printf("| %s | %s |", label.c_str(), subjects[s].name.c_str());
    for (int pass = 0; pass < 4; ++pass) {
      std::vector<double> ratio;
      for (unsigned r = 0; r < rounds; ++r) ratio.push_back(ns[pass][s][r] / ns[pass][0][r]);
      std::printf(" %.1f (%.2fx) |", median_of(ns[pass][s]), median_of(ratio));
    }
    std::printf("\n");
  }
  std::fflush(stdout);
}

}  // namespace bloomkit::bench::static_variants
