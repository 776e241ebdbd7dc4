#pragma once
// Internal: runs work(i) for i in [0, count) on up to `threads` threads (the caller's included),
// each taking the next index when done with one: the static builder's groups and
// static_filter::build's shards. The first exception stops the others from starting more and is
// rethrown once all have stopped.

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace bloomkit::detail {

template <class Work>
void parallel_for(std::uint64_t count, unsigned threads, Work&& work) {
  if (count == 0) return;
  std::atomic<std::uint64_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  const auto run = [&] {
    try {
      for (std::uint64_t i; !failed.load(std::memory_order_relaxed) && (i = next++) < count;) {
        work(i);
      }
    } catch (...) {
      std::lock_guard lock(failure_mutex);
      if (!failure) failure = std::current_exception();
      failed = true;
    }
  };
  const auto helpers =
      static_cast<unsigned>(std::min<std::uint64_t>(std::max(threads, 1u), count)) - 1;
  std::vector<std::thread> pool;
  pool.reserve(helpers);
  for (unsigned t = 0; t < helpers; ++t) pool.emplace_back(run);
  run();
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace bloomkit::detail
