// Chaos of a static filter with a delta in Redis: rebuilds one after the other while a writer
// inserts new keys (as a service does: the database first, then the filter) and a reader looks
// up every key whose insert returned. No lookup may ever answer absent for such a key, nor for a
// key of the base set: not before a rebuild, not across its flip, not after it.

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bloomkit/redis/client.hpp"
#include "bloomkit/redis/static_filter.hpp"
#include "support/redis_server.hpp"

namespace {

using bloomkit::redis::client;
using bloomkit::redis::redis_static_filter;
using bloomkit::test::redis_server;

// "<prefix><i>", built by append (GCC 12 warns falsely on "literal" + string at -O3).
std::string static_key(std::string prefix, long long i) {
  return prefix.append(std::to_string(i));
}

// The service's database of ids: keys are appended, a rebuild reads them all.
class id_table {
 public:
  void add(std::string key) {
    const std::lock_guard lock(m_);
    keys_.push_back(std::move(key));
  }
  std::vector<std::string> snapshot() const {
    const std::lock_guard lock(m_);
    return keys_;
  }

 private:
  mutable std::mutex m_;
  std::vector<std::string> keys_;
};

TEST(ChaosStatic, RebuildsUnderConcurrentInsertsAndLookupsNeverAnswerAbsentForAKnownKey) {
  BLOOMKIT_REQUIRE_REDIS();
  redis_server s;
  id_table table;
  std::vector<std::string> base;
  for (int i = 0; i < 20000; ++i) base.push_back(static_key("base-", i));
  for (const auto& k : base) table.add(k);
  bloomkit::redis::filter_options options;
  options.rebuild_grace = std::chrono::milliseconds(200);  // old generations expire quickly
  {
    client c = client::connect(s.url());
    bloomkit::redis::static_rebuild_options o;
    o.fpp = 0.01;
    o.delta_capacity = 20000;
    o.shard_bits = 12;  // many strings per generation
    const std::vector<std::string_view> v(base.begin(), base.end());
    redis_static_filter::rebuild(c, "ids", v, o, options);
  }
  std::atomic<bool> stop{false};
  std::mutex acked_m;
  std::vector<std::string> acked;  // inserts that returned
  std::atomic<long long> lookups{0};
  std::atomic<long long> false_negatives{0};
  std::string reader_error;
  std::string writer_error;
  std::thread writer([&] {
    try {
      client c = client::connect(s.url());
      auto f = redis_static_filter::open(c, "ids", options);
      for (long long i = 0; !stop; ++i) {
        std::vector<std::string> batch;
        for (int j = 0; j < 20; ++j) batch.push_back(static_key("new-", i * 20 + j));
        for (const auto& k : batch) table.add(k);  // the row first, then the filter
        const std::vector<std::string_view> v(batch.begin(), batch.end());
        f.insert_many(v);
        const std::lock_guard lock(acked_m);
        acked.insert(acked.end(), batch.begin(), batch.end());
      }
    } catch (const std::exception& e) {
      writer_error = e.what();
    }
  });
  std::thread reader([&] {
    try {
      client c = client::connect(s.url());
      auto f = redis_static_filter::open(c, "ids", options);
      for (long long round = 0; !stop; ++round) {
        std::vector<std::string> keys;
        {
          const std::lock_guard lock(acked_m);
          // The newest inserts and a spread of older ones.
          const std::size_t n = acked.size();
          for (std::size_t i = n > 200 ? n - 200 : 0; i < n; ++i) keys.push_back(acked[i]);
          for (std::size_t i = static_cast<std::size_t>(round) % 7; i < n; i += 97) {
            keys.push_back(acked[i]);
          }
        }
        for (std::size_t i = static_cast<std::size_t>(round) % 13; i < base.size(); i += 101) {
          keys.push_back(base[i]);
        }
        const std::vector<std::string_view> v(keys.begin(), keys.end());
        std::unique_ptr<bool[]> out(new bool[v.size()]);
        const std::size_t present = f.contains_many(v, {out.get(), v.size()});
        lookups += static_cast<long long>(v.size());
        false_negatives += static_cast<long long>(v.size() - present);
      }
    } catch (const std::exception& e) {
      reader_error = e.what();
    }
  });
  client c = client::connect(s.url());
  auto f = redis_static_filter::open(c, "ids", options);
  for (int r = 0; r < 4; ++r) {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    // The source is read after the rebuild marked the filter: every id committed before that
    // is in the snapshot, every later insert reaches the new delta.
    f.rebuild([&](const bloomkit::redis::key_sink& sink) {
      const auto all = table.snapshot();
      const std::vector<std::string_view> v(all.begin(), all.end());
      for (std::size_t at = 0; at < v.size(); at += 4096) {
        sink(std::span(v).subspan(at, std::min<std::size_t>(4096, v.size() - at)));
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // past the last grace
  stop = true;
  writer.join();
  reader.join();
  EXPECT_EQ(writer_error, "");
  EXPECT_EQ(reader_error, "");
  EXPECT_EQ(f.generation(), 5u);
  EXPECT_GT(lookups.load(), 10000);
  EXPECT_EQ(false_negatives.load(), 0) << "of " << lookups.load() << " lookups";
  // Every key ever acknowledged, at the end, from a fresh handle.
  auto last = redis_static_filter::open(c, "ids");
  const std::vector<std::string_view> v(acked.begin(), acked.end());
  std::unique_ptr<bool[]> out(new bool[v.size()]);
  EXPECT_EQ(last.contains_many(v, {out.get(), v.size()}), v.size());
  EXPECT_GT(acked.size(), 100u);
}

}  // namespace
