// Lock-free concurrent inserts and lookups. Run under TSan by scripts/test.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "bloomkit/filter.hpp"
#include "support/keys.hpp"

namespace bloomkit {
namespace {

using test::make_keys;
using test::views;

// Runs work(t) on `threads` threads released together; the sum of what they return.
std::size_t run_together(int threads, const std::function<std::size_t(int)>& work) {
  std::atomic<std::size_t> total{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      while (!go.load()) std::this_thread::yield();
      total += work(t);
    });
  }
  go = true;
  for (auto& w : workers) w.join();
  return total;
}

TEST(Concurrency, EightThreadsInsertDisjointSets) {
  constexpr int threads = 8;
  constexpr std::size_t per_thread = 20'000;
  std::vector<std::vector<std::string>> sets;
  for (int t = 0; t < threads; ++t) sets.push_back(make_keys(per_thread, 100 + t));
  auto f = bloom_filter::for_capacity(threads * per_thread, 0.01);

  const std::size_t reported_new = run_together(threads, [&](int t) {
    const auto& keys = sets[t];
    std::size_t fresh = 0;
    // Half key by key, half batched, with lookups of the thread's own earlier keys between.
    for (std::size_t i = 0; i < per_thread / 2; ++i) {
      fresh += f.insert_concurrent(keys[i]);
      if (i % 64 == 0 && !f.contains(keys[i / 2])) ADD_FAILURE() << "lost " << keys[i / 2];
    }
    const auto v = views(keys);
    return fresh + f.insert_many_concurrent(std::span(v).subspan(per_thread / 2));
  });

  for (const auto& keys : sets) {
    for (const auto& k : keys) ASSERT_TRUE(f.contains(k)) << k;
  }
  // The counter saw every insert that changed a bit, no more and no less.
  EXPECT_EQ(f.inserted(), reported_new);
  EXPECT_GE(static_cast<double>(f.inserted()), threads * per_thread * 0.97);
  // The same keys inserted by one thread set exactly the same bits.
  auto serial = bloom_filter::for_capacity(threads * per_thread, 0.01);
  for (const auto& keys : sets) serial.insert_many(views(keys));
  EXPECT_EQ(serial, f);
}

// Integer keys: threads insert disjoint sets concurrently (key by key, in batches past the key
// stream's threshold, and as 32-bit keys) into the classic and the blocked filter past L2 (the
// prefetching pipeline), beside lookups of their own finished keys; every key is found, the count
// is every changed insert, and the bits are those of one thread's inserts.
template <class Filter>
void check_concurrent_integer_inserts() {
  constexpr int threads = 4;
  constexpr std::size_t per_thread = 150'000;  // a batch past 1 MiB of keys: streamed
  std::vector<std::vector<std::uint64_t>> sets(threads);
  for (int t = 0; t < threads; ++t) {
    std::mt19937_64 rng(300 + t);
    for (std::size_t i = 0; i < per_thread; ++i) sets[t].push_back(rng());
  }
  std::vector<std::uint32_t> narrow(1000);
  for (std::size_t i = 0; i < narrow.size(); ++i) narrow[i] = static_cast<std::uint32_t>(i * 977);
  // Sized past 1 MiB, so the batches run the pipeline at the cheap keys' lag (filter_pipeline.hpp).
  constexpr std::uint64_t capacity = 1'000'000;
  auto f = Filter::for_capacity(capacity, 0.01, key_type::int64);
  ASSERT_GE(f.byte_size(), std::size_t{1} << 20);
  const std::size_t reported_new = run_together(threads, [&](int t) {
    const auto& keys = sets[t];
    std::size_t fresh = 0;
    for (std::size_t i = 0; i < 1000; ++i) {
      fresh += f.insert_integer_concurrent(keys[i]);
      if (i % 64 == 0 && !f.contains_integer(keys[i / 2])) ADD_FAILURE() << "lost " << keys[i / 2];
    }
    fresh += f.insert_integers_concurrent(std::span<const std::uint64_t>(keys).subspan(1000));
    if (t == 0) fresh += f.insert_integers_concurrent(std::span<const std::uint32_t>(narrow));
    return fresh;
  });
  for (const auto& keys : sets) {
    for (const auto k : keys) ASSERT_TRUE(f.contains_integer(k)) << k;
  }
  for (const auto k : narrow) ASSERT_TRUE(f.contains_integer(k)) << k;
  EXPECT_EQ(f.inserted(), reported_new);
  auto serial = Filter::for_capacity(capacity, 0.01, key_type::int64);
  for (const auto& keys : sets) serial.insert_integers(std::span<const std::uint64_t>(keys));
  serial.insert_integers(std::span<const std::uint32_t>(narrow));
  EXPECT_TRUE(serial == f);
}

TEST(Concurrency, IntegerKeysInsertedByFourThreadsInTheClassicFilter) {
  check_concurrent_integer_inserts<bloom_filter>();
}
TEST(Concurrency, IntegerKeysInsertedByFourThreadsInTheBlockedFilter) {
  check_concurrent_integer_inserts<blocked_bloom_filter>();
}

TEST(Concurrency, ReadersDuringWritesNeverSeeAFalseNegativeForFinishedKeys) {
  auto f = bloom_filter::for_capacity(100'000, 0.01);
  const auto early = make_keys(50'000, 200);
  const auto late = make_keys(50'000, 201);
  f.insert_many(views(early));
  std::atomic<bool> done{false};
  std::thread writer([&] {
    for (const auto& k : late) f.insert_concurrent(k);
    done = true;
  });
  std::vector<std::thread> readers;
  std::atomic<std::size_t> misses{0};
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      const auto v = views(early);
      auto results = std::make_unique<bool[]>(v.size());
      do {
        misses += v.size() - f.contains_many(v, {results.get(), v.size()});
      } while (!done.load());
    });
  }
  writer.join();
  for (auto& r : readers) r.join();
  EXPECT_EQ(misses.load(), 0u);
  for (const auto& k : late) ASSERT_TRUE(f.contains(k));
}

// The pipelined batched insert (filters of 1 MiB and more) from two threads at once, on
// overlapping keys so that both write the same words: every storage with concurrent inserts
// must end with exactly the bits of a single-threaded build and no false negatives.
template <class Filter>
void two_threads_through_the_pipelined_path(Filter f, const std::string& kind) {
  ASSERT_GE(f.byte_size(), std::size_t{1} << 20) << kind << ": below the pipelined threshold";
  const auto shared = make_keys(60'000, 300);
  const auto first = make_keys(60'000, 301);
  const auto second = make_keys(60'000, 302);
  std::vector<std::string_view> a = views(shared), b = views(shared);
  a.insert(a.end(), first.begin(), first.end());
  b.insert(b.end(), second.begin(), second.end());
  Filter expected = f;
  expected.insert_many(a);
  expected.insert_many(b);

  std::atomic<bool> go{false};
  auto worker = [&](const std::vector<std::string_view>& keys) {
    while (!go.load()) std::this_thread::yield();
    for (std::size_t at = 0; at < keys.size(); at += 1000) {
      f.insert_many_concurrent(
          std::span(keys).subspan(at, std::min<std::size_t>(1000, keys.size() - at)));
      bool probe[1];
      f.contains_many(std::span(keys).subspan(at, 1), probe);  // lookups race with the inserts
      EXPECT_TRUE(probe[0]) << kind;
    }
  };
  std::thread t1(worker, std::cref(a));
  std::thread t2(worker, std::cref(b));
  go = true;
  t1.join();
  t2.join();
  EXPECT_TRUE(f == expected) << kind << ": the bits differ from a single-threaded build";
  auto results = std::make_unique<bool[]>(a.size());
  EXPECT_EQ(f.contains_many(a, {results.get(), a.size()}), a.size()) << kind;
  EXPECT_EQ(f.contains_many(b, {results.get(), b.size()}), b.size()) << kind;
  EXPECT_GE(f.inserted(), expected.inserted()) << kind;  // a key both threads added may count twice
}

TEST(Concurrency, TwoThreadsThroughThePipelinedInsertPathOfEveryConcurrentStorage) {
  static_assert(bit_storage::concurrent_inserts && split_block_storage::concurrent_inserts);
  static_assert(!counter_storage::concurrent_inserts);  // counting: single writer
  two_threads_through_the_pipelined_path(bloom_filter::for_capacity(1'000'000, 0.01), "classic");
  two_threads_through_the_pipelined_path(blocked_bloom_filter::for_capacity(1'000'000, 0.01),
                                         "blocked");
}

// Lookups beside insert_concurrent on a small filter, so that the blocks being read are being
// written: each writer publishes how many of its keys are in (release), and readers look up only
// keys published to them (acquire), one at a time (the single-key path compiled here) and in
// batches (the kernels: AVX2's whole-block vector loads, or the portable relaxed loads). An
// insert that happens-before a lookup has all its bits in whatever word values the lookup's
// load sees, torn or not: no key may be missed, and TSan must see no race.
void lookups_beside_concurrent_inserts(bool simd) {
  constexpr std::size_t writers = 2;
  constexpr std::size_t per_writer = 30'000;
  // 128 KiB, about 37% of bits set at the end: blocks are written while read, and a lookup that
  // loses bits still answers "absent" (a saturated filter would hide it).
  auto f = blocked_bloom_filter::with_blocks(4096);
  f.set_simd(simd);
  std::vector<std::vector<std::string>> keys;
  for (std::size_t w = 0; w < writers; ++w) keys.push_back(make_keys(per_writer, 400 + w));
  std::atomic<std::size_t> published[writers] = {};
  std::atomic<std::size_t> writing{writers};
  std::atomic<std::size_t> missed{0};
  std::atomic<std::size_t> looked_up{0};

  // Each reader looks up every key once it is published: in batches of the keys published since
  // its last look, and the newest and one earlier key alone.
  auto reader = [&](std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    constexpr std::size_t batch = 32;
    bool results[batch];
    std::vector<std::string_view> recent;
    std::size_t seen[writers] = {};
    std::size_t misses = 0, lookups = 0;
    bool last_pass = false;
    while (!last_pass) {
      last_pass = writing.load(std::memory_order_acquire) == 0;
      for (std::size_t w = 0; w < writers; ++w) {
        const std::size_t done = published[w].load(std::memory_order_acquire);
        if (done == 0) continue;
        misses += !f.contains(keys[w][done - 1]);
        misses += !f.contains(keys[w][rng() % done]);
        lookups += 2;
        for (; seen[w] < done; seen[w] += recent.size()) {
          const auto first = keys[w].begin() + static_cast<std::ptrdiff_t>(seen[w]);
          recent.assign(first,
                        first + static_cast<std::ptrdiff_t>(std::min(batch, done - seen[w])));
          misses += recent.size() - f.contains_many(recent, {results, recent.size()});
          lookups += recent.size();
        }
      }
    }
    missed += misses;
    looked_up += lookups;
  };
  std::vector<std::thread> threads;
  for (std::uint64_t r = 0; r < 2; ++r) threads.emplace_back(reader, 500 + r);
  for (std::size_t w = 0; w < writers; ++w) {
    threads.emplace_back([&, w] {
      for (std::size_t i = 0; i < per_writer; ++i) {
        f.insert_concurrent(keys[w][i]);
        published[w].store(i + 1, std::memory_order_release);
      }
      writing.fetch_sub(1, std::memory_order_release);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(missed.load(), 0u) << "simd " << simd;
  EXPECT_GE(looked_up.load(), 2 * writers * per_writer);
  for (const auto& set : keys) {
    for (const auto& k : set) ASSERT_TRUE(f.contains(k)) << k;
  }
}

TEST(Concurrency, LookupsBesideConcurrentInsertsNeverMissAPublishedKey) {
  if (blocked_bloom_filter::simd_supported()) lookups_beside_concurrent_inserts(true);
  lookups_beside_concurrent_inserts(false);
}

}  // namespace
}  // namespace bloomkit
