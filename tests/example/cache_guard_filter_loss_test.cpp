// cache_guard when its filter disappears (issue 11 item 14): a Redis restart without
// persistence, a dropped or evicted filter, a lost shard, Redis down, a broken filter at start.
// The service answers from the database meanwhile, reloads the filter and guards again.

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "cache_guard_fixture.hpp"

namespace {

using namespace cache_guard_test;

// Reads existing and absent ids from two clients and inserts from a third until stopped;
// records every wrong answer (a 500, a 404 for an existing id, a 200 for an absent one).
class traffic {
 public:
  explicit traffic(int port) {
    for (int t = 0; t < 2; ++t) {
      threads_.emplace_back([this, port, t] {
        httplib::Client c("127.0.0.1", port);
        c.set_read_timeout(30, 0);
        std::int64_t id = 1 + t * 4999;
        while (!done_.load()) {
          const auto res = c.Get("/item/" + std::to_string(id));
          if (!res || res->status != 200 || res->body != "item-" + std::to_string(id)) {
            wrong("GET " + std::to_string(id), res);
          }
          const std::int64_t absent = absent_base + 13 * id;
          const auto none = c.Get("/item/" + std::to_string(absent));
          if (!none || none->status != 404) wrong("GET " + std::to_string(absent), none);
          id = id % seeded_items + 1;
          reads_.fetch_add(1);
        }
      });
    }
    threads_.emplace_back([this, port] {
      httplib::Client c("127.0.0.1", port);
      c.set_read_timeout(30, 0);
      for (int n = 0; !done_.load(); ++n) {
        const std::string value = "inserted-" + std::to_string(n);
        const auto res = c.Post("/item", value, "text/plain");
        if (!res || res->status != 201) {
          wrong("POST " + value, res);
          continue;
        }
        std::lock_guard lock(mutex_);
        inserted_.emplace_back(std::stoll(res->body), value);
      }
    });
  }
  ~traffic() { stop(); }
  void stop() {
    done_ = true;
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
  }
  std::int64_t reads() const { return reads_.load(); }
  std::vector<std::string> wrong_answers() {
    std::lock_guard lock(mutex_);
    return wrong_;
  }
  std::vector<std::pair<std::int64_t, std::string>> inserted() {
    std::lock_guard lock(mutex_);
    return inserted_;
  }

 private:
  void wrong(const std::string& what, const httplib::Result& res) {
    std::lock_guard lock(mutex_);
    if (wrong_.size() < 10) {
      wrong_.push_back(what + ": " +
                       (res ? std::to_string(res->status) + " " + res->body
                            : "no answer (" + httplib::to_string(res.error()) + ")"));
    } else {
      wrong_.back() = "... and more";
    }
  }

  std::atomic<bool> done_{false};
  std::atomic<std::int64_t> reads_{0};
  std::mutex mutex_;
  std::vector<std::string> wrong_;
  std::vector<std::pair<std::int64_t, std::string>> inserted_;
  std::vector<std::thread> threads_;
};

// Redis restarted without persistence (how examples/cache_guard/serve runs it) loses the filter:
// the service answers from the database, recreates and reloads the filter in the background,
// keeps the rows inserted meanwhile, and then guards again. It also starts again cleanly.
TEST_F(CacheGuard, RedisRestartWithoutPersistence) {
  start();
  EXPECT_EQ(get(1), 200);  // see RebuildsWithoutDowntime (TSan and httplib's static regex)
  redis_->restart();
  ASSERT_TRUE(filter_keys().empty());
  // The first lookup finds the filter gone: answered by the database.
  std::string body;
  EXPECT_EQ(get(2, &body), 200);
  EXPECT_EQ(body, "item-2");
  traffic load(port_);
  wait_until_reloaded(1);
  while (load.reads() < 100) std::this_thread::sleep_for(5ms);
  load.stop();
  EXPECT_EQ(load.wrong_answers(), std::vector<std::string>{});
  // The rows inserted while the filter was missing or loading are in the new filter.
  const auto inserted = load.inserted();
  ASSERT_FALSE(inserted.empty());
  for (const auto& [id, value] : inserted) {
    EXPECT_EQ(get(id, &body), 200) << id;
    EXPECT_EQ(body, value);
  }
  expect_filter_blocks_absent_ids(absent_base + 5);
  const stats s = read_stats();
  EXPECT_EQ(s["filter_reloads"], 1);
  EXPECT_GE(s["bypassed_lookups"], 1);
  EXPECT_EQ(s["reloading"], 0);
  const std::string log = service_->err();
  EXPECT_NE(log.find("filter cache_guard:items is missing"), std::string::npos) << log;
  EXPECT_NE(log.find("reloading filter: "), std::string::npos) << log;
  stop_service();

  // The reload wrote the stamp: a restart loads at most the ids inserted after the reload.
  start("second.err");
  EXPECT_NE(service_->err().find("filter cache_guard:items "), std::string::npos)
      << service_->err();
  EXPECT_EQ(service_->err().find("created filter"), std::string::npos) << service_->err();
  EXPECT_EQ(service_->err().find("rebuilding"), std::string::npos) << service_->err();
  EXPECT_EQ(get(inserted.back().first), 200);
  stop_service();
}

// The filter's keys deleted behind the service's back (`bloomkit redis drop`, or evicted): the
// meta alone, then every key.
TEST_F(CacheGuard, ReloadsAFilterDroppedOrEvicted) {
  start();
  EXPECT_EQ(get(1), 200);
  redis_->raw({"DEL", "cache_guard:items:meta"});
  EXPECT_EQ(get(3), 200);
  EXPECT_EQ(get(absent_base), 404);
  {
    traffic load(port_);
    wait_until_reloaded(1);
    load.stop();
    EXPECT_EQ(load.wrong_answers(), std::vector<std::string>{});
  }
  expect_filter_blocks_absent_ids(absent_base + 1);

  for (const auto& key : filter_keys()) redis_->raw({"DEL", key});
  EXPECT_EQ(get(4), 200);
  wait_until_reloaded(2);
  expect_filter_blocks_absent_ids(absent_base + 2);
  std::int64_t wrong = 0;
  for (std::int64_t id = 1; id <= seeded_items; id += 97) wrong += get(id) != 200;
  EXPECT_EQ(wrong, 0);
  stop_service();
}

// A shard evicted or deleted while the meta survives.
TEST_F(CacheGuard, ReloadsAFilterThatLostAShard) {
  start();
  EXPECT_EQ(get(1), 200);
  redis_->raw({"DEL", "cache_guard:items:1:0"});
  std::string body;
  EXPECT_EQ(get(5, &body), 200);
  EXPECT_EQ(body, "item-5");
  wait_until_reloaded(1);
  expect_filter_blocks_absent_ids(absent_base + 3);
  stop_service();

  // The same at startup: the stamp says "loaded", but a shard is gone.
  redis_->raw({"DEL", "cache_guard:items:1:0"});
  start("second.err");
  EXPECT_EQ(get(6, &body), 200);
  EXPECT_EQ(body, "item-6");
  wait_until_reloaded(0);
  expect_filter_blocks_absent_ids(absent_base + 4);
  stop_service();
}

// While Redis is down every lookup is answered by the database (no 500); an insert stores its row;
// once Redis is back (empty) the filter is reloaded with every row, the new one included.
TEST_F(CacheGuard, AnswersFromTheDatabaseWhileRedisIsDown) {
  start();
  EXPECT_EQ(get(1), 200);
  redis_->kill();
  const auto started = std::chrono::steady_clock::now();
  std::string body;
  for (std::int64_t id = 10; id < 30; ++id) {
    EXPECT_EQ(get(id, &body), 200) << body;
    EXPECT_EQ(body, "item-" + std::to_string(id));
    EXPECT_EQ(get(absent_base + id), 404);
  }
  // Redis is not asked again for every request while it is down.
  EXPECT_LT(std::chrono::steady_clock::now() - started, 15s);
  auto res = http_->Post("/item", "stored while Redis was down", "text/plain");
  ASSERT_TRUE(res);
  const std::string id = std::to_string(seeded_items + 1);
  EXPECT_NE(res->body.find("item " + id), std::string::npos) << res->status << " " << res->body;
  stats s = read_stats();
  EXPECT_EQ(s["filter_bypassed"], 1);
  EXPECT_GT(s["redis_errors"], 0);
  redis_->restart();
  wait_until_reloaded(1);
  EXPECT_EQ(get(id, &body), 200);
  EXPECT_EQ(body, "stored while Redis was down");
  expect_filter_blocks_absent_ids(absent_base + 7);
  stop_service();
}

// Leftovers that used to stop the service from starting ("remove it first", "has other
// parameters"): it removes them, recreates the filter and loads it.
TEST_F(CacheGuard, StartsOverABrokenFilter) {
  const auto starts_and_guards = [&](const std::string& log, const std::string& message,
                                     const std::vector<std::string>& more = {}) {
    start(log, more);
    if (HasFatalFailure()) return;
    EXPECT_NE(service_->err().find(message), std::string::npos) << service_->err();
    EXPECT_NE(service_->err().find("loading filter: " + std::to_string(seeded_items) + "/"),
              std::string::npos)
        << service_->err();
    std::string body;
    EXPECT_EQ(get(seeded_items, &body), 200);
    EXPECT_EQ(body, "item-" + std::to_string(seeded_items));
    expect_filter_blocks_absent_ids(absent_base);
    stop_service();
  };
  // An orphan shard without a meta (a write through a stale handle after a restart).
  redis_->raw({"SETBIT", "cache_guard:items:1:0", "7", "1"});
  starts_and_guards("orphan.err", "created filter cache_guard:items");
  EXPECT_EQ(redis_->raw({"EXISTS", "cache_guard:items:meta"}).integer(), 1);
  // A filter of other parameters than --capacity asks for.
  starts_and_guards("capacity.err", "recreating it",
                    {"--capacity", std::to_string(2 * seeded_items)});
  // A meta of the wrong type, and one with missing fields.
  redis_->raw({"DEL", "cache_guard:items:meta"});
  redis_->raw({"SET", "cache_guard:items:meta", "not a hash"});
  starts_and_guards("wrongtype.err", "recreating it");
  redis_->raw({"HDEL", "cache_guard:items:meta", "hashes"});
  starts_and_guards("fields.err", "recreating it");
}

}  // namespace
