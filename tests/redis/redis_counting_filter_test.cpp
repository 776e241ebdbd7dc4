// redis_counting_filter against a real redis-server: inserts, lookups and removes mirror the
// in-process counting_bloom_filter counter for counter (saturation and removes of keys never
// inserted included), no false negative under concurrent inserts and removes of disjoint keys,
// and the lifecycle every Redis filter has (kind checks, rebuild, push / pull, expire, drop).

#include "bloomkit/redis/counting_filter.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <random>
#include <thread>
#include <vector>

#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/file.hpp"
#include "redis_filter_fixtures.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit::redis_filter_test {
namespace {

using bloomkit::redis::redis_counting_filter;
using bloomkit::test::temp_dir;

class RedisCountingFilter : public single_server_client_test {};

// The mirror of a one-shard Redis counting filter: the same counters at the same positions.
counting_bloom_filter mirror_of(const redis_counting_filter& f) {
  EXPECT_EQ(f.layout().shard_count, 1u);
  return counting_bloom_filter(f.layout().shard_bits, f.layout().hashes);
}

counting_bloom_filter pulled(redis_counting_filter& f, const std::filesystem::path& file) {
  f.pull(file);
  return load<counting_bloom_filter>(file);
}

TEST_F(RedisCountingFilter, InsertsLookupsAndRemovesLikeTheInProcessFilter) {
  auto f = redis_counting_filter::create(*client_, "c", 500, 0.01, 32);
  ASSERT_TRUE(f.counting());
  auto local = mirror_of(f);
  const auto keys = make_keys(400, 1);
  const auto strangers = make_keys(3000, 2);
  std::mt19937_64 rng(7);
  std::size_t stranger_removes = 0;
  for (int step = 0; step < 3000; ++step) {
    const auto& key = keys[rng() % keys.size()];
    switch (rng() % 4) {
      case 0:
      case 1:
        ASSERT_EQ(f.insert(key), local.insert(key)) << key;
        break;
      case 2:
        ASSERT_EQ(f.remove(key), local.remove(key)) << key;
        break;
      default: {
        // A key never inserted: refused when definitely absent; a false positive is removed
        // and decrements other keys' counters, exactly as in the in-process filter.
        const auto& s = strangers[rng() % strangers.size()];
        const bool removed = local.remove(s);
        stranger_removes += removed;
        ASSERT_EQ(f.remove(s), removed) << s;
      }
    }
  }
  const temp_dir dir;
  EXPECT_TRUE(pulled(f, dir.path() / "c.bf") == local);
  std::vector<char> buffer(keys.size());
  auto* results = reinterpret_cast<bool*>(buffer.data());
  std::vector<char> want(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) want[i] = local.contains(keys[i]);
  f.contains_many(views(keys), {results, keys.size()});
  for (std::size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(buffer[i], want[i]) << keys[i];
  RecordProperty("stranger_removes", static_cast<int>(stranger_removes));
}

TEST_F(RedisCountingFilter, RemoveRefusesADefinitelyAbsentKeyAndWritesNothing) {
  auto f = redis_counting_filter::create(*client_, "c", 1000, 0.01);
  f.insert_many(views(make_keys(100, 1)));
  f.flush();
  const auto strangers = make_keys(200, 2);
  const auto before = take_snapshot(*server_);
  std::size_t refused = 0;
  for (const auto& s : strangers) {
    if (f.contains(s)) continue;
    EXPECT_FALSE(f.remove(s));
    ++refused;
  }
  EXPECT_GT(refused, 190u);
  EXPECT_EQ(take_snapshot(*server_), before);
}

TEST_F(RedisCountingFilter, SaturatedCountersAreNeverDecremented) {
  auto f = redis_counting_filter::create(*client_, "c", 1000, 0.01, 32);
  auto local = mirror_of(f);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(f.insert("hot"), i == 0);
  for (int i = 0; i < 20; ++i) local.insert("hot");
  // 20 inserts, 20 removes: the counters stopped at 15 and stay there, so the key stays.
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(f.remove("hot"));
  for (int i = 0; i < 20; ++i) local.remove("hot");
  EXPECT_TRUE(f.contains("hot"));
  const temp_dir dir;
  const auto back = pulled(f, dir.path() / "c.bf");
  EXPECT_TRUE(back == local);
  EXPECT_TRUE(back.contains("hot"));
}

TEST_F(RedisCountingFilter, NoFalseNegativeUnderConcurrentInsertsAndRemovesOfDisjointKeys) {
  redis_counting_filter::create(*client_, "c", 40000, 0.01, 14);  // several shards
  constexpr int clients = 4;
  const auto stable = make_keys(2000, 100);
  {
    auto f = redis_counting_filter::open(*client_, "c");
    ASSERT_GT(f.layout().shard_count, 1u);
    f.insert_many(views(stable));
  }
  std::atomic<std::size_t> misses{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < clients; ++t) {
    threads.emplace_back([&, t] {
      auto c = client::connect(server_->url());
      auto f = redis_counting_filter::open(c, "c");
      const auto mine = make_keys(3000, static_cast<std::uint64_t>(t + 1));
      const auto v = views(mine);
      std::vector<char> buffer(v.size());
      auto* results = reinterpret_cast<bool*>(buffer.data());
      for (int round = 0; round < 5; ++round) {
        f.insert_many(v);
        if (f.contains_many(v, {results, v.size()}) != v.size()) ++misses;
        // Removes the second half, checks the first half and the stable keys stay.
        f.remove_many(std::span(v).subspan(v.size() / 2));
        const auto kept = std::span(v).first(v.size() / 2);
        if (f.contains_many(kept, {results, kept.size()}) != kept.size()) ++misses;
        f.remove_many(kept);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(misses.load(), 0u);
  auto f = redis_counting_filter::open(*client_, "c");
  EXPECT_EQ(count_present(f, stable), stable.size());
}

TEST_F(RedisCountingFilter, KindsAreCheckedOnOpenAndCreate) {
  redis_filter::create(*client_, "bits", 1000, 0.01);
  auto msg = error_of([&] { redis_counting_filter::open(*client_, "bits"); }, errc::incompatible);
  EXPECT_NE(msg.find("is a bit filter"), npos) << msg;
  msg = error_of([&] { redis_counting_filter::create(*client_, "bits", 1000, 0.01); },
                 errc::already_exists);
  EXPECT_NE(msg.find("kind bit (asked counting)"), npos) << msg;
  auto c = redis_counting_filter::create(*client_, "counts", 1000, 0.01);
  c.insert("a");
  // Any handle reads and writes a counting filter's counters.
  auto any = redis_filter::open(*client_, "counts");
  EXPECT_TRUE(any.counting());
  EXPECT_TRUE(any.contains("a"));
  EXPECT_FALSE(any.insert("a"));
  EXPECT_TRUE(c.remove("a"));
  EXPECT_TRUE(c.remove("a"));
  EXPECT_FALSE(c.contains("a"));
  msg = error_of([&] { redis_counting_filter::create(*client_, "x", 1000, 0.01, 11); },
                 errc::invalid_argument);
  EXPECT_NE(msg.find("at least 12"), npos) << msg;
  EXPECT_EQ(server_->raw({"HGET", "counts:meta", "kind"}).str(), "counting");
}

TEST_F(RedisCountingFilter, InfoCountsNonZeroCounters) {
  auto f = redis_counting_filter::create(*client_, "c", 1000, 0.01, 32);
  auto local = mirror_of(f);
  const auto keys = make_keys(300, 1);
  f.insert_many(views(keys));
  for (const auto& k : keys) local.insert(k);
  const auto v = views(keys);
  f.remove_many(std::span(v).first(100));
  for (std::size_t i = 0; i < 100; ++i) local.remove(keys[i]);
  const auto i = f.info();
  EXPECT_EQ(i.cell_bits, 4u);
  EXPECT_EQ(i.inserted, 200u);  // new keys less removed ones
  EXPECT_NEAR(i.fill_ratio, local.fill_ratio(), 1e-12);
  EXPECT_NEAR(i.estimated_count, local.estimated_count(), 1e-6);
}

TEST_F(RedisCountingFilter, RebuildPushPullExpireAndDrop) {
  auto f = redis_counting_filter::create(*client_, "c", 1000, 0.01, 32);
  const auto keys = make_keys(500, 1);
  f.insert_many(views(keys));
  f.remove_many(views(keys));
  const auto v = views(keys);
  f.rebuild(std::span(v).first(200));
  EXPECT_EQ(f.generation(), 2u);
  EXPECT_EQ(count_present(f, make_keys(200, 1)), 200u);
  EXPECT_TRUE(f.remove(keys[0]));
  const temp_dir dir;
  const auto file = dir.path() / "c.bf";
  f.pull(file);
  const auto pushed = redis_filter::push(*client_, file, "copy");
  EXPECT_TRUE(pushed.counting());
  auto copy = redis_counting_filter::open(*client_, "copy");
  EXPECT_TRUE(pulled(copy, dir.path() / "copy.bf") == load<counting_bloom_filter>(file));
  EXPECT_TRUE(copy.remove(keys[1]));
  copy.expire(std::chrono::seconds(100));
  EXPECT_GT(server_->raw({"TTL", "copy:1:0"}).integer(), 0);
  EXPECT_GT(server_->raw({"TTL", "copy:meta"}).integer(), 0);
  copy.drop();
  EXPECT_TRUE(keys_of(*server_, "copy*").empty());
}

TEST_F(RedisCountingFilter, ManyShardsPullIntoAShardedCountingFileAndPushBackIdentically) {
  auto f = redis_counting_filter::create(*client_, "c", 5000, 0.01, 12);
  ASSERT_GT(f.layout().shard_count, 1u);
  const auto keys = make_keys(3000, 1);
  const auto v = views(keys);
  EXPECT_EQ(f.insert_many(v), 3000u);
  EXPECT_EQ(f.remove_many(std::span(v).first(1000)), 1000u);
  const temp_dir dir;
  const auto file = dir.path() / "c.bf";
  f.pull(file);
  // A counting file of the sharded scheme: its shard count in kind_params[0], refused by the
  // native loader (its probes are the shards', not the native ones).
  const auto header = read_header(file);
  EXPECT_EQ(header.kind, filter_kind::counting);
  EXPECT_EQ(header.scheme, hash_scheme::redis_sharded_xxh3);
  EXPECT_EQ(header.kind_params[0], f.layout().shard_count);
  EXPECT_EQ(header.bits, f.layout().total_bits());
  EXPECT_EQ(header.inserted, 2000u);
  const auto msg = error_of([&] { load<counting_bloom_filter>(file); }, errc::unsupported);
  EXPECT_NE(msg.find("scheme"), npos) << msg;
  // Pushed under another name: the same shards, the same answers, and pulled back the same file.
  const auto pushed = redis_filter::push(*client_, file, "copy");
  EXPECT_TRUE(pushed.counting());
  EXPECT_EQ(pushed.layout().shard_count, f.layout().shard_count);
  auto copy = redis_counting_filter::open(*client_, "copy");
  const auto back = dir.path() / "copy.bf";
  copy.pull(back);
  EXPECT_EQ(bloomkit::test::read_bytes(file), bloomkit::test::read_bytes(back));
  const std::vector<std::string> kept(keys.begin() + 1000, keys.end());
  EXPECT_EQ(count_present(copy, kept), 2000u);
  EXPECT_EQ(copy.remove_many(std::span(v).subspan(1000)), 2000u);
  EXPECT_LT(count_present(copy, keys), 100u);
}

TEST_F(RedisCountingFilter, RemoveFromAMissingShardIsNotFoundAndCreatesNothing) {
  auto f = redis_counting_filter::create(*client_, "c", 1000, 0.01);
  f.insert("a");
  server_->raw({"DEL", "c:1:0"});
  const auto msg = error_of([&] { f.remove("a"); }, errc::not_found);
  EXPECT_NE(msg.find("c:1:0"), npos) << msg;
  EXPECT_EQ(server_->raw({"EXISTS", "c:1:0"}).integer(), 0);
}

TEST_F(RedisCountingFilter, ContainsWithRunsCommandsInTheLookupsPipeline) {
  for (const bool counting : {false, true}) {
    server_->raw({"FLUSHALL"});
    redis_filter f = counting ? redis_counting_filter::create(*client_, "c", 1000, 0.01)
                              : redis_filter::create(*client_, "c", 1000, 0.01);
    f.insert("a");
    server_->raw({"SET", "cache:a", "value"});
    const std::vector<bloomkit::redis::command> also = {
        {{"GET", "cache:a"}}, {{"GET", "cache:b"}}, {{"HGET", "cache:a", "x"}}};
    std::vector<bloomkit::redis::reply> replies;
    EXPECT_TRUE(f.contains_with("a", also, replies));
    ASSERT_EQ(replies.size(), 3u);
    EXPECT_EQ(replies[0].str(), "value");
    EXPECT_TRUE(replies[1].is_nil());
    EXPECT_TRUE(replies[2].is_error());  // WRONGTYPE: handed back, not thrown
    EXPECT_FALSE(f.contains_with("b", also, replies));
    EXPECT_EQ(replies.size(), 3u);
  }
}

}  // namespace
}  // namespace bloomkit::redis_filter_test
