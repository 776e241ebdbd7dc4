// bloomkit::redis::redis_filter against real redis-server processes: the shard layout, a single
// server (answers, FPP, concurrency, create atomicity, open errors, TTL, rebuild, push / pull,
// restart) and a Redis Cluster (> 2^32 bits, concurrent clients, slot migration, failover).
#include "bloomkit/redis/redis_filter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"
#include "file/header_codec.hpp"
#include "redis/client_stats.hpp"
#include "redis/key_slot.hpp"
#include "support/errors.hpp"
#include "support/fpp_checks.hpp"
#include "support/keys.hpp"
#include "support/redis_fixtures.hpp"
#include "support/redis_server.hpp"
#include "support/temp_dir.hpp"

namespace {

using bloomkit::redis::detail::stats_of;

using bloomkit::test::cluster_test;
using bloomkit::test::error_of;
using bloomkit::test::single_server_client_test;

using namespace std::chrono_literals;
using bloomkit::errc;
using bloomkit::error;
using bloomkit::redis::client;
using bloomkit::redis::client_options;
using bloomkit::redis::command;
using bloomkit::redis::filter_options;
using bloomkit::redis::redis_filter;
using bloomkit::redis::shard_layout;
using bloomkit::test::make_keys;
using bloomkit::test::redis_cluster;
using bloomkit::test::redis_server;
using bloomkit::test::redis_server_options;
using bloomkit::test::views;

// Every key of the server with its DUMP: equal snapshots mean nothing was written.
using snapshot = std::map<std::string, std::string>;
snapshot take_snapshot(const redis_server& s) {
  snapshot out;
  const auto keys = s.raw({"KEYS", "*"});  // a named reply: elements() refers into it
  for (const auto& k : keys.elements()) {
    out[k.str()] = s.raw({"DUMP", k.str()}).str();
  }
  return out;
}

std::set<std::string> keys_of(const redis_server& s, const std::string& pattern) {
  std::set<std::string> out;
  const auto keys = s.raw({"KEYS", pattern});
  for (const auto& k : keys.elements()) out.insert(k.str());
  return out;
}

// Inserts keys in batches of 1000; returns the number of new ones.
std::size_t insert_all(redis_filter& f, const std::vector<std::string>& keys) {
  const auto v = views(keys);
  std::size_t fresh = 0;
  for (std::size_t i = 0; i < v.size(); i += 1000) {
    fresh += f.insert_many(std::span(v).subspan(i, std::min<std::size_t>(1000, v.size() - i)));
  }
  return fresh;
}

std::size_t count_present(redis_filter& f, const std::vector<std::string>& keys) {
  const auto v = views(keys);
  std::vector<char> buffer(v.size());
  auto* results = reinterpret_cast<bool*>(buffer.data());
  return f.contains_many(v, {results, v.size()});
}

// --- the layout (no server) ----------------------------------------------------------------

TEST(RedisShardLayout, OneShardIsTheNativeClassicFilter) {
  const auto layout = shard_layout::for_capacity(10000, 0.01, 27);
  const auto params = bloomkit::optimal_params(10000, 0.01);
  EXPECT_EQ(layout, (shard_layout{params.bits, 1, params.hashes}));
  for (const auto& key : make_keys(200, 1)) {
    const auto d = bloomkit::xxh3_128(key);
    EXPECT_EQ(layout.shard_of(d), 0u);
    std::vector<std::uint64_t> offsets(layout.hashes);
    layout.offsets(d, offsets.data());
    bloomkit::probe_sequence native(d, params.bits);
    for (auto o : offsets) EXPECT_EQ(o, native.next());
  }
}

TEST(RedisShardLayout, SplitsIntoEqualWordAlignedShardsWithinTheLimit) {
  for (std::uint64_t bits : {1025ull, 4096ull, 1000000ull, (1ull << 32) + 1, 10000000000ull}) {
    for (unsigned b : {10u, 20u, 27u, 32u}) {
      const auto l = shard_layout::for_bits(bits, 7, b);
      EXPECT_LE(l.shard_bits, 1ull << b);
      EXPECT_GE(l.total_bits(), bits);
      EXPECT_EQ(l.inconsistency(), "");
      if (bits <= (1ull << b)) {
        EXPECT_EQ(l.shard_count, 1u);
        EXPECT_EQ(l.shard_bits, bits);
      } else {
        EXPECT_EQ(l.shard_bits % 64, 0u);
        EXPECT_EQ(l.shard_count, (bits + (1ull << b) - 1) >> b);
        EXPECT_LT(l.total_bits() - bits, l.shard_count * 64);
      }
    }
  }
  error_of([] { shard_layout::for_bits(1000, 7, 9); }, errc::invalid_argument);
  error_of([] { shard_layout::for_bits(1000, 7, 33); }, errc::invalid_argument);
  EXPECT_NE((shard_layout{100, 2, 7}).inconsistency(), "");  // shards not whole words
  EXPECT_NE((shard_layout{(1ull << 32) + 64, 2, 7}).inconsistency(), "");
  EXPECT_NE((shard_layout{64, 2, 0}).inconsistency(), "");
}

TEST(RedisShardLayout, KeysSpreadEvenlyOverShards) {
  // 64,000 keys over 64 shards: each count is Binomial(64000, 1/64), mean 1000, sd 31.
  const shard_layout l{1 << 12, 64, 7};
  std::vector<int> counts(64);
  for (const auto& key : make_keys(64000, 2)) ++counts[l.shard_of(bloomkit::xxh3_128(key))];
  for (int c : counts) {
    EXPECT_GT(c, 1000 - 5 * 32);
    EXPECT_LT(c, 1000 + 5 * 32);
  }
}

// The sharded layout meets its target at capacity with small shards too, whose loads vary
// (binomially) around n / shards: a local filter with the layout's exact probes (shard_of,
// offsets), checked like every kind (support/fpp_checks.hpp).
class local_sharded_filter {
 public:
  explicit local_sharded_filter(const shard_layout& layout)
      : layout_(layout), bits_(layout.total_bits()) {}
  void insert_many(std::span<const std::string_view> keys) {
    for (const auto key : keys) {
      for (const std::uint64_t bit : bits_of(key)) bits_[bit] = true;
    }
  }
  std::size_t contains_many(std::span<const std::string_view> keys, std::span<bool> results) const {
    std::size_t present = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const auto bits = bits_of(keys[i]);
      results[i] = std::all_of(bits.begin(), bits.end(), [&](std::uint64_t b) { return bits_[b]; });
      present += results[i];
    }
    return present;
  }

 private:
  std::vector<std::uint64_t> bits_of(std::string_view key) const {
    const auto d = bloomkit::xxh3_128(key);
    std::vector<std::uint64_t> out(layout_.hashes);
    layout_.offsets(d, out.data());
    for (auto& o : out) o += layout_.shard_of(d) * layout_.shard_bits;
    return out;
  }
  shard_layout layout_;
  std::vector<bool> bits_;
};

TEST(RedisShardLayout, SmallShardsMeetTheTargetAtCapacity) {
  const bloomkit::test::point pt{0.01, 0.15};
  for (const std::uint64_t n : {300u, 1000u, 3000u}) {
    const auto layout = shard_layout::for_capacity(n, pt.p, 10);  // shards of at most 1024 bits
    EXPECT_GT(layout.shard_count, 1u) << n;
    const auto [filters, each] = bloomkit::test::design(pt, n);
    const auto m = bloomkit::test::measure(filters, each, [&](std::uint64_t f) {
      local_sharded_filter filter(layout);
      filter.insert_many(bloomkit::test::key_family("key-", f, n).views());
      return filter;
    });
    bloomkit::test::expect_meets(m, pt, "2^10-bit shards, n=" + std::to_string(n));
  }
}

TEST(RedisShardLayout, ReversesBitsInBytes) {
  std::vector<unsigned char> bytes = {0x01, 0x80, 0x0f, 0xa5};
  bloomkit::redis::reverse_bits_in_bytes(bytes);
  EXPECT_EQ(bytes, (std::vector<unsigned char>{0x80, 0x01, 0xf0, 0xa5}));
}

TEST(RedisShardLayout, ShardedFilesRoundTrip) {
  // The local mirror of a sharded filter: hash scheme 20, shard count in kind_params[0].
  bloomkit::test::temp_dir dir;
  bloomkit::file_header h;
  h.scheme = bloomkit::hash_scheme::redis_sharded_xxh3;
  h.bits = 4 * 1024;
  h.hashes = 7;
  h.capacity = 400;
  h.target_fpp = 0.01;
  h.inserted = 3;
  h.kind_params[0] = 4;
  bloomkit::bit_array bits(h.bits);
  for (std::uint64_t i : {0ull, 1023ull, 1024ull, 4095ull}) bits.set(i);
  bloomkit::save_raw(h, bits, dir / "s.bf");
  const auto back = bloomkit::load_raw(dir / "s.bf");
  EXPECT_EQ(back.bits, bits);
  EXPECT_EQ(back.header.kind_params[0], 4u);
  EXPECT_EQ(back.header.inserted, 3u);
  auto m = error_of([&] { bloomkit::load(dir / "s.bf"); }, errc::unsupported);
  EXPECT_NE(m.find("uses hash scheme redis-sharded-xxh3, not xxh3-128"), std::string::npos) << m;

  // Bad shard counts: shard_file_test.cpp (push and pull check them).
  h.payload_offset = bloomkit::file_header_size;
  h.payload_length = bits.byte_size();
  auto native = h;  // the native scheme keeps every reserved field 0
  native.scheme = bloomkit::hash_scheme::xxh3_128;
  m = error_of([&] { bloomkit::decode_header(bloomkit::encode_header(native), "n.bf"); },
               errc::corrupt_file);
  EXPECT_NE(m.find("reserved fields are set"), std::string::npos) << m;
}

// --- a single server -----------------------------------------------------------------------

class RedisFilterSingle : public single_server_client_test {};

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

// --- missing shards, writes that would create shards, empty rebuilds, the count (issue 11) ---

constexpr auto npos = std::string::npos;

// The key of the shard `key` lands in.
std::string shard_of(const redis_filter& f, std::string_view key, std::uint64_t generation = 1) {
  return f.name() + ":" + std::to_string(generation) + ":" +
         std::to_string(f.layout().shard_of(bloomkit::xxh3_128(key)));
}

// The first of `keys` whose shard is not `shard`.
std::string key_outside(const redis_filter& f, const std::vector<std::string>& keys,
                        const std::string& shard) {
  for (const auto& k : keys) {
    if (shard_of(f, k) != shard) return k;
  }
  ADD_FAILURE() << "every key is in " << shard;
  return {};
}

TEST_F(RedisFilterSingle, AMissingOrShortShardIsAnErrorNamingItNeverAnAnswer) {
  auto f = redis_filter::create(*client_, "gap", 20000, 0.01, 14);
  ASSERT_GT(f.layout().shard_count, 10u);
  const auto keys = make_keys(2000, 70);
  insert_all(f, keys);
  const std::string victim = shard_of(f, keys[0]);
  const std::string other = key_outside(f, keys, victim);
  auto c2 = client::connect(server_->url());
  auto fresh_handle = redis_filter::open(c2, "gap");
  // Missing (deleted, evicted, lost in a restart) while the meta survives.
  server_->raw({"DEL", victim});
  for (redis_filter* h : {&f, &fresh_handle}) {
    auto m = error_of([&] { h->contains(keys[0]); }, errc::not_found);
    EXPECT_EQ(m, "filter 'gap': shard '" + victim +
                     "' is missing (evicted or deleted): the filter cannot answer; rebuild or "
                     "push it again")
        << m;
    m = error_of([&] { count_present(*h, keys); }, errc::not_found);
    EXPECT_NE(m.find("'" + victim + "'"), npos) << m;
    EXPECT_TRUE(h->contains(other));  // the other shards still answer
  }
  auto m = error_of([&] { f.info(); }, errc::not_found);
  EXPECT_NE(m.find("'" + victim + "'"), npos) << m;
  EXPECT_EQ(server_->raw({"EXISTS", victim}).integer(), 0);  // lookups create nothing

  // Short: fewer bytes than the layout says, here with every bit it has set.
  server_->raw({"SET", victim, std::string(16, '\xff')});
  m = error_of([&] { f.contains(keys[0]); }, errc::not_found);
  EXPECT_NE(m.find("shard '" + victim + "' is short"), npos) << m;
  error_of([&] { count_present(fresh_handle, keys); }, errc::not_found);
  m = error_of([&] { f.info(); }, errc::not_found);
  EXPECT_NE(m.find("'" + victim + "'"), npos) << m;
}

TEST_F(RedisFilterSingle, WritesNeverCreateAShard) {
  auto f = redis_filter::create(*client_, "w", 20000, 0.01, 14);
  const auto keys = make_keys(1000, 71);
  const std::string victim = shard_of(f, keys[0]);
  server_->raw({"DEL", victim});
  auto m = error_of([&] { f.insert(keys[0]); }, errc::not_found);
  EXPECT_NE(m.find("shard '" + victim + "' is missing"), npos) << m;
  EXPECT_EQ(server_->raw({"EXISTS", victim}).integer(), 0);
  m = error_of([&] { insert_all(f, keys); }, errc::not_found);
  EXPECT_NE(m.find("'" + victim + "'"), npos) << m;
  EXPECT_EQ(server_->raw({"EXISTS", victim}).integer(), 0);
  const std::string other = key_outside(f, make_keys(100, 75), victim);
  f.insert(other);  // the other shards still take keys
  EXPECT_TRUE(f.contains(other));

  // A stale handle: the filter was dropped by another client, expired, or lost in a restart
  // without persistence. Its writes create no key at all (no shard, no meta).
  auto c2 = client::connect(server_->url());
  redis_filter::open(c2, "w").drop();
  EXPECT_EQ(keys_of(*server_, "*"), std::set<std::string>{});
  error_of([&] { f.insert(keys[1]); }, errc::not_found);
  error_of([&] { insert_all(f, keys); }, errc::not_found);
  EXPECT_EQ(keys_of(*server_, "*"), std::set<std::string>{});

  auto g = redis_filter::create(*client_, "ttl", 20000, 0.01, 14);
  g.insert(keys[0]);
  g.expire(1s);
  std::this_thread::sleep_for(1100ms);
  error_of([&] { g.insert(keys[1]); }, errc::not_found);
  error_of([&] { insert_all(g, keys); }, errc::not_found);
  EXPECT_EQ(keys_of(*server_, "*"), std::set<std::string>{});

  auto h = redis_filter::create(*client_, "lost", 20000, 0.01, 14);
  h.insert(keys[0]);
  server_->restart();  // no persistence: everything is gone
  error_of([&] { h.insert(keys[1]); }, errc::not_found);
  error_of([&] { insert_all(h, keys); }, errc::not_found);
  EXPECT_EQ(keys_of(*server_, "*"), std::set<std::string>{});
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

// INFO stats' total_reads_processed: how many reads the server did on client sockets. A pipeline
// sent with one write arrives in one read on the loopback.
long long reads_processed(const redis_server& s) {
  const std::string info = s.raw({"INFO", "STATS"}).str();
  const auto at = info.find("total_reads_processed:") + 22;
  return std::stoll(info.substr(at, info.find('\r', at) - at));
}

TEST_F(RedisFilterSingle, SingleKeyInsertIsOneRoundTripWithoutLua) {
  auto f = redis_filter::create(*client_, "one", 10000, 0.01);
  f.contains("warm up");
  server_->raw({"CONFIG", "RESETSTAT"});
  // The cost of measuring (raw() connects, sends INFO, disconnects), then one contains (one round
  // trip), then single inserts, new and old.
  const long long r0 = reads_processed(*server_);
  const long long r1 = reads_processed(*server_);
  f.contains("a");
  const long long r2 = reads_processed(*server_);
  EXPECT_TRUE(f.insert("a"));
  const long long r3 = reads_processed(*server_);
  EXPECT_TRUE(f.insert("b"));
  const long long r4 = reads_processed(*server_);
  EXPECT_FALSE(f.insert("b"));
  const long long r5 = reads_processed(*server_);
  const long long measuring = r1 - r0;
  EXPECT_EQ(r2 - r1 - measuring, 1);
  EXPECT_EQ(r3 - r2 - measuring, 1);
  EXPECT_EQ(r4 - r3 - measuring, 1);
  EXPECT_EQ(r5 - r4 - measuring, 1);
  const std::string stats = server_->raw({"INFO", "COMMANDSTATS"}).str();
  EXPECT_EQ(stats.find("cmdstat_eval"), npos) << stats;
  // And the count stays right: the count of an insert travels with the next call.
  for (const auto& k : make_keys(50, 73)) f.insert(k);
  EXPECT_EQ(f.info().inserted, 52u);
  auto c2 = client::connect(server_->url());
  EXPECT_EQ(redis_filter::open(c2, "one").info().inserted, 52u);
}

// calls= of one command in INFO COMMANDSTATS (0 when it never ran).
long long calls_of(const redis_server& s, const std::string& cmd) {
  const std::string stats = s.raw({"INFO", "COMMANDSTATS"}).str();
  const auto at = stats.find("cmdstat_" + cmd + ":calls=");
  if (at == std::string::npos) return 0;
  return std::stoll(stats.substr(at + cmd.size() + 15));
}

// What a single-key insert sends: its BITFIELD and the meta's re-read, plus the count of the
// previous call's new keys when there is one; never a script.
TEST_F(RedisFilterSingle, SingleKeyInsertSendsItsBitfieldAndTheMetaReadOnly) {
  auto f = redis_filter::create(*client_, "cmds", 10000, 0.01);
  EXPECT_TRUE(f.insert("warm up"));  // its count travels with the next call
  server_->raw({"CONFIG", "RESETSTAT"});
  EXPECT_TRUE(f.insert("a"));   // + HINCRBY of "warm up"
  EXPECT_FALSE(f.insert("a"));  // + HINCRBY of "a"
  EXPECT_FALSE(f.insert("a"));  // nothing to count
  EXPECT_EQ(calls_of(*server_, "bitfield"), 3);
  EXPECT_EQ(calls_of(*server_, "hmget"), 3);
  EXPECT_EQ(calls_of(*server_, "hincrby"), 2);
  EXPECT_EQ(calls_of(*server_, "eval"), 0);
  EXPECT_EQ(calls_of(*server_, "evalsha"), 0);
  EXPECT_EQ(f.inserted(), 2u);
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

TEST_F(RedisFilterSingle, DropRemovesEveryKeyOfTheNameIncludingOrphans) {
  // A filter, plus orphans: an interrupted rebuild's generation and stray shards of others.
  auto f = redis_filter::create(*client_, "d", 20000, 0.01, 14);
  f.insert("k");
  for (const std::string key : {"d:2:0", "d:2:5", "d:9:1", "d:1:99"}) {
    server_->raw({"SET", key, "x"});
  }
  const std::set<std::string> others = {"d",      "d:x",    "d:1",     "d:1:2:3",
                                        "d:01:1", "dd:1:0", "d:meta:x"};
  for (const auto& key : others) server_->raw({"SET", key, "other"});
  EXPECT_EQ(redis_filter::drop(*client_, "d"), f.layout().shard_count + 1 + 4);
  EXPECT_EQ(keys_of(*server_, "*"), others);
  error_of([&] { f.contains("k"); }, errc::not_found);
  error_of([&] { redis_filter::drop(*client_, "d"); }, errc::not_found);

  // Shards without any meta (a create killed half-way): drop finds them; create works again.
  server_->raw({"SET", "e:1:3", "x"});
  auto m =
      error_of([&] { redis_filter::create(*client_, "e", 20000, 0.01, 14); }, errc::already_exists);
  EXPECT_NE(m.find("`bloomkit redis drop e`"), npos) << m;
  EXPECT_EQ(redis_filter::drop(*client_, "e"), 1u);
  redis_filter::create(*client_, "e", 20000, 0.01, 14).insert("k");

  // A meta of another type is not ours to delete.
  server_->raw({"SET", "s:meta", "x"});
  server_->raw({"SET", "s:1:0", "x"});
  error_of([&] { redis_filter::drop(*client_, "s"); }, errc::wrong_type);
  EXPECT_EQ(server_->raw({"EXISTS", "s:1:0"}).integer(), 1);
}

// A filter as bloomkit made them before guard bits: no shard_guard in the meta, shards of
// exactly their bits' bytes.
void strip_guards(const redis_server& s, const redis_filter& f) {
  s.raw({"HDEL", f.name() + ":meta", "shard_guard"});
  for (std::uint64_t j = 0; j < f.layout().shard_count; ++j) {
    const std::string key = f.name() + ":1:" + std::to_string(j);
    const std::string bits =
        s.raw({"GETRANGE", key, "0", std::to_string(f.layout().shard_bytes() - 1)}).str();
    s.raw({"SET", key, bits});
  }
}

TEST_F(RedisFilterSingle, AFilterWithoutGuardBitsIsCheckedByLengthAndRebuildAddsThem) {
  auto f = redis_filter::create(*client_, "old", 20000, 0.01, 14);
  const auto keys = make_keys(2000, 77);
  insert_all(f, keys);
  strip_guards(*server_, f);
  auto g = redis_filter::open(*client_, "old");
  EXPECT_EQ(count_present(g, keys), keys.size());
  insert_all(g, make_keys(100, 78));
  const std::string victim = shard_of(g, keys[0]);
  server_->raw({"DEL", victim});
  auto m = error_of([&] { g.contains(keys[0]); }, errc::not_found);
  EXPECT_NE(m.find("shard '" + victim + "' is missing"), npos) << m;
  m = error_of([&] { g.insert(keys[0]); }, errc::not_found);
  EXPECT_NE(m.find("shard '" + victim + "' is missing"), npos) << m;
  EXPECT_EQ(server_->raw({"EXISTS", victim}).integer(), 0);
  error_of([&] { g.info(); }, errc::not_found);
  // A rebuild gives it guard bits: shard_guard names the generation that has them.
  g.rebuild(views(keys));
  EXPECT_EQ(server_->raw({"HGET", "old:meta", "shard_guard"}).str(), "2");
  EXPECT_EQ(count_present(g, keys), keys.size());
  EXPECT_EQ(count_present(f, keys), keys.size());  // the other handle follows the flip
  // A generation that an older bloomkit rebuilt has no guard bits, though the meta still names
  // the one before: checked by length.
  server_->raw({"HSET", "old:meta", "shard_guard", "1"});
  EXPECT_EQ(count_present(f, keys), keys.size());
  insert_all(f, make_keys(100, 83));
  server_->raw({"DEL", shard_of(g, keys[0], 2)});
  error_of([&] { f.contains(keys[0]); }, errc::not_found);
  server_->raw({"HSET", "old:meta", "shard_guard", "2"});
  error_of([&] { g.contains(keys[0]); }, errc::not_found);
}

TEST_F(RedisFilterSingle, InfoChecksEveryShardItsTtlAndTheEvictionPolicy) {
  auto f = redis_filter::create(*client_, "i", 20000, 0.01, 14);
  insert_all(f, make_keys(500, 79));
  auto i = f.info();
  EXPECT_EQ(i.warnings, std::vector<std::string>{});
  EXPECT_FALSE(i.inserted_stale);
  EXPECT_NEAR(static_cast<double>(i.bits_set), 500.0 * f.layout().hashes, 100.0);
  EXPECT_NEAR(i.estimated_count, 500, 20);
  server_->raw({"CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"});
  i = f.info();
  ASSERT_EQ(i.warnings.size(), 1u);
  EXPECT_EQ(i.warnings[0],
            "filter 'i': maxmemory-policy allkeys-lfu lets Redis evict its keys under memory "
            "pressure; use noeviction (docs/REDIS.md, \"Eviction\")");
  server_->raw({"CONFIG", "SET", "maxmemory-policy", "volatile-ttl"});
  EXPECT_EQ(f.info().warnings, std::vector<std::string>{});
  f.expire(100s);
  i = f.info();
  ASSERT_EQ(i.warnings.size(), 1u);
  EXPECT_NE(i.warnings[0].find("maxmemory-policy volatile-ttl"), npos) << i.warnings[0];
  server_->raw({"CONFIG", "SET", "maxmemory-policy", "noeviction"});
  EXPECT_EQ(f.info().warnings, std::vector<std::string>{});
  server_->raw({"PERSIST", "i:1:2"});
  server_->raw({"EXPIRE", "i:1:3", "10"});
  i = f.info();
  ASSERT_EQ(i.warnings.size(), 1u);
  EXPECT_EQ(i.warnings[0].rfind("filter 'i': 2 shards expire other than its meta ('i:1:2' "
                                "expires never, i:meta in 100 s)",
                                0),
            0u)
      << i.warnings[0];
  // A short shard: an error naming it, with its length.
  server_->raw({"SET", "i:1:4", "abc"});
  const auto m = error_of([&] { f.info(); }, errc::not_found);
  EXPECT_NE(m.find("shard 'i:1:4' is short (3 of "), npos) << m;
}

// --- ACL users with exactly the commands docs/REDIS.md lists ("Permissions") ---------------

// The arguments of the documented `ACL SETUSER urls-<role> ...` line after SETUSER, with
// PASSWORD replaced by `password`.
std::vector<std::string> documented_acl(const std::string& role, const std::string& password) {
  std::ifstream docs(BLOOMKIT_DOCS "/REDIS.md");
  std::string line;
  const std::string prefix = "ACL SETUSER urls-" + role + " ";
  while (std::getline(docs, line)) {
    if (line.rfind(prefix, 0) != 0) continue;
    std::istringstream words(line.substr(4 + 8));  // past "ACL SETUSER "
    std::vector<std::string> out;
    for (std::string w; words >> w;) out.push_back(w == ">PASSWORD" ? ">" + password : w);
    return out;
  }
  ADD_FAILURE() << "docs/REDIS.md has no line starting with '" << prefix << "'";
  return {};
}

class RedisFilterAcl : public single_server_client_test {
 protected:
  // A client of the documented user `role`, minus the commands in `without`.
  client user(const std::string& role, const std::vector<std::string>& without = {}) {
    auto rules = documented_acl(role, "secret");
    std::vector<std::string> args = {"ACL", "SETUSER"};
    args.insert(args.end(), rules.begin(), rules.end());
    for (const auto& c : without) args.push_back("-" + c);
    EXPECT_EQ(server_->raw(args).str(), "OK");
    return client::connect("redis://" + args[2] + ":secret@" + server_->address());
  }
};

TEST_F(RedisFilterAcl, TheDocumentedUsersCanDoTheirJobsWithNothingMore) {
  bloomkit::test::temp_dir dir;
  auto admin = user("admin");
  auto made = redis_filter::create(admin, "urls", 20000, 0.01, 14);
  const auto keys = make_keys(1000, 80);

  auto writer_client = user("writer");
  auto writer = redis_filter::open(writer_client, "urls");
  insert_all(writer, keys);
  EXPECT_TRUE(writer.insert("one more"));
  writer.flush();
  EXPECT_EQ(writer.uncounted_inserts(), 0u);
  // A write that finds its shard missing removes what it created (the script's commands).
  const std::string victim = shard_of(writer, "another");
  const std::string bits = server_->raw({"GET", victim}).str();
  server_->raw({"DEL", victim});
  const auto m = error_of([&] { writer.insert("another"); }, errc::not_found);
  EXPECT_EQ(m.find("could not remove"), npos) << m;
  EXPECT_EQ(server_->raw({"EXISTS", victim}).integer(), 0);
  server_->raw({"SET", victim, bits});

  auto reader_client = user("reader");
  auto reader = redis_filter::open(reader_client, "urls");
  EXPECT_EQ(count_present(reader, keys), keys.size());
  EXPECT_TRUE(reader.contains("one more"));
  const auto i = reader.info();
  EXPECT_EQ(i.inserted, keys.size() + 1);
  EXPECT_EQ(i.warnings, std::vector<std::string>{});
  error_of([&] { reader.insert("x"); }, errc::server_error);  // NOPERM: a reader cannot write

  made.expire(1000s);
  made.pull(dir / "urls.bf");
  made.rebuild(views(keys));
  EXPECT_EQ(count_present(reader, keys), keys.size());
  made.drop();
  redis_filter::push(admin, dir / "urls.bf", "urls");
  EXPECT_EQ(count_present(reader, keys), keys.size());
  EXPECT_EQ(redis_filter::drop(admin, "urls"), made.layout().shard_count + 1);
}

TEST_F(RedisFilterAcl, ARefusedCountIsReportedNeverSilentlyWrong) {
  auto admin = user("admin");
  redis_filter::create(admin, "urls", 20000, 0.01, 14);
  auto no_count = user("writer", {"hincrby"});
  auto f = redis_filter::open(no_count, "urls");
  const auto keys = make_keys(300, 81);
  EXPECT_EQ(insert_all(f, keys), 300u);
  EXPECT_TRUE(f.insert("single"));
  f.flush();
  EXPECT_EQ(f.uncounted_inserts(), 301u);
  EXPECT_NE(f.count_refusal().find("NOPERM"), npos) << f.count_refusal();
  const auto i = f.info();
  EXPECT_EQ(i.inserted, 0u);
  EXPECT_TRUE(i.inserted_stale);
  ASSERT_EQ(i.warnings.size(), 1u);
  EXPECT_EQ(i.warnings[0].rfind("filter 'urls': inserted is too low by at least 301: the server "
                                "refused to count them (HINCRBY urls:meta: NOPERM",
                                0),
            0u)
      << i.warnings[0];
  auto reader = redis_filter::open(admin, "urls");
  EXPECT_EQ(count_present(reader, keys), keys.size());
}

TEST(RedisFilterEviction, AnEvictedShardIsAnErrorNeverAnAnswer) {
  BLOOMKIT_REQUIRE_REDIS();
  redis_server_options so;
  so.extra_args = {"--maxmemory",         "8mb", "--maxmemory-policy", "allkeys-lru",
                   "--maxmemory-samples", "10"};
  redis_server server(so);
  auto c = client::connect(server.url());
  auto f = redis_filter::create(c, "ev", 200000, 0.01, 14);  // ~117 shards of 2 KiB
  const auto keys = make_keys(5000, 74);
  insert_all(f, keys);
  ASSERT_EQ(count_present(f, keys), keys.size());
  // Fill the server with other keys, touched as we go, until some key of the filter is gone.
  auto shards_left = [&] { return keys_of(server, "ev:1:*").size(); };
  const std::string value(4096, 'x');
  for (int i = 0; shards_left() == f.layout().shard_count && i < 100; ++i) {
    std::vector<command> fill;
    for (int j = 0; j < 200; ++j) {
      fill.push_back({{"SET", "filler:" + std::to_string(i) + ":" + std::to_string(j), value}});
    }
    c.execute_many(fill);
  }
  ASSERT_LT(shards_left(), f.layout().shard_count) << "nothing of the filter was evicted";
  // Every lookup of the inserted keys errs (a shard or the meta is gone): none answers absent.
  for (std::size_t i = 0; i < 200; ++i) {
    try {
      EXPECT_TRUE(f.contains(keys[i])) << keys[i];
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::not_found) << e.what();
    }
  }
  error_of([&] { count_present(f, keys); }, errc::not_found);
}

TEST(RedisFilterRestart, ClearErrorWhileDownAndRecoveryWithoutANewClient) {
  BLOOMKIT_REQUIRE_REDIS();
  redis_server_options so;
  so.appendonly = true;
  redis_server server(so);
  client_options co;
  co.retry_delay = 20ms;
  auto c = client::connect(server.url(), co);
  auto f = redis_filter::create(c, "survivor", 10000, 0.01);
  const auto keys = make_keys(3000, 30);
  insert_all(f, keys);
  server.stop();
  auto m = error_of([&] { f.contains(keys[0]); }, errc::unreachable);
  EXPECT_NE(m.find(server.address()), std::string::npos) << m;
  error_of([&] { insert_all(f, make_keys(10, 31)); }, errc::unreachable);
  server.restart();
  EXPECT_EQ(count_present(f, keys), keys.size());
  EXPECT_TRUE(f.insert("after restart"));
}

// --- a Redis Cluster -----------------------------------------------------------------------

class RedisFilterCluster : public cluster_test {};

TEST_F(RedisFilterCluster, MoreThanTwoToThe32BitsOverThreeMasters) {
  // The smallest sizing past 2^32 bits at p = 0.01: 4.3e9 bits (about 513 MiB) in 33 shards of
  // 2^27 bits, preallocated one at a time and spread over the three masters.
  auto c = client::connect(cluster_->url());
  const std::uint64_t capacity = 448'200'000;
  auto f = redis_filter::create(c, "huge", capacity, 0.01);
  EXPECT_GT(f.layout().total_bits(), std::uint64_t{1} << 32);
  EXPECT_EQ(f.layout().shard_count, 33u);
  for (const auto m : cluster_->masters()) {
    EXPECT_GE(cluster_->node(m).raw({"DBSIZE"}).integer(), 5) << m;
  }
  const auto keys = make_keys(20000, 40);
  EXPECT_GE(insert_all(f, keys), 19990u);
  EXPECT_EQ(count_present(f, keys), keys.size());
  EXPECT_LT(count_present(f, make_keys(20000, 41)), 5u);
  const auto info = f.info();
  EXPECT_EQ(info.layout.total_bits(), f.layout().total_bits());
  EXPECT_NEAR(info.estimated_count, 20000, 200);
  f.drop();
}

TEST_F(RedisFilterCluster, EightClientsInsertConcurrentlyWithoutFalseNegatives) {
  {
    auto c = client::connect(cluster_->url());
    redis_filter::create(c, "shared", 100000, 0.01, 14);
  }
  constexpr int clients = 8;
  std::vector<std::vector<std::string>> keys;
  for (int t = 0; t < clients; ++t) keys.push_back(make_keys(2000, 200 + t));
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < clients; ++t) {
    threads.emplace_back([&, t] {
      try {
        auto c = client::connect(cluster_->url());
        auto f = redis_filter::open(c, "shared");
        insert_all(f, keys[t]);
      } catch (const std::exception& e) {
        ++failures;
        ADD_FAILURE() << e.what();
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(failures.load(), 0);
  auto c = client::connect(cluster_->url());
  auto f = redis_filter::open(c, "shared");
  for (int t = 0; t < clients; ++t) EXPECT_EQ(count_present(f, keys[t]), keys[t].size());
}

TEST_F(RedisFilterCluster, NoFalseNegativesWhileASlotMigrates) {
  auto c = client::connect(cluster_->url());
  auto f = redis_filter::create(c, "mig", 20000, 0.01, 12);  // ~47 shards over the slots
  // Migrate the slot of shard 0 (it holds ~1/47 of the keys).
  const int slot = bloomkit::redis::key_slot("mig:1:0");
  const std::size_t from = cluster_->owner_of_slot(slot);
  const auto masters = cluster_->masters();
  const std::size_t to = masters[0] == from ? masters[1] : masters[0];
  std::vector<std::vector<std::string>> sets;
  for (int s = 0; s < 4; ++s) sets.push_back(make_keys(3000, 50 + s));
  std::vector<std::string> inserted;
  auto add = [&](const std::vector<std::string>& keys) {
    insert_all(f, keys);
    inserted.insert(inserted.end(), keys.begin(), keys.end());
    ASSERT_EQ(count_present(f, inserted), inserted.size());
  };
  // A second client keeps reading everything inserted before the migration the whole time.
  add(sets[0]);
  std::atomic<bool> stop{false};
  std::atomic<std::size_t> reader_misses{0};
  std::atomic<std::size_t> reader_rounds{0};
  std::thread reader([&] {
    try {
      auto c2 = client::connect(cluster_->url());
      auto r = redis_filter::open(c2, "mig");
      while (!stop) {
        reader_misses += sets[0].size() - count_present(r, sets[0]);
        ++reader_rounds;
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << "reader: " << e.what();
    }
  });
  cluster_->begin_slot_migration(slot, from, to);
  add(sets[1]);
  cluster_->move_slot_keys(slot, from, to);  // the shard moved: the source now answers ASK
  add(sets[2]);
  cluster_->finish_slot_migration(slot, from, to);  // now MOVED
  add(sets[3]);
  stop = true;
  reader.join();
  EXPECT_EQ(reader_misses.load(), 0u);
  EXPECT_GT(reader_rounds.load(), 0u);
  EXPECT_GT(stats_of(c).ask, 0u);
  EXPECT_GT(stats_of(c).moved, 0u);
  EXPECT_EQ(cluster_->owner_of_slot(slot), to);
}

TEST_F(RedisFilterCluster, DropFindsOrphansOnEveryMasterAndWritesCreateNone) {
  auto c = client::connect(cluster_->url());
  auto f = redis_filter::create(c, "orph", 20000, 0.01, 12);  // ~47 shards over the masters
  const auto keys = make_keys(500, 82);
  insert_all(f, keys);
  std::vector<command> orphans;
  for (int j = 0; j < 60; ++j) orphans.push_back({{"SET", "orph:7:" + std::to_string(j), "x"}});
  c.execute_many(orphans);
  // A stale handle after another client's drop: its writes create nothing, on any master.
  auto c2 = client::connect(cluster_->url());
  EXPECT_EQ(redis_filter::drop(c2, "orph"), f.layout().shard_count + 1 + 60);
  error_of([&] { insert_all(f, keys); }, errc::not_found);
  error_of([&] { f.insert("x"); }, errc::not_found);
  for (const auto m : cluster_->masters()) {
    EXPECT_EQ(cluster_->node(m).raw({"DBSIZE"}).integer(), 0) << m;
  }
}

TEST(RedisFilterFailover, InsertsAcknowledgedWithWaitSurviveAKilledMaster) {
  BLOOMKIT_REQUIRE_REDIS();
  bloomkit::test::redis_cluster_options o;
  o.masters = 3;
  o.replicas = 1;
  redis_cluster cluster(o);
  auto c = client::connect(cluster.url());
  filter_options fo;
  fo.wait_replicas = 1;
  fo.wait_timeout = 5000ms;
  auto f = redis_filter::create(c, "ha", 20000, 0.01, 12, fo);
  const auto keys = make_keys(5000, 60);
  insert_all(f, keys);  // every batch WAITed for its replica
  // Kill the master of the meta's slot and of shard 0.
  const auto victim = cluster.owner_of_slot(bloomkit::redis::key_slot("ha:meta"));
  cluster.kill_master(victim);
  EXPECT_EQ(count_present(f, keys), keys.size());
  const auto more = make_keys(2000, 61);
  filter_options no_wait;  // the promoted master has no replica any more
  auto g = redis_filter::open(c, "ha", no_wait);
  insert_all(g, more);
  EXPECT_EQ(count_present(g, more), more.size());
  EXPECT_EQ(count_present(g, keys), keys.size());
}

}  // namespace
