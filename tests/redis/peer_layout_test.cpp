// The peers' single-string layouts on a real redis-server, against vectors their own code wrote
// (tests/data/interop/guava_helper: the Guava-based helper's SETBIT / GETBIT loops run by the
// real Guava; tests/data/interop/go_zero_new_filter: go-zero's scripts with k != 14 through
// redigo): bloomkit sets exactly the peer's bits, and reads a filter the peer's own writes made
// with the peer's answers.
#include <gtest/gtest.h>

#include <bit>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "bloomkit/compat/guava_helper.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/redis/go_zero_filter.hpp"
#include "bloomkit/redis/guava_helper_filter.hpp"
#include "bloomkit/sizing.hpp"
#include "support/errors.hpp"
#include "support/interop_vectors.hpp"
#include "support/keys.hpp"
#include "support/redis_fixtures.hpp"
#include "support/redis_server.hpp"
#include "support/temp_dir.hpp"

namespace {

using bloomkit::errc;
using bloomkit::redis::client;
using bloomkit::redis::command;
using bloomkit::redis::single_string_filter;
using bloomkit::test::error_of;
using bloomkit::test::interop_vector;

std::vector<interop_vector> peer_vectors() {
  std::vector<interop_vector> out;
  for (const char* peer : {"guava_helper", "go_zero_new_filter"}) {
    for (const auto& path : bloomkit::test::vector_files(peer)) {
      out.push_back(bloomkit::test::read_vector(path));
    }
  }
  return out;
}

// The vector's filter under `key`, keys_per_command keys per BITFIELD.
std::unique_ptr<single_string_filter> open(client& c, const std::string& key,
                                           const interop_vector& v, std::size_t per_command) {
  if (v.scheme == "guava_helper") {
    bloomkit::redis::guava_helper_options o;
    o.funnel = *bloomkit::guava_helper::parse_funnel(v.funnel);
    o.keys_per_command = per_command;
    return std::make_unique<bloomkit::redis::guava_helper_filter>(c, key, v.bits, v.hashes, o);
  }
  return std::make_unique<bloomkit::redis::go_zero_filter>(
      c, key, v.bits, bloomkit::redis::go_zero_options{per_command, v.hashes});
}

using bloomkit::test::redis_bytes;
using bloomkit::test::views;

// How many of the vector's keys are new when inserted in order into an empty filter: those with
// an offset no earlier key set.
std::size_t new_keys(const interop_vector& v) {
  std::set<std::uint64_t> set;
  std::size_t fresh = 0;
  std::vector<std::uint64_t> offsets(v.hashes);
  for (const auto& key : v.inserted) {
    if (v.scheme == "guava_helper") {
      bloomkit::guava_helper::offsets(key, *bloomkit::guava_helper::parse_funnel(v.funnel), v.bits,
                                      offsets);
    } else {
      bloomkit::go_zero::positions(key, v.bits, offsets);
    }
    bool is_new = false;
    for (const auto o : offsets) is_new |= set.insert(o).second;
    fresh += is_new;
  }
  return fresh;
}

// Every probe through contains_many, and the first few through contains.
void expect_peers_answers(single_string_filter& f, const interop_vector& v) {
  std::vector<std::string> keys;
  std::size_t positives = 0;
  for (const auto& [probe, answer] : v.probes) {
    keys.push_back(probe);
    positives += answer;
  }
  const auto kv = views(keys);
  std::vector<char> buffer(kv.size());
  const std::span<bool> answers(reinterpret_cast<bool*>(buffer.data()), kv.size());
  EXPECT_EQ(f.contains_many(kv, answers), positives);
  for (std::size_t i = 0; i < kv.size(); ++i) ASSERT_EQ(answers[i], v.probes[i].second) << i;
  for (std::size_t i = 0; i < 20; ++i) ASSERT_EQ(f.contains(keys[i]), v.probes[i].second) << i;
  EXPECT_LT(positives, v.probes.size());  // the probes hold keys the peer says are absent
}

class RedisPeerLayouts : public bloomkit::test::single_server_client_test {};

TEST_F(RedisPeerLayouts, InsertingSetsExactlyThePeersBits) {
  const auto all = peer_vectors();
  ASSERT_EQ(all.size(), 9u);  // 3 funnels x 2 sizes, 3 go-zero k
  for (const auto& v : all) {
    SCOPED_TRACE(v.name);
    auto f = open(*client_, "bloomkit", v, 5);
    const auto kv = views(v.inserted);
    EXPECT_EQ(f->insert_many(kv), new_keys(v));
    EXPECT_EQ(f->insert_many(kv), 0u);
    EXPECT_EQ(server_->raw({"GET", "bloomkit"}).str(), redis_bytes(v));
    std::uint64_t set = 0;
    for (const unsigned char byte : redis_bytes(v)) set += std::popcount(byte);
    EXPECT_EQ(f->bits_set(), set);
    EXPECT_EQ(f->estimated_count(), bloomkit::estimate_count(v.bits, v.hashes, set));
    // One key per call: the same string.
    auto one = open(*client_, "one", v, 1);
    for (const auto& key : v.inserted) one->insert(key);
    EXPECT_EQ(server_->raw({"GET", "one"}).str(), redis_bytes(v));
    server_->raw({"DEL", "bloomkit", "one"});
  }
}

// What the peer's own code wrote: the helper's add loop replayed (its SETBITs, one per offset,
// in its order), go-zero's string as its SETBIT script left it through redigo.
TEST_F(RedisPeerLayouts, ReadsWhatThePeersOwnCodeWroteWithThePeersAnswers) {
  for (const auto& v : peer_vectors()) {
    SCOPED_TRACE(v.name);
    if (v.scheme == "guava_helper") {
      std::vector<command> setbits;
      for (const auto& [key, offsets] : v.positions) {
        for (const auto o : offsets)
          setbits.push_back({{"SETBIT", "peer", std::to_string(o), "1"}});
      }
      // locations lines: every inserted key, then 6 probe keys the helper never added.
      setbits.resize(setbits.size() - 6 * v.hashes);
      for (const auto& r : client_->execute_many(setbits)) ASSERT_FALSE(r.is_error());
      ASSERT_EQ(server_->raw({"GET", "peer"}).str(), redis_bytes(v));
    } else {
      server_->raw({"SET", "peer", redis_bytes(v)});
    }
    auto f = open(*client_, "peer", v, 3);
    expect_peers_answers(*f, v);
    EXPECT_EQ(f->bits(), v.bits);
    EXPECT_EQ(f->hashes(), v.hashes);
    server_->raw({"DEL", "peer"});
  }
}

TEST_F(RedisPeerLayouts, BadParametersAndKeysNameTheKeyAndWriteNothing) {
  using bloomkit::redis::guava_helper_filter;
  const auto helper = [&](std::uint64_t bits, std::uint32_t k) {
    return error_of([&] { guava_helper_filter(*client_, "users", bits, k); },
                    errc::invalid_argument);
  };
  for (const auto& message :
       {helper(0, 7), helper(std::uint64_t{1} << 31, 7), helper(100, 0), helper(100, 256)}) {
    EXPECT_EQ(message.rfind("guava-helper filter key 'users': ", 0), 0u) << message;
  }
  const auto go_zero = [&](std::uint32_t k) {
    return error_of(
        [&] {
          bloomkit::redis::go_zero_filter(*client_, "users", 100,
                                          bloomkit::redis::go_zero_options{16, k});
        },
        errc::invalid_argument);
  };
  EXPECT_NE(go_zero(0).find("'users'"), std::string::npos);
  EXPECT_NE(go_zero(256).find("hashes"), std::string::npos);
  bloomkit::redis::guava_helper_options o;
  o.funnel = bloomkit::guava_helper::funnel::long_integer;
  guava_helper_filter longs(*client_, "users", 1000, 3, o);
  error_of([&] { longs.insert("not 8 bytes"); }, errc::invalid_argument);
  EXPECT_EQ(server_->raw({"EXISTS", "users"}).integer(), 0);
  EXPECT_TRUE(longs.insert(bloomkit::guava_helper::long_key(-42)));
  EXPECT_TRUE(longs.contains(bloomkit::guava_helper::long_key(-42)));
  server_->raw({"HSET", "hash", "f", "v"});
  guava_helper_filter wrong(*client_, "hash", 1000, 3);
  EXPECT_NE(
      error_of([&] { wrong.insert("a"); }, errc::wrong_type).find("guava-helper filter key 'hash'"),
      std::string::npos);
  const auto w = guava_helper_filter(*client_, "nothing", 1000, 3).warnings();
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].rfind("guava-helper filter key 'nothing' does not exist", 0), 0u) << w[0];
}

}  // namespace
