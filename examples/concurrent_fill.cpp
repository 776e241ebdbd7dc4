// Many threads fill one filter at once (lock-free), while other threads query it.
//   example_concurrent_fill

#include <bloomkit/bloomkit.hpp>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

int main() {
  constexpr int writers = 4;
  constexpr int keys_per_writer = 250'000;
  auto filter = bloomkit::bloom_filter::for_capacity(writers * keys_per_writer, 0.001);

  // insert_concurrent / insert_many_concurrent use atomic fetch-or on 64-bit words: safe to
  // call from any number of threads, alongside contains / contains_many.
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w) {
    threads.emplace_back([&filter, w] {
      for (int i = 0; i < keys_per_writer; ++i) {
        filter.insert_concurrent("user:" + std::to_string(w) + ":" + std::to_string(i));
      }
    });
  }
  std::atomic<bool> stop{false};
  std::atomic<long> lookups{0};
  std::thread reader([&] {
    for (long i = 0; !stop.load(std::memory_order_relaxed); ++i) {
      (void)filter.contains("user:0:" + std::to_string(i % keys_per_writer));
      lookups.fetch_add(1, std::memory_order_relaxed);
    }
  });
  for (auto& t : threads) t.join();
  stop = true;
  reader.join();

  long missing = 0;
  for (int w = 0; w < writers; ++w) {
    for (int i = 0; i < keys_per_writer; ++i) {
      missing += !filter.contains("user:" + std::to_string(w) + ":" + std::to_string(i));
    }
  }
  std::printf("inserted %llu keys from %d threads (%ld lookups ran alongside); missing: %ld\n",
              static_cast<unsigned long long>(filter.inserted()), writers, lookups.load(), missing);
  std::printf("estimated count %.0f, estimated fpp %.5f\n", filter.estimated_count(),
              filter.estimated_fpp());
  return missing == 0 ? 0 : 1;
}
