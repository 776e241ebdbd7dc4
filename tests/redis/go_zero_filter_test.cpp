// bloomkit::redis::go_zero_filter against real redis-server processes and the go-zero vectors
// (tests/data/interop/go_zero, written by go-zero's algorithm and SETBIT script on a real Redis):
// answers on go-zero's bytes, bytes written like go-zero's, errors, and a 3-master cluster.
#include "bloomkit/redis/go_zero_filter.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "bloomkit/error.hpp"
#include "redis/client/key_slot.hpp"
#include "support/errors.hpp"
#include "support/interop_vectors.hpp"
#include "support/keys.hpp"
#include "support/redis_fixtures.hpp"
#include "support/redis_server.hpp"
#include "support/temp_dir.hpp"

namespace {

using bloomkit::test::cluster_test;
using bloomkit::test::error_of;
using bloomkit::test::single_server_client_test;

using bloomkit::errc;
using bloomkit::error;
using bloomkit::redis::client;
using bloomkit::redis::command;
using bloomkit::redis::go_zero_filter;
using bloomkit::redis::go_zero_options;
using bloomkit::test::interop_vector;
using bloomkit::test::redis_cluster;
using bloomkit::test::redis_server;

std::vector<interop_vector> vectors() {
  std::vector<interop_vector> out;
  for (const auto& path : bloomkit::test::vector_files("go_zero")) {
    out.push_back(bloomkit::test::read_vector(path));
  }
  return out;
}

using bloomkit::test::redis_bytes;
using bloomkit::test::views;

// Answers of contains() and of contains_many() (3 keys per command) against the vector's probes.
void expect_go_zeros_answers(client& c, const std::string& key, const interop_vector& v) {
  go_zero_filter one(c, key, v.bits);
  go_zero_filter batched(c, key, v.bits, go_zero_options{3});
  std::vector<std::string> keys;
  std::size_t positives = 0;
  for (const auto& [probe, answer] : v.probes) {
    ASSERT_EQ(one.contains(probe), answer) << v.name;
    keys.push_back(probe);
    positives += answer;
  }
  const auto kv = views(keys);
  std::vector<char> buffer(kv.size());
  const std::span<bool> answers(reinterpret_cast<bool*>(buffer.data()), kv.size());
  EXPECT_EQ(batched.contains_many(kv, answers), positives);
  for (std::size_t i = 0; i < kv.size(); ++i) ASSERT_EQ(answers[i], v.probes[i].second) << i;
  EXPECT_LT(positives, v.probes.size());
}

class RedisGoZero : public single_server_client_test {};

TEST_F(RedisGoZero, AnswersAsGoZeroOnGoZerosBytes) {
  for (const auto& v : vectors()) {
    SCOPED_TRACE(v.name);
    server_->raw({"SET", "bloom:" + v.name, redis_bytes(v)});
    expect_go_zeros_answers(*client_, "bloom:" + v.name, v);
  }
}

TEST_F(RedisGoZero, InsertingWritesGoZerosBytes) {
  for (const auto& v : vectors()) {
    SCOPED_TRACE(v.name);
    const std::string expected = redis_bytes(v);
    // One BITFIELD per key.
    go_zero_filter single(*client_, "single", v.bits);
    std::size_t fresh = 0;
    for (const auto& key : v.inserted) fresh += single.insert(key);
    EXPECT_GT(fresh, 0u);
    for (const auto& key : v.inserted) ASSERT_FALSE(single.insert(key));
    EXPECT_EQ(server_->raw({"GET", "single"}).str(), expected);
    // Batched: 5 keys per BITFIELD, pipelined.
    go_zero_filter batched(*client_, "batched", v.bits, go_zero_options{5});
    const auto kv = views(v.inserted);
    std::vector<char> buffer(kv.size());
    const std::span<bool> news(reinterpret_cast<bool*>(buffer.data()), kv.size());
    EXPECT_EQ(batched.insert_many(kv, news), fresh);
    EXPECT_EQ(batched.insert_many(kv), 0u);
    EXPECT_EQ(server_->raw({"GET", "batched"}).str(), expected);
    for (const auto& key : v.inserted) ASSERT_TRUE(batched.contains(key));
    EXPECT_EQ(batched.bits_set(), single.bits_set());
    EXPECT_GT(batched.estimated_count(), 0.0);
    server_->raw({"DEL", "single", "batched"});
  }
}

TEST_F(RedisGoZero, AMissingKeyIsEmpty) {
  go_zero_filter f(*client_, "nothing", 1000);
  EXPECT_FALSE(f.contains("a"));
  EXPECT_EQ(f.bits_set(), 0u);
  EXPECT_EQ(f.estimated_count(), 0.0);
  EXPECT_EQ(server_->raw({"EXISTS", "nothing"}).integer(), 0);  // reads create nothing
}

TEST_F(RedisGoZero, WarningsSayWhenTheKeyIsMissingOrMayBeEvicted) {
  // go-zero's semantics: a missing key is an empty filter and the first add creates it. What
  // info can do is say so, and say when the server may evict the key.
  go_zero_filter f(*client_, "users", 1000);
  auto w = f.warnings();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].rfind("go-zero filter key 'users' does not exist: every lookup answers absent", 0),
            0u)
      << w[0];
  f.insert("alice");
  EXPECT_EQ(f.warnings(), std::vector<std::string>{});
  server_->raw({"CONFIG", "SET", "maxmemory-policy", "volatile-lru"});
  EXPECT_EQ(f.warnings(), std::vector<std::string>{});  // no TTL: volatile-* leaves it
  server_->raw({"EXPIRE", "users", "100"});
  w = f.warnings();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0],
            "go-zero filter key 'users': maxmemory-policy volatile-lru lets Redis evict its keys "
            "(they have a time to live) under memory pressure; use noeviction (docs/REDIS.md, "
            "\"Eviction\")");
  server_->raw({"CONFIG", "SET", "maxmemory-policy", "noeviction"});
}

TEST_F(RedisGoZero, AKeyOfAnotherTypeIsWrongTypeNamingIt) {
  server_->raw({"HSET", "users", "f", "v"});
  go_zero_filter f(*client_, "users", 1000);
  const std::vector<std::string> keys = {"a", "b"};
  const auto kv = views(keys);
  std::vector<char> buffer(kv.size());
  const std::span<bool> answers(reinterpret_cast<bool*>(buffer.data()), kv.size());
  for (const auto& message : {error_of([&] { f.insert("a"); }, errc::wrong_type),
                              error_of([&] { f.contains("a"); }, errc::wrong_type),
                              error_of([&] { f.insert_many(kv); }, errc::wrong_type),
                              error_of([&] { f.contains_many(kv, answers); }, errc::wrong_type),
                              error_of([&] { f.bits_set(); }, errc::wrong_type)}) {
    EXPECT_NE(message.find("'users'"), std::string::npos) << message;
  }
  EXPECT_EQ(server_->raw({"HGET", "users", "f"}).str(), "v");
}

TEST_F(RedisGoZero, BitsOutOfRangeAndShortAnswerSpansAreInvalid) {
  EXPECT_NE(
      error_of([&] { go_zero_filter(*client_, "users", 0); }, errc::invalid_argument).find("bits"),
      std::string::npos);
  error_of([&] { go_zero_filter(*client_, "users", go_zero_filter::max_bits + 1); },
           errc::invalid_argument);
  go_zero_filter top(*client_, "top", go_zero_filter::max_bits);
  EXPECT_EQ(top.bits(), go_zero_filter::max_bits);
  go_zero_filter f(*client_, "users", 100);
  const std::vector<std::string> keys = {"a", "b"};
  bool one = false;
  error_of([&] { f.contains_many(views(keys), {&one, 1}); }, errc::invalid_argument);
  error_of([&] { f.insert_many(views(keys), {&one, 1}); }, errc::invalid_argument);
  EXPECT_EQ(server_->raw({"EXISTS", "users"}).integer(), 0);
}

class RedisGoZeroCluster : public cluster_test {};

TEST_F(RedisGoZeroCluster, KeysOnEveryMasterAreReadAndWritten) {
  client c = client::connect(cluster_->url());
  ASSERT_EQ(c.master_count(), 3u);
  const auto all = vectors();
  ASSERT_FALSE(all.empty());
  const auto& v = all.back();
  // Enough keys that every master owns some.
  std::vector<bool> owners(cluster_->size());
  for (int i = 0; i < 12; ++i) {
    const std::string key = "bloom:" + std::to_string(i);
    go_zero_filter f(c, key, v.bits, go_zero_options{7});
    EXPECT_GT(f.insert_many(views(v.inserted)), 0u);
    EXPECT_EQ(f.insert_many(views(v.inserted)), 0u);
    EXPECT_EQ(c.execute(command{{"GET", key}, 1}).str(), redis_bytes(v)) << key;
    expect_go_zeros_answers(c, key, v);
    owners[cluster_->owner_of_slot(bloomkit::redis::key_slot(key))] = true;
  }
  for (const auto m : cluster_->masters()) EXPECT_TRUE(owners[m]) << "master " << m;
}

}  // namespace
