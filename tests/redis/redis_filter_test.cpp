// bloomkit::redis::redis_filter against real redis-server processes: the shard layout, a single
// server (answers, FPP, concurrency, create atomicity, open errors, TTL, rebuild, push / pull,
// restart) and a Redis Cluster (> 2^32 bits, concurrent clients, slot migration, failover).
#include "bloomkit/redis/redis_filter.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/redis/key_slot.hpp"
#include "support/errors.hpp"
#include "support/fpp_checks.hpp"
#include "support/keys.hpp"
#include "support/redis_fixtures.hpp"
#include "support/redis_server.hpp"
#include "support/temp_dir.hpp"

namespace {

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

TEST(RedisShardLayout, ShardedFilesRoundTripAndBadShardCountsAreRefused) {
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

  h.payload_offset = bloomkit::file_header_size;
  h.payload_length = bits.byte_size();
  for (const auto& [count, bit_count] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
           {1, 4096}, {0, 4096}, {3, 4096}, {2, 4096 + 64}, {2, (1ull << 33) + 128}}) {
    auto bad = h;
    bad.kind_params[0] = count;
    bad.bits = bit_count;
    bad.payload_length = bloomkit::bytes_for_bits(bit_count);
    m = error_of([&] { bloomkit::decode_header(bloomkit::encode_header(bad), "bad.bf"); },
                 errc::corrupt_file);
    EXPECT_NE(m.find("shards for"), std::string::npos) << m;
  }
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
  m = error_of([&] { redis_filter::open(*client_, "partial"); }, errc::incompatible);
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
  EXPECT_GT(c.stats().ask, 0u);
  EXPECT_GT(c.stats().moved, 0u);
  EXPECT_EQ(cluster_->owner_of_slot(slot), to);
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
