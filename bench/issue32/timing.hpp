#pragma once
// Time per key of a loop: thread CPU time (the machine is shared; a descheduled thread is not
// charged) and wall time, both reported.

#include <time.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace bloomkit::bench::issue32 {

struct per_key {
  double cpu_ns = 0;
  double wall_ns = 0;
};

inline double clock_ns(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// Runs loop() once; its cost per key over `keys` keys.
template <class Loop>
per_key time_per_key(std::size_t keys, Loop loop) {
  const double c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), w0 = clock_ns(CLOCK_MONOTONIC);
  loop();
  const double c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID), w1 = clock_ns(CLOCK_MONOTONIC);
  const double k = static_cast<double>(keys == 0 ? 1 : keys);
  return {(c1 - c0) / k, (w1 - w0) / k};
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 == 1 ? v[h] : (v[h - 1] + v[h]) / 2;
}

}  // namespace bloomkit::bench::issue32
