// cache_guard --filter static: the ids in a static generation with a delta for new ones; a
// POST lands in the delta, a rebuild (here POST /admin/rebuild, as --rebuild-every runs it)
// folds it into the tables, and no existing id is ever answered 404.

#include <string>

#include "cache_guard_fixture.hpp"

namespace cache_guard_test {

TEST_F(CacheGuard, StaticFilterWithADeltaServesNewIdsAndFoldsThemInAtTheRebuild) {
  start("service.err", {"--filter", "static"});
  EXPECT_NE(service_->err().find("created filter cache_guard:items: static, p 0.01, delta "),
            std::string::npos)
      << service_->err();
  EXPECT_EQ(redis_->raw({"HGET", "cache_guard:items:meta", "kind"}).str(), "static");
  std::int64_t wrong = 0;
  for (std::int64_t id = 1; id <= seeded_items; id += 13) wrong += get(id) != 200;
  EXPECT_EQ(wrong, 0);
  expect_filter_blocks_absent_ids(absent_base);
  // A new id goes to the delta and is served at once.
  const auto inserted = http_->Post("/item", "new", "text/plain");
  ASSERT_TRUE(inserted && inserted->status == 201);
  const std::string id = inserted->body.substr(0, inserted->body.find('\n'));
  EXPECT_EQ(get(id), 200);
  EXPECT_EQ(std::stoll(redis_->raw({"HGET", "cache_guard:items:meta", "inserted"}).str()), 1);
  const auto generation = [&] {
    return std::stoll(redis_->raw({"HGET", "cache_guard:items:meta", "generation"}).str());
  };
  const long long before = generation();
  const auto res = http_->Post("/admin/rebuild", "", "text/plain");
  ASSERT_TRUE(res && res->status == 200) << (res ? res->body : "");
  EXPECT_NE(res->body.find("\"ids\": " + std::to_string(seeded_items + 1)), std::string::npos)
      << res->body;
  EXPECT_EQ(generation(), before + 1);
  // Folded in: the tables hold it (the new delta is empty), and it is still served.
  EXPECT_EQ(std::stoll(redis_->raw({"HGET", "cache_guard:items:meta", "keys"}).str()),
            seeded_items + 1);
  EXPECT_EQ(redis_->raw({"HGET", "cache_guard:items:meta", "inserted"}).str(), "0");
  EXPECT_EQ(get(id), 200);
  expect_filter_blocks_absent_ids(absent_base + 1);
  stop_service();
  // A restart opens the static filter as it is.
  start("second.err", {"--filter", "static"});
  EXPECT_NE(service_->err().find("already holds every id"), std::string::npos) << service_->err();
  EXPECT_EQ(get(id), 200);
  stop_service();
}

}  // namespace cache_guard_test
