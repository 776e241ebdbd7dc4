#pragma once
// What the Redis benchmarks (redis_bench.cpp, window_bench.cpp) time: wall seconds, the servers'
// CPU (INFO CPU on every master, used_cpu_sys + used_cpu_user) and this client's CPU around a
// body, and a filter's batched inserts over a key list.

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "bloomkit/redis/client.hpp"

namespace bloomkit::bench {

inline double server_cpu_seconds(redis::client& c) {
  double total = 0;
  for (const auto& r : c.execute_on_masters(redis::command{{"INFO", "CPU"}, 0})) {
    const std::string& text = r.str();
    for (const char* field : {"used_cpu_sys:", "used_cpu_user:"}) {
      const auto at = text.find(field);
      if (at != std::string::npos) {
        total += std::strtod(text.c_str() + at + std::strlen(field), nullptr);
      }
    }
  }
  return total;
}

// This process's CPU time (user + system): the client side's cost.
inline double client_cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct measurement {
  double seconds = 0;
  double cpu = 0;  // the servers'
  double client_cpu = 0;
  std::size_t positive = 0;  // new keys (insert) or present keys (contains)
};

template <class F>
measurement measure(redis::client& c, F&& body) {
  measurement m;
  const double cpu0 = server_cpu_seconds(c);
  const double client0 = client_cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  m.positive = body();
  m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  m.client_cpu = client_cpu_seconds() - client0;
  m.cpu = server_cpu_seconds(c) - cpu0;
  return m;
}

// insert_many of every key in batches of `batch`; returns how many were new.
template <class Filter>
std::size_t insert_all(Filter& f, std::span<const std::string_view> keys, std::size_t batch) {
  std::size_t fresh = 0;
  for (std::size_t i = 0; i < keys.size(); i += batch) {
    fresh += f.insert_many(keys.subspan(i, std::min(batch, keys.size() - i)));
  }
  return fresh;
}

}  // namespace bloomkit::bench
