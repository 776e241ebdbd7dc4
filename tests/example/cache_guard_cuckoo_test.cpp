// examples/cache_guard --filter cuckoo against a real redis-server that loads the bloomkit module:
// the service picks the module's native cuckoo kind (BK.*), or CF.* when
// CACHE_GUARD_CUCKOO_COMMANDS=cf forces it (the path for RedisBloom and Redis 8); on both, a
// DELETE takes its id out of the filter and a rebuild keeps every existing id. A native filter
// with no room loses no id (the service bypasses it and reloads it larger), and a server with
// neither command set stops the service with an error that points to --filter counting.

#include <httplib.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cache_guard_fixture.hpp"
#include "support/scoped_env.hpp"

namespace {

using namespace cache_guard_test;
using namespace std::chrono_literals;

constexpr const char* filter = "cache_guard:items";

class CacheGuardCuckoo : public CacheGuard {
 protected:
  // The fixture's server, replaced by one that loads the module.
  void use_module_server() {
    bloomkit::test::redis_server_options o;
    o.extra_args = {"--loadmodule", BLOOMKIT_REDIS_MODULE};
    redis_ = std::make_unique<redis_server>(o);
  }
  int del(std::int64_t id) {
    const auto res = http_->Delete("/item/" + std::to_string(id));
    return res ? res->status : -1;
  }
  std::string commands() {
    return redis_->raw({"HGET", std::string(filter) + ":cuckoo", "commands"}).str();
  }
  bool in_filter(std::int64_t id) {
    const std::string exists = commands() == "bk" ? "BK.EXISTS" : "CF.EXISTS";
    return redis_->raw({exists, filter, std::to_string(id)}).integer() == 1;
  }
  // Deletes, a rebuild, and every id's answer after both, with the filter kept by `set`.
  void expect_deletes_and_rebuild(const std::string& set, const std::string& type,
                                  const std::string& created) {
    EXPECT_NE(service_->err().find(created), std::string::npos) << service_->err();
    EXPECT_EQ(commands(), set);
    EXPECT_EQ(redis_->raw({"TYPE", filter}).str(), type);
    expect_filter_blocks_absent_ids(absent_base);

    std::vector<std::int64_t> deleted;
    for (std::int64_t id = 10; id <= 2000; id += 10) {
      ASSERT_EQ(get(id), 200);  // cached now
      ASSERT_EQ(del(id), 200) << id;
      EXPECT_EQ(get(id), 404) << id;
      deleted.push_back(id);
    }
    stats s = read_stats();
    EXPECT_EQ(s["deletes"], deleted.size());
    EXPECT_EQ(s["filter_removes"], deleted.size());  // each id was added once: the remove finds it
    int still_in = 0;
    for (const std::int64_t id : deleted) still_in += in_filter(id);
    EXPECT_LE(still_in, 0.05 * static_cast<double>(deleted.size()) + 2);

    const auto rebuilt = http_->Post("/admin/rebuild", "", "text/plain");
    ASSERT_TRUE(rebuilt && rebuilt->status == 200) << (rebuilt ? rebuilt->body : "no reply");
    EXPECT_NE(rebuilt->body.find("\"generation\": 2"), std::string::npos) << rebuilt->body;
    EXPECT_EQ(redis_->raw({"TYPE", filter}).str(), type);
    const auto made = http_->Post("/item", "new", "text/plain");
    ASSERT_TRUE(made && made->status == 201);
    EXPECT_EQ(get(made->body.substr(0, made->body.size() - 1)), 200);
    int wrong = 0;
    for (std::int64_t id = 1; id <= seeded_items; id += 7) {
      wrong += get(id) != (id % 10 == 0 && id <= 2000 ? 404 : 200);
    }
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(redis_->raw({"EXISTS", std::string(filter) + ":cuckoo-next"}).integer(), 0);
    stop_service();
  }
};

TEST_F(CacheGuardCuckoo, OnTheModuleItKeepsTheNativeKind) {
  use_module_server();
  start("service.err", {"--filter", "cuckoo", "--negative-ttl", "0"});
  expect_deletes_and_rebuild("bk", "bloomkit1", "created filter cache_guard:items: cuckoo (BK.*");
}

TEST_F(CacheGuardCuckoo, ForcedToCfItKeepsCfKeys) {
  use_module_server();
  bloomkit::test::scoped_env env({{"CACHE_GUARD_CUCKOO_COMMANDS", "cf"}});
  start("service.err", {"--filter", "cuckoo", "--negative-ttl", "0"});
  expect_deletes_and_rebuild("cf", "MBbloomCF", "created filter cache_guard:items: cuckoo (CF.*");
}

// A native table with no room (here a tiny one renamed over the live key): the POST succeeds,
// lookups bypass the filter until the reload recreates it at twice the rows, and no id is lost.
TEST_F(CacheGuardCuckoo, AFullNativeFilterIsReloadedLargerLosingNoId) {
  use_module_server();
  start("service.err", {"--filter", "cuckoo", "--negative-ttl", "0"});
  ASSERT_EQ(commands(), "bk");
  ASSERT_EQ(redis_->raw({"BK.RESERVE", "tiny", "10", "0.01", "KIND", "cuckoo"}).str(), "OK");
  std::optional<long long> full;
  for (int i = 0; i < 1000 && !full; ++i) {
    const auto r = redis_->raw({"BK.ADD", "tiny", "filler-" + std::to_string(i)});
    if (r.is_error()) full = i;
  }
  ASSERT_TRUE(full) << "the tiny filter never filled";
  ASSERT_EQ(redis_->raw({"RENAME", "tiny", filter}).str(), "OK");

  const auto made = http_->Post("/item", "after-full", "text/plain");
  ASSERT_TRUE(made && made->status == 201) << (made ? made->body : "no reply");
  const std::string id = made->body.substr(0, made->body.size() - 1);
  std::string body;
  EXPECT_EQ(get(id, &body), 200);  // from the database while the filter is bypassed
  wait_until_reloaded(1);
  EXPECT_NE(service_->err().find("full"), std::string::npos) << service_->err();
  EXPECT_EQ(get(id, &body), 200);
  EXPECT_EQ(body, "after-full");
  EXPECT_GE(std::stoll(redis_->raw({"HGET", std::string(filter) + ":cuckoo", "capacity"}).str()),
            2 * seeded_items);
  int wrong = 0;
  for (std::int64_t i = 1; i <= seeded_items; i += 13) wrong += get(i) != 200;
  EXPECT_EQ(wrong, 0);
  expect_filter_blocks_absent_ids(absent_base + 3);
  stop_service();
}

// A rebuild whose ids outgrow the native table (its meta says capacity 1000, the database has
// seeded_items rows) starts again at twice the capacity until they fit, and records it.
TEST_F(CacheGuardCuckoo, ARebuildOutgrowingTheNativeTableDoublesIt) {
  use_module_server();
  start("service.err", {"--filter", "cuckoo", "--negative-ttl", "0"});
  stop_service();
  const std::string meta = std::string(filter) + ":cuckoo";
  ASSERT_EQ(redis_->raw({"HSET", meta, "capacity", "1000"}).integer(), 0);
  start("again.err", {"--filter", "cuckoo", "--negative-ttl", "0", "--capacity", "1000"});
  const auto rebuilt = http_->Post("/admin/rebuild", "", "text/plain");
  ASSERT_TRUE(rebuilt && rebuilt->status == 200) << (rebuilt ? rebuilt->body : "no reply");
  EXPECT_NE(rebuilt->body.find("\"generation\": 2"), std::string::npos) << rebuilt->body;
  const long long capacity = std::stoll(redis_->raw({"HGET", meta, "capacity"}).str());
  EXPECT_GT(capacity, 1000);
  EXPECT_EQ(capacity % 1000, 0);
  EXPECT_GE(redis_->raw({"BK.CARD", filter}).integer(), seeded_items);
  int wrong = 0;
  for (std::int64_t id = 1; id <= seeded_items; id += 13) wrong += get(id) != 200;
  EXPECT_EQ(wrong, 0);
  expect_filter_blocks_absent_ids(absent_base + 11);
  stop_service();
}

// Every bloomkit kind is a `bloomkit1` key: a meta saying `bk` over a blocked filter must not be
// taken for the cuckoo filter (it cannot remove ids); the service recreates it as one.
TEST_F(CacheGuardCuckoo, ABloomkitKeyOfAnotherKindIsRecreatedAsCuckoo) {
  use_module_server();
  start("service.err", {"--filter", "cuckoo", "--negative-ttl", "0"});
  stop_service();
  ASSERT_EQ(redis_->raw({"DEL", filter}).integer(), 1);
  ASSERT_EQ(redis_->raw({"BK.RESERVE", filter, "1000", "0.01", "KIND", "blocked"}).str(), "OK");
  start("again.err", {"--filter", "cuckoo", "--negative-ttl", "0"});
  EXPECT_NE(service_->err().find("not a cuckoo filter"), std::string::npos) << service_->err();
  const auto info = redis_->raw({"BK.INFO", filter});
  ASSERT_GE(info.elements().size(), 2u);
  EXPECT_EQ(info.elements()[0].str(), "kind");
  EXPECT_EQ(info.elements()[1].str(), "cuckoo");
  ASSERT_EQ(get(10), 200);
  ASSERT_EQ(del(10), 200);
  EXPECT_EQ(get(10), 404);
  stop_service();
}

TEST_F(CacheGuardCuckoo, WithoutCfCommandsItStopsPointingToCounting) {
  process p({CACHE_GUARD_EXE, "--db", db_, "--redis", redis_->url(), "--listen", "127.0.0.1:0",
             "--filter", "cuckoo"},
            at("plain.out"), at("plain.err"));
  EXPECT_EQ(p.wait(), 1);
  const std::string err = p.err();
  EXPECT_NE(err.find("BK.*"), std::string::npos) << err;
  EXPECT_NE(err.find("CF.*"), std::string::npos) << err;
  EXPECT_NE(err.find("--filter counting"), std::string::npos) << err;
  EXPECT_EQ(err.find("listening"), std::string::npos) << err;
}

}  // namespace
