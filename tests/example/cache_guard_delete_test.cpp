// examples/cache_guard's deletes and negative caching against a real redis-server and SQLite:
// no existing id ever answers 404 (during deletes, POSTs and rebuilds), a deleted id is 404 from
// the first request after its DELETE returns (its cache entry warm before), with the counting
// filter (removed from it) and the bloom filter (scheduled rebuilds); absent ids that pass the
// filter reach the database once per negative-cache TTL, and a POST of such an id clears it.

#include <httplib.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "cache_guard_fixture.hpp"

namespace {

using namespace cache_guard_test;
using namespace std::chrono_literals;

class CacheGuardDeletes : public CacheGuard {
 protected:
  int del(std::int64_t id) {
    const auto res = http_->Delete("/item/" + std::to_string(id));
    return res ? res->status : -1;
  }

  // Readers GET the ids that stay, a writer POSTs new rows and reads them back, while the
  // deleter DELETEs every 10th id (read first, so it is cached) and reads it right after its
  // DELETE returned. Returns the ids deleted.
  std::vector<std::int64_t> delete_under_load(bool rebuild_midway) {
    std::atomic<bool> done{false};
    std::atomic<int> wrong_404{0}, stale{0}, bad_posts{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t) {
      threads.emplace_back([&, t] {
        httplib::Client c("127.0.0.1", port_);
        for (std::int64_t i = 0; !done.load(); ++i) {
          std::int64_t id = 1 + (i * 7 + t) % seeded_items;
          if (id % 10 == 0) ++id;  // ids that stay
          const auto res = c.Get("/item/" + std::to_string(id));
          if (!res || res->status != 200) ++wrong_404;
        }
      });
    }
    threads.emplace_back([&] {
      httplib::Client c("127.0.0.1", port_);
      while (!done.load()) {
        const auto res = c.Post("/item", "new", "text/plain");
        if (!res || res->status != 201) {
          ++bad_posts;
          continue;
        }
        const auto back = c.Get("/item/" + res->body.substr(0, res->body.size() - 1));
        if (!back || back->status != 200) ++wrong_404;
      }
    });
    std::vector<std::int64_t> deleted;
    httplib::Client c("127.0.0.1", port_);
    for (std::int64_t id = 10; id <= seeded_items / 4; id += 10) {
      if (rebuild_midway && id == seeded_items / 8) {
        const auto res = c.Post("/admin/rebuild", "", "text/plain");
        EXPECT_TRUE(res && res->status == 200);
      }
      EXPECT_EQ(c.Get("/item/" + std::to_string(id))->status, 200);  // now cached
      const auto res = c.Delete("/item/" + std::to_string(id));
      EXPECT_TRUE(res && res->status == 200) << (res ? res->body : "no reply");
      const auto after = c.Get("/item/" + std::to_string(id));
      if (!after || after->status != 404) ++stale;
      deleted.push_back(id);
    }
    done.store(true);
    for (auto& t : threads) t.join();
    EXPECT_EQ(wrong_404.load(), 0);
    EXPECT_EQ(stale.load(), 0);
    EXPECT_EQ(bad_posts.load(), 0);
    return deleted;
  }
};

TEST_F(CacheGuardDeletes, CountingFilterForgetsDeletedIds) {
  start("service.err", {"--filter", "counting"});
  const auto deleted = delete_under_load(/*rebuild_midway=*/true);
  const stats s = read_stats();
  EXPECT_EQ(s["deletes"], static_cast<double>(deleted.size()));
  // Removes are skipped while the rebuild runs; every other DELETE removed its id.
  EXPECT_GT(s["filter_removes"], 0.8 * static_cast<double>(deleted.size()));
  EXPECT_EQ(del(deleted.front()), 404);  // gone already: the filter is not touched again
  EXPECT_EQ(read_stats()["filter_removes"], s["filter_removes"]);
  // Deleted ids are answered by the filter now, nearly all of them (p = 1%).
  const stats before = read_stats();
  for (const auto id : deleted) EXPECT_EQ(get(id), 404) << id;
  const double rejected = read_stats()["filter_rejections"] - before["filter_rejections"];
  EXPECT_GT(rejected, 0.75 * static_cast<double>(deleted.size()));
  stop_service();
}

TEST_F(CacheGuardDeletes, BloomFilterDropsDeletedIdsAtItsScheduledRebuild) {
  start("service.err", {"--filter", "bloom", "--rebuild-every", "2s"});
  const auto deleted = delete_under_load(/*rebuild_midway=*/false);
  EXPECT_EQ(read_stats()["filter_removes"], 0);
  // A rebuild that was running when the deletes ended may have read their rows already: the
  // second one to finish from here started after the last DELETE returned.
  const double rebuilds = read_stats()["rebuilds"];
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (read_stats()["rebuilds"] < rebuilds + 2) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << service_->err();
    std::this_thread::sleep_for(50ms);
  }
  const stats before = read_stats();
  for (const auto id : deleted) EXPECT_EQ(get(id), 404) << id;
  const double rejected = read_stats()["filter_rejections"] - before["filter_rejections"];
  EXPECT_GT(rejected, 0.9 * static_cast<double>(deleted.size()));
  stop_service();
}

TEST_F(CacheGuardDeletes, NegativeCacheStopsRepeatsAndAPostClearsIt) {
  start("service.err", {"--filter", "bloom", "--negative-ttl", "60"});
  // Ids above the table that pass the filter (false positives): the first GET of each reaches
  // the database, the repeats are negative-cache hits.
  std::vector<std::int64_t> passing;
  for (std::int64_t id = seeded_items + 1000; passing.size() < 3 && id < seeded_items + 100000;
       ++id) {
    const stats before = read_stats();
    EXPECT_EQ(get(id), 404);
    if (read_stats()["db_not_found"] > before["db_not_found"]) passing.push_back(id);
  }
  ASSERT_EQ(passing.size(), 3u);
  const stats before = read_stats();
  for (int i = 0; i < 20; ++i) {
    for (const auto id : passing) EXPECT_EQ(get(id), 404);
  }
  const stats after = read_stats();
  EXPECT_EQ(after["db_queries"], before["db_queries"]);
  EXPECT_EQ(after["negative_cache_hits"] - before["negative_cache_hits"], 60);
  // A deleted row's id is cached as absent too; SQLite gives the largest id again to the next
  // row, whose POST must clear that entry before it answers.
  EXPECT_EQ(get(seeded_items), 200);
  EXPECT_EQ(del(seeded_items), 200);
  EXPECT_EQ(get(seeded_items), 404);
  const auto res = http_->Post("/item", "reborn", "text/plain");
  ASSERT_TRUE(res && res->status == 201);
  EXPECT_EQ(res->body, std::to_string(seeded_items) + "\n");
  std::string body;
  EXPECT_EQ(get(seeded_items, &body), 200);
  EXPECT_EQ(body, "reborn");
  stop_service();
}

// A DELETE of the largest id racing a POST, which SQLite gives that same id once the DELETE has
// committed: in whatever order their steps interleave, no negative entry is left over the new
// row (before, the DELETE's entry could land after the POST had cleared it: 404 for an existing
// row for 60 s). A gap between the DELETE's commit and its Redis step happens when its commit
// checkpoints the WAL (in production, every thousand or so pages written); here the test makes
// every DELETE's commit checkpoint, by writing about 1,000 WAL pages through its own connection
// (which never checkpoints) just before it.
TEST_F(CacheGuardDeletes, DeleteRacingAPostOfTheSameIdLeavesNoNegativeEntry) {
  start("service.err", {"--filter", "bloom", "--negative-ttl", "60"});
  sqlite3* ballast = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &ballast), SQLITE_OK);
  const auto sql = [&](const char* text) {
    ASSERT_EQ(sqlite3_exec(ballast, text, nullptr, nullptr, nullptr), SQLITE_OK)
        << sqlite3_errmsg(ballast) << " in " << text;
  };
  sqlite3_busy_timeout(ballast, 5000);
  sql("PRAGMA wal_autocheckpoint = 0");
  sql("PRAGMA synchronous = OFF");
  sql("CREATE TABLE ballast (b BLOB)");

  // The racers wait for a round number, then fire: the POST from together with the DELETE to
  // 1.5 times the DELETE's last measured duration after it, so that the POST lands before, inside
  // and after the DELETE's steps at any machine speed (a fixed spread made a slow machine, a
  // sanitizer build, see too few rounds where the POST got the id back).
  std::atomic<bool> done{false};
  std::atomic<int> round{0}, finished{0};
  std::atomic<std::int64_t> target{0}, posted{0}, delete_us{400};
  const auto racer = [&](bool deleter) {
    httplib::Client c("127.0.0.1", port_);
    for (int seen = 0;;) {
      while (round.load() == seen && !done.load()) std::this_thread::yield();
      if (done.load()) return;
      seen = round.load();
      const auto start = std::chrono::steady_clock::now();
      if (deleter) {
        c.Delete("/item/" + std::to_string(target.load()));
        delete_us.store(std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::steady_clock::now() - start)
                            .count());
      } else {
        const auto until =
            start + std::chrono::microseconds(delete_us.load() * 3 / 2 * (seen * 37 % 100) / 100);
        while (std::chrono::steady_clock::now() < until) {
        }
        const auto res = c.Post("/item", "reborn", "text/plain");
        posted.store(res && res->status == 201 ? std::stoll(res->body) : -1);
      }
      finished.fetch_add(1);
    }
  };
  std::thread deleter(racer, true), poster(racer, false);
  // Rounds go on until 20 of them reused the id (those are the ones that can fail).
  constexpr int wanted_reuses = 20;
  int rounds = 0, reused = 0, wrong = 0;
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < deadline && reused < wanted_reuses && wrong < 3) {
    const auto res = http_->Post("/item", "doomed", "text/plain");
    ASSERT_TRUE(res && res->status == 201);
    target.store(std::stoll(res->body));
    sql("BEGIN; DELETE FROM ballast; INSERT INTO ballast VALUES (zeroblob(4000000)); COMMIT");
    finished.store(0);
    round.fetch_add(1);
    while (finished.load() < 2) std::this_thread::yield();
    ++rounds;
    ASSERT_GT(posted.load(), 0);
    if (posted.load() != target.load()) continue;  // the POST came first: a new id
    ++reused;
    const std::string key = std::to_string(target.load());
    std::string body;
    const int status = get(key, &body);
    const auto entry = redis_->raw({"EXISTS", "item:{" + key + "}:absent"});
    if (status != 200 || body != "reborn" || entry.integer() != 0) {
      ++wrong;
      ADD_FAILURE() << "round " << rounds << ": item " << key << " exists, GET answers " << status
                    << ", negative entry: " << entry.integer();
    }
  }
  done.store(true);
  deleter.join();
  poster.join();
  sqlite3_close(ballast);
  EXPECT_EQ(wrong, 0) << "in " << reused << " rounds of " << rounds << " reusing the id";
  EXPECT_TRUE(wrong > 0 || reused >= wanted_reuses)
      << "only " << reused << " of " << rounds << " rounds reused the id";
  std::printf("%d of %d rounds reused the id\n", reused, rounds);
  stop_service();
}

}  // namespace
