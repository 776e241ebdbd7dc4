// redis_static_filter against a real redis-server: a static generation answers present for every
// key of its set and of its delta, and exactly as the in-process static filter of the same set
// on other keys, whole or cut into many strings; rebuilds fold the delta in; a missing string is
// an error; push and pull round-trip a static file (docs/REDIS.md, "Static filters").

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/redis/static_filter.hpp"
#include "bloomkit/static_filter.hpp"
#include "support/errors.hpp"
#include "support/golden_vectors.hpp"
#include "support/keys.hpp"
#include "support/redis_fixtures.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit {
namespace {

using redis::redis_static_filter;
using redis::static_rebuild_options;
using test::error_of;
using test::make_keys;
using test::views;

// Results of contains_many over `keys`, as chars.
std::vector<char> answers(redis_static_filter& f, const std::vector<std::string>& keys) {
  const auto v = views(keys);
  std::unique_ptr<bool[]> out(new bool[v.size()]);
  f.contains_many(v, {out.get(), v.size()});
  return {out.get(), out.get() + v.size()};
}

std::vector<char> local_answers(const static_filter& f, const std::vector<std::string>& keys) {
  std::vector<char> out;
  for (const auto& k : keys) out.push_back(f.contains(k));
  return out;
}

class RedisStaticFilter : public test::single_server_client_test {
 protected:
  std::size_t keys_matching(const std::string& pattern) const {
    return server_->raw({"KEYS", pattern}).elements().size();
  }
};

TEST_F(RedisStaticFilter, AnswersEveryKeyAndExactlyAsTheInProcessFilterWholeOrInManyStrings) {
  const auto set = make_keys(20000, 1);
  const auto others = make_keys(20000, 2);
  const auto local = static_filter::build(views(set), 0.01);
  // 2^27-bit strings: one string per table; 2^10: each table cut into strings of 128 cells.
  for (const unsigned shard_bits : {27u, 10u}) {
    const std::string name = shard_bits == 10 ? "small" : "whole";
    static_rebuild_options o;
    o.fpp = 0.01;
    o.shard_bits = shard_bits;
    auto f = redis_static_filter::rebuild(*client_, name, views(set), o);
    EXPECT_EQ(f.fingerprint_bits(), local.fingerprint_bits());
    EXPECT_FALSE(f.has_delta());
    const auto present = answers(f, set);
    EXPECT_EQ(std::count(present.begin(), present.end(), 1), static_cast<long>(set.size()));
    EXPECT_EQ(answers(f, others), local_answers(local, others)) << name;
    const auto i = f.info();
    EXPECT_EQ(i.keys, set.size());
    EXPECT_EQ(i.static_bits, local.bits());
    if (shard_bits == 10) {
      EXPECT_GT(i.strings, 100u);  // the tables cut into many strings
    } else {
      EXPECT_EQ(i.strings, local.shards().size());
    }
    EXPECT_TRUE(f.contains(set[7]));
  }
}

TEST_F(RedisStaticFilter, TheDeltaTakesInsertsAndARebuildFoldsThemIn) {
  const auto base = make_keys(5000, 3);
  const auto added = make_keys(500, 4);
  static_rebuild_options o;
  o.fpp = 0.01;
  o.delta_capacity = 1000;
  o.shard_bits = 12;
  auto f = redis_static_filter::rebuild(*client_, "d", views(base), o);
  ASSERT_TRUE(f.has_delta());
  EXPECT_EQ(f.fingerprint_bits(), 7u);  // 2^-7 <= 15/16 of 1%: the delta takes the rest
  // Keys of the base are not new; the others are.
  EXPECT_FALSE(f.insert(base[0]));
  const auto v = views(added);
  // New: in neither part (a few of them are false positives of the tables or the delta).
  const std::size_t fresh = f.insert_many(v);
  EXPECT_LE(fresh, added.size());
  EXPECT_GE(fresh, added.size() - 20);
  auto other = redis_static_filter::open(*client_, "d");
  for (auto* h : {&f, &other}) {
    for (const auto& keys : {base, added}) {
      const auto a = answers(*h, keys);
      EXPECT_EQ(std::count(a.begin(), a.end(), 1), static_cast<long>(keys.size()));
    }
  }
  const auto i = f.info();
  EXPECT_NEAR(i.delta_estimated_count, static_cast<double>(added.size()), 50);
  EXPECT_LE(i.estimated_fpp, 0.01);
  EXPECT_EQ(i.inserted, fresh);
  // The next rebuild's source holds the base and the added keys: the new generation has them
  // in its tables and an empty delta.
  std::vector<std::string> all = base;
  all.insert(all.end(), added.begin(), added.end());
  f.rebuild(views(all));
  EXPECT_EQ(f.generation(), 2u);
  EXPECT_EQ(f.info().delta_bits_set, 0u);
  EXPECT_EQ(f.info().keys, all.size());
  const auto a = answers(other, all);  // the other handle follows the flip
  EXPECT_EQ(std::count(a.begin(), a.end(), 1), static_cast<long>(all.size()));
  EXPECT_EQ(other.generation(), 2u);
}

TEST_F(RedisStaticFilter, InsertsDuringARebuildReachTheNewGeneration) {
  const auto base = make_keys(3000, 5);
  const auto during = make_keys(200, 6);
  static_rebuild_options o;
  o.fpp = 0.01;
  o.delta_capacity = 1000;
  auto f = redis_static_filter::rebuild(*client_, "r", views(base), o);
  auto writer = redis_static_filter::open(*client_, "r");
  // The source runs after the mark: a writer inserting then lands in both deltas.
  f.rebuild([&](const redis::key_sink& sink) {
    writer.insert_many(views(during));
    sink(views(base));
  });
  const auto a = answers(f, during);
  EXPECT_EQ(std::count(a.begin(), a.end(), 1), static_cast<long>(during.size()));
}

TEST_F(RedisStaticFilter, InsertsWithoutADeltaAndOtherKindsAreRefusedNamingTheKind) {
  const auto keys = make_keys(100, 7);
  static_rebuild_options o;
  o.fpp = 0.001;
  auto f = redis_static_filter::rebuild(*client_, "n", views(keys), o);
  const std::string e = error_of([&] { f.insert("x"); }, errc::unsupported);
  EXPECT_NE(e.find("static filter without a delta"), std::string::npos) << e;
  // A native filter of that name: not rebuilt as static; and a native open refuses the static.
  redis::redis_filter::create(*client_, "native", 1000, 0.01);
  EXPECT_NE(error_of([&] { redis_static_filter::rebuild(*client_, "native", views(keys), o); },
                     errc::incompatible)
                .find("is a native filter"),
            std::string::npos);
  EXPECT_NE(error_of([&] { redis::redis_filter::open(*client_, "n"); }, errc::unsupported)
                .find("a static filter"),
            std::string::npos);
  // A new filter needs a target p; an empty source is refused.
  error_of([&] { redis_static_filter::rebuild(*client_, "new", views(keys)); },
           errc::invalid_argument);
  error_of([&] { f.rebuild(std::span<const std::string_view>{}); }, errc::invalid_argument);
  EXPECT_EQ(f.info().generation, 1u);
}

TEST_F(RedisStaticFilter, AMissingStringIsAnErrorNeverAnAnswer) {
  const auto keys = make_keys(2000, 8);
  static_rebuild_options o;
  o.fpp = 0.01;
  o.delta_capacity = 100;
  o.shard_bits = 10;
  auto f = redis_static_filter::rebuild(*client_, "m", views(keys), o);
  const std::size_t strings = f.info().strings;
  ASSERT_EQ(keys_matching("m:1:*"), strings);
  // A static string and a delta shard, each deleted: every lookup reaching it fails.
  for (const std::string victim : {"m:1:5", "m:1:0"}) {
    const auto dump = server_->raw({"DUMP", victim}).str();
    server_->raw({"DEL", victim});
    const std::string e = test::thrown_by([&] { answers(f, keys); })->what();
    EXPECT_NE(e.find("'" + victim + "' is missing"), std::string::npos) << e;
    error_of([&] { f.info(); }, errc::not_found);
    server_->raw({"RESTORE", victim, "0", dump});
  }
  const auto a = answers(f, keys);
  EXPECT_EQ(std::count(a.begin(), a.end(), 1), static_cast<long>(keys.size()));
  // A write into a missing delta shard leaves nothing behind.
  server_->raw({"DEL", "m:1:0"});
  error_of([&] { f.insert_many(views(make_keys(50, 9))); }, errc::not_found);
  EXPECT_EQ(server_->raw({"EXISTS", "m:1:0"}).integer(), 0);
}

TEST_F(RedisStaticFilter, PushAndPullRoundTripAStaticFileByteForByte) {
  test::temp_dir dir;
  const auto keys = make_keys(30000, 10);
  const auto file = dir.path() / "s.bloom";
  save(static_filter::build(views(keys), 0.001), file);
  auto f = redis_static_filter::push(*client_, file, "p");
  const auto a = answers(f, keys);
  EXPECT_EQ(std::count(a.begin(), a.end(), 1), static_cast<long>(keys.size()));
  f.pull(dir.path() / "back.bloom");
  const auto bytes = [](const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(bytes(file), bytes(dir.path() / "back.bloom"));
  error_of([&] { redis_static_filter::push(*client_, file, "p"); }, errc::already_exists);
  // With a delta: a delta that holds keys cannot be pulled into a static file.
  auto d = redis_static_filter::push(*client_, file, "pd", 100);
  d.pull(dir.path() / "empty_delta.bloom");
  EXPECT_EQ(bytes(file), bytes(dir.path() / "empty_delta.bloom"));
  d.insert("new key");
  error_of([&] { d.pull(dir.path() / "refused.bloom"); }, errc::unsupported);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "refused.bloom"));
}

// The golden static file (tests/data/golden/static_string: FORMAT.md's bytes) pushed to Redis,
// with and without a delta, in one string and cut into strings of 2^10 bits: every probe of the
// vector answers as recorded.
TEST_F(RedisStaticFilter, TheGoldenStaticFileAnswersEveryProbeAsRecorded) {
  const auto v =
      test::read_golden(std::filesystem::path(BLOOMKIT_GOLDEN_DATA) / "static_string.txt");
  ASSERT_EQ(v.kind, "static");
  ASSERT_GT(v.probes.size(), 100u);
  const auto file = std::filesystem::path(BLOOMKIT_GOLDEN_DATA) / v.file;
  std::vector<std::string> keys;
  std::vector<char> expected;
  for (const auto& [key, present] : v.probes) {
    keys.push_back(key);
    expected.push_back(present);
  }
  auto whole = redis_static_filter::push(*client_, file, "golden");
  EXPECT_EQ(answers(whole, keys), expected);
  auto with_delta = redis_static_filter::push(*client_, file, "golden_delta", 50);
  EXPECT_EQ(answers(with_delta, keys), expected);  // an empty delta adds nothing
  // The same tables in strings of 2^10 bits (a rebuild of the vector's keys: the same bytes).
  std::vector<std::string> inserted;
  for (const auto& op : v.operations) inserted.push_back(op.key);
  static_rebuild_options o;
  o.fpp = v.target_fpp;
  o.shard_bits = 10;
  auto cut = redis_static_filter::rebuild(*client_, "golden_cut", views(inserted), o);
  EXPECT_EQ(answers(cut, keys), expected);
}

// A table string of more than 1 MiB takes its length in Redis's memory (within the allocator's
// size class), not the 1 MiB of slack that SETRANGE past a string's end leaves.
TEST_F(RedisStaticFilter, AStringTakesItsLengthInMemoryWithoutSlack) {
  static_rebuild_options o;
  o.fpp = std::ldexp(1.0, -32);  // 32-bit cells: 320,000 keys fill a table of about 1.5 MB
  auto f = redis_static_filter::rebuild(*client_, "big", views(make_keys(320000, 15)), o);
  ASSERT_EQ(f.fingerprint_bits(), 32u);
  const long long length = server_->raw({"STRLEN", "big:1:0"}).integer();
  ASSERT_GT(length, 1 << 20);
  const long long memory = server_->raw({"MEMORY", "USAGE", "big:1:0"}).integer();
  EXPECT_LT(memory, length + length / 4 + 1024) << length;
}

TEST_F(RedisStaticFilter, DropAndExpireReachEveryString) {
  static_rebuild_options o;
  o.fpp = 0.01;
  o.delta_capacity = 100;
  o.shard_bits = 10;
  auto f = redis_static_filter::rebuild(*client_, "e", views(make_keys(1000, 11)), o);
  f.expire(std::chrono::seconds(100));
  const auto all = server_->raw({"KEYS", "e:*"});  // elements() refer into it
  ASSERT_GT(all.elements().size(), 10u);
  for (const auto& k : all.elements()) {
    EXPECT_GT(server_->raw({"TTL", k.str()}).integer(), 0) << k.str();
  }
  const std::uint64_t strings = f.info().strings;
  EXPECT_EQ(redis::redis_filter::drop(*client_, "e"), strings + 1);
  EXPECT_EQ(keys_matching("e:*"), 0u);
}

class RedisStaticFilterCluster : public test::cluster_test {};

TEST_F(RedisStaticFilterCluster, StringsSpreadOverTheMastersAndAnswerAsOnOneServer) {
  auto c = redis::client::connect(cluster_->url());
  const auto base = make_keys(20000, 12);
  const auto others = make_keys(20000, 13);
  static_rebuild_options o;
  o.fpp = 0.01;
  o.delta_capacity = 2000;
  o.shard_bits = 12;  // about 40 strings of tables, spread by their names' slots
  auto f = redis_static_filter::rebuild(c, "c", views(base), o);
  for (const auto m : cluster_->masters()) {
    EXPECT_GE(cluster_->node(m).raw({"DBSIZE"}).integer(), 5) << m;
  }
  const auto added = make_keys(1000, 14);
  f.insert_many(views(added));
  for (const auto& keys : {base, added}) {
    const auto a = answers(f, keys);
    EXPECT_EQ(std::count(a.begin(), a.end(), 1), static_cast<long>(keys.size()));
  }
  const auto local = static_filter::build(views(base), 0.01 * 15 / 16);
  const auto strangers = answers(f, others);
  // The tables answer as the in-process filter; the delta adds its own few false positives.
  const auto tables = local_answers(local, others);
  for (std::size_t i = 0; i < others.size(); ++i) EXPECT_GE(strangers[i], tables[i]) << i;
  EXPECT_LT(std::count(strangers.begin(), strangers.end(), 1), 20000 * 0.02);
  std::vector<std::string> all = base;
  all.insert(all.end(), added.begin(), added.end());
  f.rebuild(views(all));
  const auto a = answers(f, all);
  EXPECT_EQ(std::count(a.begin(), a.end(), 1), static_cast<long>(all.size()));
}

}  // namespace
}  // namespace bloomkit
