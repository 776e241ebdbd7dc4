// examples/cache_guard end to end: cache_guard seeds a SQLite database, serves it with a real
// redis-server as cache and filter store, and cache_guard_load floods it. Serving, rebuilds,
// restarts, the load tool, a failed filter insert, credentials and bad setups.

#include <httplib.h>

#include <atomic>
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "cache_guard_fixture.hpp"
#include "support/redis_server.hpp"
#include "support/scoped_env.hpp"

namespace {

using namespace cache_guard_test;

TEST_F(CacheGuard, ServesExistingIdsAndStopsAbsentOnesAtTheFilter) {
  start();
  const std::string log = service_->err();
  EXPECT_NE(log.find("loading filter: " + std::to_string(seeded_items) + "/" +
                     std::to_string(seeded_items) + " ids (100%)"),
            std::string::npos)
      << log;

  std::string body;
  EXPECT_EQ(get(7, &body), 200);
  EXPECT_EQ(body, "item-7");
  EXPECT_EQ(get(7, &body), 200);  // now from the cache
  EXPECT_EQ(body, "item-7");
  EXPECT_EQ(get("0007", &body), 200);  // the same item: keys are canonical
  EXPECT_EQ(body, "item-7");
  EXPECT_EQ(get("abc"), 400);
  EXPECT_EQ(get("-3"), 400);
  EXPECT_EQ(get("0"), 400);
  EXPECT_EQ(get("99999999999999999999999"), 400);

  // No false negatives: every seeded id is served with its value (4 connections at once).
  std::atomic<std::int64_t> wrong{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 4; ++t) {
    clients.emplace_back([&, t] {
      httplib::Client c("127.0.0.1", port_);
      for (std::int64_t id = 1 + t; id <= seeded_items; id += 4) {
        const auto res = c.Get("/item/" + std::to_string(id));
        if (!res || res->status != 200 || res->body != "item-" + std::to_string(id)) ++wrong;
      }
    });
  }
  for (auto& c : clients) c.join();
  EXPECT_EQ(wrong.load(), 0);

  // Absent ids: all 404, and only about p of them reach the database.
  const stats before = read_stats();
  constexpr int absent = 3000;
  int not_404 = 0;
  for (int i = 0; i < absent; ++i) {
    if (get(absent_base + i * 7919) != 404) ++not_404;
  }
  EXPECT_EQ(not_404, 0);
  const stats after = read_stats();
  const double reached = after["db_not_found"] - before["db_not_found"];
  const double rejected = after["filter_rejections"] - before["filter_rejections"];
  EXPECT_EQ(reached + rejected, absent);
  // The filter holds `capacity` ids, so its false-positive rate is p; 5 p is far out of reach
  // (mean 30, standard deviation about 5.5).
  EXPECT_LT(reached, 5 * target_fpp * absent) << "reached " << reached;
  EXPECT_EQ(after["cache_hits"] - before["cache_hits"], 0);
  EXPECT_EQ(after["guard_enabled"], 1);
  EXPECT_EQ(after["target_fpp"], target_fpp);

  // With the guard off, every absent id reaches the database.
  auto res = http_->Post("/admin/guard?enabled=0", "", "text/plain");
  ASSERT_TRUE(res && res->status == 200);
  const stats off_before = read_stats();
  EXPECT_EQ(off_before["guard_enabled"], 0);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(get(absent_base + 1 + i * 7919), 404);
  EXPECT_EQ(read_stats()["db_not_found"] - off_before["db_not_found"], 50);
  res = http_->Post("/admin/guard?enabled=1", "", "text/plain");
  ASSERT_TRUE(res && res->status == 200);
  res = http_->Post("/admin/guard?enabled=2", "", "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);

  // An insert is in the database and the filter at once.
  res = http_->Post("/item", "a new item", "text/plain");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 201) << res->body;
  const std::string id = res->body.substr(0, res->body.find('\n'));
  EXPECT_EQ(id, std::to_string(seeded_items + 1));
  EXPECT_EQ(get(id, &body), 200);
  EXPECT_EQ(body, "a new item");
  const stats end = read_stats();
  for (const char* name : {"requests", "filter_rejections", "cache_hits", "db_queries", "db_found",
                           "db_not_found", "inserts", "rebuilds", "guard_enabled", "uptime"}) {
    EXPECT_EQ(end.values.count(name), 1u) << name;
  }
  EXPECT_EQ(end["db_queries"], end["db_found"] + end["db_not_found"]);
  EXPECT_EQ(end["inserts"], 1);
  EXPECT_GT(end["uptime"], 0);
  stop_service();
}

TEST_F(CacheGuard, RebuildsWithoutDowntime) {
  start();
  // A first request from this thread: cpp-httplib's client initializes a function-local static
  // regex in its (uninstrumented) library, which TSan would otherwise report as a race between
  // the first two client threads.
  EXPECT_EQ(get(1), 200);
  std::atomic<bool> done{false};
  std::atomic<std::int64_t> served{0}, failures{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&, t] {
      httplib::Client c("127.0.0.1", port_);
      std::int64_t id = 1 + t;
      while (!done.load()) {
        const auto res = c.Get("/item/" + std::to_string(id));
        if (!res || res->status != 200) failures.fetch_add(1);
        served.fetch_add(1);
        id = id % seeded_items + 1 + t;
        const auto absent = c.Get("/item/" + std::to_string(absent_base + id));
        if (!absent || absent->status != 404) failures.fetch_add(1);
      }
    });
  }
  while (served.load() < 50) std::this_thread::sleep_for(5ms);
  const auto res = http_->Post("/admin/rebuild", "", "text/plain");
  // An insert right after the rebuild, while lookups go on.
  const auto inserted = http_->Post("/item", "after rebuild", "text/plain");
  const std::int64_t served_during = served.load();
  done = true;
  for (auto& r : readers) r.join();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  EXPECT_NE(res->body.find("\"ids\": " + std::to_string(seeded_items)), std::string::npos)
      << res->body;
  EXPECT_NE(res->body.find("\"generation\": 2"), std::string::npos) << res->body;
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GT(served_during, 50);
  ASSERT_TRUE(inserted && inserted->status == 201);
  EXPECT_EQ(get(inserted->body.substr(0, inserted->body.find('\n'))), 200);
  // Every seeded id is still in the rebuilt filter.
  std::int64_t wrong = 0;
  for (std::int64_t id = 1; id <= seeded_items; id += 7) wrong += get(id) != 200;
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(read_stats()["rebuilds"], 1);
  const std::string log = service_->err();
  EXPECT_NE(log.find("rebuilding filter: " + std::to_string(seeded_items) + "/"), std::string::npos)
      << log;
  stop_service();
}

TEST_F(CacheGuard, RestartSkipsTheLoadOrLoadsOnlyNewerIds) {
  start();
  stop_service();
  start("second.err");
  EXPECT_NE(service_->err().find("already holds every id of sqlite:"), std::string::npos)
      << service_->err();
  const auto res = http_->Post("/item", "x", "text/plain");
  ASSERT_TRUE(res && res->status == 201);
  stop_service();
  // Rows added behind the service's back (or while it was down) are loaded at the next start.
  start("third.err");
  EXPECT_NE(
      service_->err().find("up to " + std::to_string(seeded_items) + ": loading the 1 newer ones"),
      std::string::npos)
      << service_->err();
  EXPECT_EQ(get(seeded_items + 1), 200);
  stop_service();

  // Another database: the filter is rebuilt from it (its ids only).
  db_ = at("other.db").string();
  process seed({CACHE_GUARD_EXE, "seed", "--db", db_, "--items", "100"}, at("seed2.out"),
               at("seed2.err"));
  ASSERT_EQ(seed.wait(), 0) << seed.err();
  start("fourth.err");
  EXPECT_NE(
      service_->err().find("exists but was not loaded from sqlite:" + db_ + ": rebuilding it"),
      std::string::npos)
      << service_->err();
  EXPECT_EQ(get(100), 200);
  const stats before = read_stats();
  EXPECT_EQ(get(seeded_items), 404);  // an id of the first database only
  EXPECT_EQ(read_stats()["filter_rejections"] - before["filter_rejections"], 1);
  stop_service();
}

// A SIGTERM sent as soon as "listening on" is printed may come before the accept loop runs.
TEST_F(CacheGuard, StopsOnASignalSentRightAfterListening) {
  for (int round = 0; round < 10; ++round) {
    start("round" + std::to_string(round) + ".err");
    stop_service();
  }
}

TEST_F(CacheGuard, LoadToolComparesGuardOffAndOn) {
  start();
  process load({CACHE_GUARD_LOAD_EXE, "--url", "http://127.0.0.1:" + std::to_string(port_),
                "--items", std::to_string(seeded_items), "--requests", "1500", "--threads", "3"},
               at("load.out"), at("load.err"));
  ASSERT_EQ(load.wait(), 0) << load.out() << load.err();
  const std::string out = load.out();
  EXPECT_EQ(out.find("guard "), out.find('\n') + 1) << out;  // the table's first column
  EXPECT_NE(out.find("  requests  requests/s  DB queries/s  non-existent sent  reached DB"),
            std::string::npos)
      << out;
  // Rows: guard requests requests/s queries/s sent reached share%.
  std::map<std::string, std::pair<double, double>> rows;  // guard -> (sent, reached)
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string guard, share;
    double requests = 0, rate = 0, queries = 0, sent = 0, reached = 0;
    if (!(fields >> guard >> requests >> rate >> queries >> sent >> reached >> share)) continue;
    if (guard != "off" && guard != "on") continue;
    EXPECT_EQ(requests, 1500) << line;
    EXPECT_EQ(share.back(), '%') << line;
    rows[guard] = {sent, reached};
  }
  ASSERT_EQ(rows.size(), 2u) << out;
  EXPECT_GT(rows["off"].first, 500);                        // about half of 1500
  EXPECT_EQ(rows["off"].second, rows["off"].first) << out;  // without the guard: all reach the DB
  EXPECT_LT(rows["on"].second, 5 * target_fpp * rows["on"].first + 5) << out;
  EXPECT_EQ(read_stats()["guard_enabled"], 1);  // left as it was
  stop_service();
}

// A row whose filter insert failed must still be found: lookups bypass the filter until a
// reload (started at once) has added it.
TEST_F(CacheGuard, FailedFilterInsertBypassesTheFilterUntilAReload) {
  start();
  EXPECT_EQ(get(absent_base), 404);
  // Break shard 0 of generation 1: every BITFIELD on it now fails with WRONGTYPE.
  redis_->raw({"DEL", "cache_guard:items:1:0"});
  redis_->raw({"RPUSH", "cache_guard:items:1:0", "not a bitmap"});
  auto res = http_->Post("/item", "unlucky", "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 500);
  const std::string id = std::to_string(seeded_items + 1);
  EXPECT_NE(res->body.find("item " + id + " is stored, but adding it to the filter failed"),
            std::string::npos)
      << res->body;
  std::string body;
  EXPECT_EQ(get(id, &body), 200);  // not a false negative
  EXPECT_EQ(body, "unlucky");
  EXPECT_EQ(get(3, &body), 200);
  EXPECT_EQ(get(absent_base + 1), 404);

  wait_until_reloaded(1);
  EXPECT_EQ(redis_->raw({"TYPE", "cache_guard:items:1:0"}).str(), "string");
  EXPECT_EQ(get(id, &body), 200);
  EXPECT_EQ(body, "unlucky");
  expect_filter_blocks_absent_ids(absent_base + 2);
  res = http_->Post("/admin/rebuild", "", "text/plain");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(get(id), 200);
  stop_service();
}

// Credentials off the command line, where `ps` shows them: BLOOMKIT_REDIS_URL names the server,
// REDISCLI_AUTH gives the password; no message shows it.
TEST_F(CacheGuard, StartsWithCredentialsFromTheEnvironment) {
  using bloomkit::test::scoped_env;
  bloomkit::test::redis_server_options o;
  o.requirepass = "Guard7-pass";
  redis_ = std::make_unique<redis_server>(o);  // instead of the fixture's password-less server
  const std::string url = "redis://" + redis_->address();
  {
    scoped_env env({{"BLOOMKIT_REDIS_URL", url}, {"REDISCLI_AUTH", "Guard7-pass"}});
    start("service.err", {}, /*redis_from_env=*/true);
  }
  EXPECT_EQ(get(1), 200);
  EXPECT_EQ(get(absent_base + 1), 404);
  EXPECT_EQ(redis_->raw({"EXISTS", "cache_guard:items:meta"}).integer(), 1);
  stop_service();
  EXPECT_EQ(service_->err().find("Guard7"), std::string::npos) << service_->err();

  // A wrong password, from the environment or --redis: exit 1 naming the server, not the password.
  const auto refused = [&](const std::vector<std::string>& redis_args) {
    std::vector<std::string> args{CACHE_GUARD_EXE, "--db", db_, "--listen", "127.0.0.1:0"};
    args.insert(args.end(), redis_args.begin(), redis_args.end());
    process p(args, at("bad.out"), at("bad.err"));
    EXPECT_EQ(p.wait(), 1) << p.err();
    const std::string err = p.err();
    EXPECT_EQ(err.rfind("cache_guard: error: Redis at " + redis_->address() + " refused AUTH", 0),
              0u)
        << err;
    EXPECT_EQ(err.find("Wrong7"), std::string::npos) << err;
  };
  {
    scoped_env env({{"BLOOMKIT_REDIS_URL", url}, {"REDISCLI_AUTH", "Wrong7-pass"}});
    refused({});
  }
  refused({"--redis", "redis://:Wrong7-pass@" + redis_->address()});
}

// Each bad setup ends with exit 1 and one clear message.
TEST_F(CacheGuard, ClearErrorsForBadSetups) {
  const auto fails_with = [&](const std::vector<std::string>& args, const std::string& message) {
    std::vector<std::string> argv{CACHE_GUARD_EXE};
    argv.insert(argv.end(), args.begin(), args.end());
    process p(argv, at("bad.out"), at("bad.err"));
    EXPECT_EQ(p.wait(), 1) << p.err();
    const std::string err = p.err();
    EXPECT_EQ(err.rfind("cache_guard: error: ", 0), 0u) << err;
    EXPECT_NE(err.find(message), std::string::npos) << err;
  };
  // Nothing listens on the port of a stopped server.
  redis_server gone;
  const std::string gone_url = gone.url();
  const std::string gone_address = gone.address();
  gone.stop();
  fails_with({"--db", db_, "--redis", gone_url, "--listen", "127.0.0.1:0"}, gone_address);
  fails_with({"--db", at("missing.db").string(), "--redis", redis_->url()}, "cannot open sqlite:");
  std::ofstream(at("empty.db")).close();
  fails_with({"--db", "sqlite:" + at("empty.db").string(), "--redis", redis_->url()},
             "has no table items (create it with: cache_guard seed");
  fails_with({"--db", "postgres://cache_guard@127.0.0.1:1/items", "--redis", redis_->url()},
             "cannot connect to postgres://cache_guard@127.0.0.1:1/items");
  fails_with({"--redis", "redis://127.0.0.1:99999", "--db", db_}, "99999");
  fails_with({"seed", "--db", db_, "--items", "10"}, "has a table items already");
}

}  // namespace
