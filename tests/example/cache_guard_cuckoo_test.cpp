// examples/cache_guard --filter cuckoo against a real redis-server that loads the bloomkit module
// (its CF.* commands): a DELETE takes its id out of the filter (CF.DEL), a rebuild keeps every
// existing id, and a server without CF.* commands stops the service with an error that points to
// --filter counting.

#include <httplib.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cache_guard_fixture.hpp"

namespace {

using namespace cache_guard_test;
using namespace std::chrono_literals;

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
  bool in_filter(std::int64_t id) {
    return redis_->raw({"CF.EXISTS", "cache_guard:items", std::to_string(id)}).integer() == 1;
  }
};

TEST_F(CacheGuardCuckoo, DeletesLeaveTheFilterAndRebuildsKeepEveryId) {
  use_module_server();
  start("service.err", {"--filter", "cuckoo", "--negative-ttl", "0"});
  EXPECT_NE(service_->err().find("created filter cache_guard:items: cuckoo"), std::string::npos)
      << service_->err();
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
  EXPECT_EQ(s["filter_removes"], deleted.size());  // each id was added once: CF.DEL finds it
  int still_in = 0;
  for (const std::int64_t id : deleted) still_in += in_filter(id);
  EXPECT_LE(still_in, 0.05 * static_cast<double>(deleted.size()) + 2);

  const auto rebuilt = http_->Post("/admin/rebuild", "", "text/plain");
  ASSERT_TRUE(rebuilt && rebuilt->status == 200) << (rebuilt ? rebuilt->body : "no reply");
  EXPECT_NE(rebuilt->body.find("\"generation\": 2"), std::string::npos) << rebuilt->body;
  const auto created = http_->Post("/item", "new", "text/plain");
  ASSERT_TRUE(created && created->status == 201);
  EXPECT_EQ(get(created->body.substr(0, created->body.size() - 1)), 200);
  int wrong = 0;
  for (std::int64_t id = 1; id <= seeded_items; id += 7) {
    wrong += get(id) != (id % 10 == 0 && id <= 2000 ? 404 : 200);
  }
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(redis_->raw({"EXISTS", "cache_guard:items:cuckoo-next"}).integer(), 0);
  stop_service();
}

TEST_F(CacheGuardCuckoo, WithoutCfCommandsItStopsPointingToCounting) {
  process p({CACHE_GUARD_EXE, "--db", db_, "--redis", redis_->url(), "--listen", "127.0.0.1:0",
             "--filter", "cuckoo"},
            at("plain.out"), at("plain.err"));
  EXPECT_EQ(p.wait(), 1);
  const std::string err = p.err();
  EXPECT_NE(err.find("CF.*"), std::string::npos) << err;
  EXPECT_NE(err.find("--filter counting"), std::string::npos) << err;
  EXPECT_EQ(err.find("listening"), std::string::npos) << err;
}

}  // namespace
