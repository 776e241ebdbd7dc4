// bloomkit::redis::redis_filter on a single redis-server: answers, FPP, concurrency, create
// atomicity, open errors, TTL, drop, rebuild (empty sources included), push / pull.
#include "bloomkit/redis/redis_filter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/file.hpp"
#include "redis_filter_fixtures.hpp"
#include "support/statistical.hpp"
#include "support/temp_dir.hpp"

namespace {

using namespace bloomkit::redis_filter_test;
using bloomkit::redis::filter_options;

TEST_F(RedisFilterSingle, InsertSaysWhetherNewAndLookupsHaveNoFalseNegatives) {
  auto f = redis_filter::create(*client_, "urls", 10000, 0.01);
  EXPECT_TRUE(f.insert("https://a.example/"));
  EXPECT_FALSE(f.insert("https://a.example/"));
  EXPECT_TRUE(f.contains("https://a.example/"));
  const auto keys = make_keys(5000, 3);
  const auto v = views(keys);
  std::vector<char> fresh_buffer(v.size());
  auto* fresh = reinterpret_cast<bool*>(fresh_buffer.data());
  const std::size_t n = f.insert_many(v, {fresh, v.size()});
  EXPECT_GE(n, 4990u);  // a few keys may be false positives at insert time
  EXPECT_EQ(static_cast<std::size_t>(std::count(fresh, fresh + v.size(), true)), n);
  EXPECT_EQ(f.insert_many(v), 0u);  // all present now
  EXPECT_EQ(count_present(f, keys), keys.size());
  for (std::size_t i = 0; i < 50; ++i) EXPECT_TRUE(f.contains(keys[i]));
  EXPECT_EQ(f.info().inserted, n + 1);
  EXPECT_NEAR(f.estimated_count(), 5001, 100);
}

// info's estimated_fpp follows the bits of every shard, not the inserted count: past its
// capacity a filter reports about the rate it answers with, saturated it reports 1.
// The core file layer leaves a redis-sharded-xxh3 file's shard count to bloomkit::redis: push
// refuses a count that does not cut the bits into equal shards of whole words (0 included),
// naming the file, and creates nothing.
TEST_F(RedisFilterSingle, PushRefusesAShardedFileWithABadShardCount) {
  bloomkit::test::temp_dir dir;
  bloomkit::file_header h;
  h.scheme = bloomkit::hash_scheme::redis_sharded_xxh3;
  h.bits = 4096;
  h.hashes = 7;
  h.capacity = 400;
  h.target_fpp = 0.01;
  for (const std::uint64_t shards : {0ull, 1ull, 3ull}) {
    h.kind_params[0] = shards;
    bloomkit::save_raw(h, bloomkit::bit_array(h.bits), dir / "bad.bf");
    const auto m =
        error_of([&] { redis_filter::push(*client_, dir / "bad.bf", "bad"); }, errc::corrupt_file);
    EXPECT_NE(m.find((dir / "bad.bf").string()), std::string::npos) << m;
    EXPECT_NE(m.find(std::to_string(shards) + " shards for 4096 bits"), std::string::npos) << m;
    EXPECT_EQ(server_->raw({"EXISTS", "bad:meta"}).integer(), 0);
  }
}

TEST_F(RedisFilterSingle, InfoEstimatedFppFollowsTheBits) {
  BLOOMKIT_STATISTICAL_TEST();
  auto f = redis_filter::create(*client_, "full", 2000, 0.01, 10);  // shards of 2^10 bits
  ASSERT_GT(f.layout().shard_count, 1u);
  f.insert_many(views(make_keys(6000, 11)));  // 3 times the capacity
  const auto strangers = make_keys(20000, 12);
  const double measured = static_cast<double>(count_present(f, strangers)) / 20000;
  const double sigma = std::sqrt(measured * (1 - measured) / 20000);
  EXPECT_NEAR(f.info().estimated_fpp, measured, 5 * sigma + 0.03 * measured);
  f.insert_many(views(make_keys(100000, 13)));
  const auto info = f.info();
  EXPECT_EQ(info.fill_ratio, 1.0);
  EXPECT_EQ(info.estimated_fpp, 1.0);
}

TEST_F(RedisFilterSingle, MeasuredFppWithinBoundsOneShardAndMany) {
  BLOOMKIT_STATISTICAL_TEST();
  // n = 20,000 keys at p = 0.01, then 20,000 keys never inserted: the false positives are
  // Binomial(20000, fpp) with fpp = expected_fpp(m, k, n) ~ 0.01: mean ~200, sd ~14. Bounds at
  // about 5 sd. Sharded (2^14-bit shards, 12 of them) must be as good as one shard.
  for (unsigned shard_bits : {27u, 14u}) {
    const std::string name = "fpp" + std::to_string(shard_bits);
    auto f = redis_filter::create(*client_, name, 20000, 0.01, shard_bits);
    if (shard_bits == 14) {
      EXPECT_GT(f.layout().shard_count, 10u);
    }
    const auto inserted = make_keys(20000, 4);
    f.insert_many(views(inserted));  // one call: several round trips of 8192 keys inside
    ASSERT_EQ(count_present(f, inserted), inserted.size()) << name;
    const double expected =
        bloomkit::expected_fpp(f.layout().total_bits(), f.layout().hashes, 20000) * 20000;
    const double sd = std::sqrt(expected);
    const auto fp = static_cast<double>(count_present(f, make_keys(20000, 5)));
    EXPECT_GT(fp, expected - 5 * sd) << name;
    EXPECT_LT(fp, expected + 5 * sd) << name;
  }
}

TEST_F(RedisFilterSingle, EightClientsInsertConcurrentlyWithoutFalseNegatives) {
  redis_filter::create(*client_, "shared", 80000, 0.01, 16);  // several shards
  constexpr int clients = 8;
  std::vector<std::vector<std::string>> keys;
  for (int t = 0; t < clients; ++t) keys.push_back(make_keys(2000, 100 + t));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < clients; ++t) {
    threads.emplace_back([&, t] {
      try {
        auto c = client::connect(server_->url());
        auto f = redis_filter::open(c, "shared");
        // Half in batches, half one at a time, interleaved with the other clients' writes.
        insert_all(f, std::vector<std::string>(keys[t].begin(), keys[t].begin() + 1000));
        for (std::size_t i = 1000; i < keys[t].size(); ++i) f.insert(keys[t][i]);
      } catch (const std::exception& e) {
        ++failures;
        ADD_FAILURE() << e.what();
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(failures.load(), 0);
  auto f = redis_filter::open(*client_, "shared");
  for (int t = 0; t < clients; ++t) EXPECT_EQ(count_present(f, keys[t]), keys[t].size());
}

TEST_F(RedisFilterSingle, CreateIsIdempotentForTheSameParametersOnly) {
  auto a = redis_filter::create(*client_, "f", 1000, 0.01);
  a.insert("x");
  const auto before = take_snapshot(*server_);
  auto b = redis_filter::create(*client_, "f", 1000, 0.01);  // every instance may call it
  EXPECT_TRUE(b.contains("x"));
  EXPECT_EQ(b.layout(), a.layout());
  const auto message =
      error_of([&] { redis_filter::create(*client_, "f", 2000, 0.001); }, errc::already_exists);
  EXPECT_NE(message.find("capacity 1000 (asked 2000)"), std::string::npos) << message;
  EXPECT_NE(message.find("target_fpp 0.01"), std::string::npos) << message;
  const auto open_message =
      error_of([&] { redis_filter::open(*client_, "f", 1000, 0.02); }, errc::incompatible);
  EXPECT_NE(open_message.find("target_fpp"), std::string::npos) << open_message;
  EXPECT_EQ(take_snapshot(*server_), before);
}

TEST_F(RedisFilterSingle, CreateThatFailsHalfWayLeavesNothing) {
  // Shards of 2^20 bits (128 KiB), 7 of them; the server refuses writes (maxmemory) after about
  // 3 shards, so preallocation fails in the middle.
  server_->raw({"SET", "unrelated", "value"});
  const auto before = take_snapshot(*server_);
  const long long used = std::stoll([&] {
    const std::string info = server_->raw({"INFO", "MEMORY"}).str();
    const auto at = info.find("used_memory:") + 12;
    return info.substr(at, info.find('\r', at) - at);
  }());
  server_->raw({"CONFIG", "SET", "maxmemory-policy", "noeviction"});
  server_->raw({"CONFIG", "SET", "maxmemory", std::to_string(used + 3 * 131072 + 65536)});
  const auto message = error_of([&] { redis_filter::create(*client_, "half", 730000, 0.01, 20); },
                                errc::server_error);
  server_->raw({"CONFIG", "SET", "maxmemory", "0"});
  EXPECT_NE(message.find("OOM"), std::string::npos) << message;
  EXPECT_NE(message.find("half:1:"), std::string::npos) << message;
  EXPECT_EQ(take_snapshot(*server_), before);

  // A shard key that exists already (here a list): refused before anything is written, and the
  // foreign key is left alone.
  server_->raw({"RPUSH", "taken:1:2", "x"});
  const auto before_taken = take_snapshot(*server_);
  const auto taken = error_of([&] { redis_filter::create(*client_, "taken", 100000, 0.01, 16); },
                              errc::already_exists);
  EXPECT_NE(taken.find("'taken:1:2' exists"), std::string::npos) << taken;
  EXPECT_EQ(take_snapshot(*server_), before_taken);
}

TEST_F(RedisFilterSingle, OpenErrorsAreClearAndWriteNothing) {
  redis_filter::create(*client_, "good", 1000, 0.01).insert("k");
  server_->raw({"SET", "str:meta", "x"});
  server_->raw({"HSET", "future:meta", "format_version", "99", "hash_scheme", "20"});
  server_->raw({"HSET", "partial:meta", "format_version", "1", "hash_scheme", "20"});
  server_->raw({"HSET", "scheme:meta", "format_version", "1", "hash_scheme", "7"});
  const auto before = take_snapshot(*server_);

  auto m = error_of([&] { redis_filter::open(*client_, "missing"); }, errc::not_found);
  EXPECT_EQ(m, "filter 'missing' does not exist (no key 'missing:meta')");
  m = error_of([&] { redis_filter::open(*client_, "str"); }, errc::wrong_type);
  EXPECT_NE(m.find("'str:meta' exists but is not a hash"), std::string::npos) << m;
  m = error_of([&] { redis_filter::open(*client_, "future"); }, errc::unsupported);
  EXPECT_NE(m.find("format version 99 is not supported"), std::string::npos) << m;
  // A meta missing a field is corrupt (not of other parameters: that is incompatible, below).
  m = error_of([&] { redis_filter::open(*client_, "partial"); }, errc::corrupt_file);
  EXPECT_NE(m.find("field 'bits_per_shard' is missing"), std::string::npos) << m;
  m = error_of([&] { redis_filter::open(*client_, "scheme"); }, errc::unsupported);
  EXPECT_NE(m.find("hash scheme 7"), std::string::npos) << m;
  m = error_of([&] { redis_filter::open(*client_, "good", 1000, 0.01, 10); }, errc::incompatible);
  EXPECT_NE(m.find("shard_count 1 (asked 10)"), std::string::npos) << m;
  m = error_of([&] { redis_filter::open(*client_, "good", 999, 0.01); }, errc::incompatible);
  EXPECT_NE(m.find("capacity 1000 (asked 999)"), std::string::npos) << m;
  m = error_of([&] { redis_filter::create(*client_, "str", 1000, 0.01); }, errc::wrong_type);
  EXPECT_EQ(take_snapshot(*server_), before);
}

TEST_F(RedisFilterSingle, AShardOfTheWrongTypeOrAVanishedFilterIsAnError) {
  auto f = redis_filter::create(*client_, "f", 1000, 0.01);
  server_->raw({"DEL", "f:1:0"});
  server_->raw({"RPUSH", "f:1:0", "x"});
  auto m = error_of([&] { f.insert("k"); }, errc::wrong_type);
  EXPECT_NE(m.find("f:1:0"), std::string::npos) << m;
  error_of([&] { f.contains("k"); }, errc::wrong_type);
  server_->raw({"DEL", "f:meta"});
  m = error_of([&] { f.contains("k"); }, errc::not_found);
  EXPECT_EQ(m, "filter 'f' no longer exists (no key 'f:meta')");
}

TEST_F(RedisFilterSingle, ExpireCoversEveryKeyOfTheFilter) {
  auto f = redis_filter::create(*client_, "ttl", 100000, 0.01, 14);
  ASSERT_GT(f.layout().shard_count, 50u);
  f.insert("k");
  f.expire(100s);
  const auto keys = keys_of(*server_, "ttl:*");
  EXPECT_EQ(keys.size(), f.layout().shard_count + 1);
  for (const auto& k : keys) {
    const long long ttl = server_->raw({"TTL", k}).integer();
    EXPECT_GT(ttl, 90) << k;
    EXPECT_LE(ttl, 100) << k;
  }
  EXPECT_GT(f.info().ttl_ms, 90000);
  error_of([&] { f.expire(0s); }, errc::invalid_argument);
}

TEST_F(RedisFilterSingle, DropRemovesEveryKey) {
  server_->raw({"SET", "other", "x"});
  auto f = redis_filter::create(*client_, "gone", 100000, 0.01, 16);
  f.insert("k");
  f.drop();
  EXPECT_EQ(keys_of(*server_, "*"), std::set<std::string>{"other"});
  error_of([&] { f.contains("k"); }, errc::not_found);
  error_of([&] { redis_filter::open(*client_, "gone"); }, errc::not_found);
}

TEST_F(RedisFilterSingle, RebuildAnswersFromTheOldGenerationUntilTheFlip) {
  filter_options o;
  o.rebuild_grace = 2000ms;
  auto f = redis_filter::create(*client_, "rb", 20000, 0.01, 16, o);
  const auto old_keys = make_keys(2000, 10);
  const auto new_keys = make_keys(2000, 11);
  const auto during = make_keys(200, 12);
  insert_all(f, old_keys);
  // Another client with its own handle, opened before the rebuild.
  auto c2 = client::connect(server_->url());
  auto reader = redis_filter::open(c2, "rb");
  ASSERT_EQ(count_present(reader, old_keys), old_keys.size());

  bool checked_during = false;
  f.rebuild([&](const bloomkit::redis::key_sink& sink) {
    const auto v = views(new_keys);
    sink(std::span(v).first(1000));
    // Mid-rebuild: lookups still answer from generation 1, and inserts reach both.
    EXPECT_EQ(count_present(reader, old_keys), old_keys.size());
    EXPECT_LT(count_present(reader, new_keys), 100u);
    insert_all(reader, during);
    checked_during = true;
    sink(std::span(v).subspan(1000));
  });
  ASSERT_TRUE(checked_during);
  // The old generation stays for the grace period (for readers that read it just before the
  // flip), with a TTL of at most the grace.
  for (std::uint64_t j = 0; j < f.layout().shard_count; ++j) {
    const auto pttl = server_->raw({"PTTL", "rb:1:" + std::to_string(j)}).integer();
    EXPECT_GT(pttl, 0) << j;
    EXPECT_LE(pttl, 2000) << j;
  }
  EXPECT_EQ(f.generation(), 2u);
  // After the flip: the new generation, for this handle and the other one.
  EXPECT_EQ(count_present(reader, new_keys), new_keys.size());
  EXPECT_EQ(count_present(reader, during), during.size());
  EXPECT_LT(count_present(reader, old_keys), 100u);
  EXPECT_EQ(reader.generation(), 2u);
  EXPECT_EQ(count_present(f, new_keys), new_keys.size());
  // Then it is gone (EXISTS also expires a key whose time is up).
  std::this_thread::sleep_for(2100ms);
  for (std::uint64_t j = 0; j < f.layout().shard_count; ++j) {
    EXPECT_EQ(server_->raw({"EXISTS", "rb:1:" + std::to_string(j)}).integer(), 0);
  }
  EXPECT_EQ(keys_of(*server_, "rb:*").size(), f.layout().shard_count + 1);
}

TEST_F(RedisFilterSingle, RebuildThatFailsLeavesTheFilterAsItWas) {
  auto f = redis_filter::create(*client_, "rbf", 20000, 0.01, 16);
  const auto keys = make_keys(1000, 13);
  insert_all(f, keys);
  const auto before = take_snapshot(*server_);
  EXPECT_THROW(f.rebuild([&](const bloomkit::redis::key_sink& sink) {
    sink(views(make_keys(10, 14)));
    throw std::runtime_error("source failed");
  }),
               std::runtime_error);
  EXPECT_EQ(take_snapshot(*server_), before);
  EXPECT_EQ(count_present(f, keys), keys.size());
  EXPECT_EQ(f.generation(), 1u);
}

TEST_F(RedisFilterSingle, PushPullRoundTripIsBitIdentical) {
  bloomkit::test::temp_dir dir;
  // A native file: a 1-shard filter, and back to the identical native file.
  auto local = bloomkit::bloom_filter::for_capacity(50000, 0.01);
  const auto keys = make_keys(30000, 20);
  local.insert_many(views(keys));
  bloomkit::save(local, dir / "native.bf");
  auto pushed = redis_filter::push(*client_, dir / "native.bf", "native");
  EXPECT_EQ(pushed.layout().shard_count, 1u);
  EXPECT_EQ(count_present(pushed, keys), keys.size());
  const auto misses = make_keys(5000, 21);
  std::vector<char> remote_buffer(misses.size());
  auto* remote = reinterpret_cast<bool*>(remote_buffer.data());
  pushed.contains_many(views(misses), {remote, misses.size()});
  for (std::size_t i = 0; i < misses.size(); ++i) {
    ASSERT_EQ(remote[i], local.contains(misses[i])) << misses[i];
  }
  pushed.pull(dir / "native-back.bf");
  EXPECT_EQ(bloomkit::test::read_bytes(dir / "native.bf"),
            bloomkit::test::read_bytes(dir / "native-back.bf"));

  // A sharded filter: pulled into a redis-sharded-xxh3 file, pushed under another name, pulled
  // again: identical files and identical answers.
  auto sharded = redis_filter::create(*client_, "sharded", 50000, 0.01, 14);
  insert_all(sharded, keys);
  sharded.pull(dir / "sharded.bf");
  const auto header = bloomkit::read_header(dir / "sharded.bf");
  EXPECT_EQ(header.scheme, bloomkit::hash_scheme::redis_sharded_xxh3);
  EXPECT_EQ(header.kind_params[0], sharded.layout().shard_count);
  error_of([&] { bloomkit::load(dir / "sharded.bf"); }, errc::unsupported);
  auto copy = redis_filter::push(*client_, dir / "sharded.bf", "copy");
  EXPECT_EQ(copy.layout(), sharded.layout());
  EXPECT_EQ(count_present(copy, keys), keys.size());
  copy.pull(dir / "sharded-back.bf");
  EXPECT_EQ(bloomkit::test::read_bytes(dir / "sharded.bf"),
            bloomkit::test::read_bytes(dir / "sharded-back.bf"));

  // Refused: an existing name (nothing written), a corrupt file.
  const auto before = take_snapshot(*server_);
  error_of([&] { redis_filter::push(*client_, dir / "native.bf", "copy"); }, errc::already_exists);
  auto bytes = bloomkit::test::read_bytes(dir / "native.bf");
  bytes[200] ^= 1;
  bloomkit::test::write_bytes(dir / "corrupt.bf", bytes);
  error_of([&] { redis_filter::push(*client_, dir / "corrupt.bf", "corrupt"); },
           errc::corrupt_file);
  EXPECT_EQ(take_snapshot(*server_), before);
}

TEST_F(RedisFilterSingle, RebuildOfNoKeysIsRefusedAndLeavesTheFilterAsItWas) {
  auto f = redis_filter::create(*client_, "rb0", 20000, 0.01, 16);
  const auto keys = make_keys(1000, 72);
  insert_all(f, keys);
  const auto before = take_snapshot(*server_);
  auto m =
      error_of([&] { f.rebuild(std::span<const std::string_view>{}); }, errc::invalid_argument);
  EXPECT_NE(m.find("filter 'rb0': the rebuild's source gave no keys"), npos) << m;
  // A source that calls its sink with empty batches only gave no keys either.
  error_of([&] { f.rebuild([](const bloomkit::redis::key_sink& sink) { sink({}); }); },
           errc::invalid_argument);
  EXPECT_EQ(take_snapshot(*server_), before);
  EXPECT_EQ(count_present(f, keys), keys.size());
  EXPECT_EQ(f.generation(), 1u);
}

TEST_F(RedisFilterSingle, RebuildOfNoKeysIsAllowedWhenAsked) {
  auto f = redis_filter::create(*client_, "rb1", 20000, 0.01, 16);
  const auto keys = make_keys(1000, 76);
  insert_all(f, keys);
  f.rebuild(std::span<const std::string_view>{}, bloomkit::redis::rebuild_options{true});
  EXPECT_EQ(f.generation(), 2u);
  EXPECT_LT(count_present(f, keys), 5u);
  EXPECT_EQ(f.info().bits_set, 0u);
}

}  // namespace
