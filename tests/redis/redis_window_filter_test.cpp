// bloomkit::redis::redis_window_filter against real redis-server processes: slices named from the
// time alone, lookups over every live slice in one round trip, TTLs, the meta and its checks,
// two clients whose clocks differ, a Redis Cluster and a failover with WAIT, over both slice
// formats (words, what create makes; bits, what older bloomkit made); the words format's layout
// and FPP, and metas older bloomkit wrote. Clocks are set by the tests (set_now): nothing waits
// for a window to pass.
#include "bloomkit/redis/window_filter.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/redis/redis_filter.hpp"
#include "bloomkit/sizing.hpp"
#include "redis/client/key_slot.hpp"
#include "storage/word_mask.hpp"
#include "support/errors.hpp"
#include "support/keys.hpp"
#include "support/redis_fixtures.hpp"
#include "support/redis_server.hpp"
#include "support/statistical.hpp"
#include "support/window_time.hpp"

namespace {

using namespace std::chrono_literals;
using bloomkit::errc;
using bloomkit::redis::client;
using bloomkit::redis::filter_options;
using bloomkit::redis::redis_filter;
using bloomkit::redis::redis_window_config;
using bloomkit::redis::redis_window_filter;
using bloomkit::redis::window_slice_format;
using bloomkit::test::error_of;
using bloomkit::test::make_keys;
using bloomkit::test::views;

// A day in 8 slices of 3 hours, 10 s of clock skew tolerated.
const redis_window_config day_config{10'000, 0.01, 86400, 8, 10};
redis_window_config in_format(redis_window_config c, window_slice_format f) {
  c.slice_format = f;
  return c;
}
// A slice boundary ahead of the server's clock, by which slices expire (support/window_time.hpp).
const std::uint64_t t0 = bloomkit::test::start_of_tomorrow();

std::size_t count_present(redis_window_filter& f, const std::vector<std::string>& keys) {
  const auto v = views(keys);
  auto answers = std::make_unique<bool[]>(v.size());
  return f.contains_many(v, {answers.get(), v.size()});
}

class RedisWindow : public bloomkit::test::single_server_client_test {
 protected:
  const redis_window_config day = day_config;
};

// The tests that hold for both slice formats.
class RedisWindowFormat : public bloomkit::test::single_server_client_test,
                          public ::testing::WithParamInterface<window_slice_format> {
 protected:
  const redis_window_config day = in_format(day_config, GetParam());
};
INSTANTIATE_TEST_SUITE_P(Both, RedisWindowFormat,
                         ::testing::Values(window_slice_format::words, window_slice_format::bits),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST_P(RedisWindowFormat, SlicesAreKeysNamedFromTheTimeWithATtl) {
  auto f = redis_window_filter::create(*client_, "seen", day);
  f.set_now(t0 + 5);
  EXPECT_TRUE(f.insert("a"));
  EXPECT_FALSE(f.insert("a"));
  const std::string slice = std::to_string(t0 / 10800);
  // One shard of a slice sized for 1250 keys at 0.01 / 9.
  EXPECT_EQ(f.layout().shard_count, 1u);
  EXPECT_EQ(server_->raw({"EXISTS", "seen:" + slice + ":0"}).integer(), 1);
  // Expires at the end of the slice + W + 2 skew, from the slice alone.
  EXPECT_EQ(server_->raw({"EXPIRETIME", "seen:" + slice + ":0"}).integer(),
            static_cast<long long>(t0 + 10800 + 86400 + 20));
  EXPECT_EQ(server_->raw({"HGET", "seen:meta", "kind"}).str(), "window");
  EXPECT_EQ(server_->raw({"HGET", "seen:meta", "format_version"}).str(),
            GetParam() == window_slice_format::words ? "2" : "1");
  EXPECT_EQ(server_->raw({"TTL", "seen:meta"}).integer(), -1);
  EXPECT_EQ(f.config().slice_format, GetParam());
}

// The in-process guarantee, in Redis: a key inserted within the last W is found at any moment
// (across slice boundaries); after W + W/S + skew it is forgotten.
TEST_P(RedisWindowFormat, KeysAreFoundWithinTheWindowAndForgottenAfterIt) {
  auto f = redis_window_filter::create(*client_, "w", day);
  std::vector<std::pair<std::uint64_t, std::string>> inserted;
  for (std::uint64_t t = t0; t < t0 + 3 * 86400; t += 4000) {
    f.set_now(t);
    const std::string key = "key-" + std::to_string(t);
    f.insert(key);
    inserted.emplace_back(t, key);
    for (const auto& [when, k] : inserted) {
      if (t - when <= 86400) {
        ASSERT_TRUE(f.contains(k)) << k << " at " << t;
      } else if (t - when > 86400 + 10800 + 10) {  // W + W/S + skew
        EXPECT_FALSE(f.contains(k)) << k << " at " << t;
      }
    }
  }
}

using bloomkit::test::calls_of;
using bloomkit::test::reads_processed;

TEST_P(RedisWindowFormat, ABatchIsOneRoundTripOverEveryLiveSlice) {
  filter_options o;
  o.keys_per_command = 32;
  auto f = redis_window_filter::create(*client_, "rt", day, o);
  const auto keys = make_keys(20, 1);
  const auto all = views(keys);
  for (std::uint64_t slice = 0; slice < 8; ++slice) {
    f.set_now(t0 + slice * 10800);
    f.insert_many(std::span(all).subspan(slice * 2, 2));
  }
  // S + 1 slices, and one more back for the skew (now is at a slice's start).
  EXPECT_EQ(f.live_slices().size(), 10u);
  server_->raw({"CONFIG", "RESETSTAT"});
  const long long r0 = reads_processed(*server_);
  const long long r1 = reads_processed(*server_);
  // Two keys (a pipeline that Redis reads at once: 16 KiB), from the oldest and newest slices.
  const std::size_t present = count_present(f, {keys[0], keys[15]});
  const long long r2 = reads_processed(*server_);
  EXPECT_EQ(r2 - r1 - (r1 - r0), 1);
  EXPECT_EQ(calls_of(*server_, "bitfield_ro"), 10);  // one command per slice for both keys
  EXPECT_EQ(present, 2u);
  EXPECT_GE(count_present(f, keys), 16u);  // the first 16 were inserted
  // An insert: BITFIELD_RO of the other live slices, one BITFIELD (and its EXPIREAT) per key
  // group of the current slice, and the meta check, in one round trip; no script.
  const long long r3 = reads_processed(*server_);
  EXPECT_TRUE(f.insert("one more"));
  const long long r4 = reads_processed(*server_);
  EXPECT_EQ(r4 - r3 - (r1 - r0), 1);
  EXPECT_EQ(calls_of(*server_, "bitfield"), 1);
  EXPECT_EQ(calls_of(*server_, "eval"), 0);
}

// record_many writes the current slice only: no read of the older slices, the keys found after.
TEST_P(RedisWindowFormat, RecordManyWritesTheCurrentSliceWithoutReadingTheOthers) {
  auto f = redis_window_filter::create(*client_, "adds", day);
  const auto old_keys = make_keys(50, 1);
  f.set_now(t0);
  f.insert_many(views(old_keys));
  f.set_now(t0 + 3 * 10800 + 7);  // three slices later: older live slices exist
  const auto keys = make_keys(300, 2);
  server_->raw({"CONFIG", "RESETSTAT"});
  f.record_many(views(keys));
  EXPECT_EQ(calls_of(*server_, "bitfield_ro"), 0);
  EXPECT_GE(calls_of(*server_, "bitfield"), 1);
  EXPECT_EQ(count_present(f, keys), keys.size());
  EXPECT_EQ(count_present(f, old_keys), old_keys.size());
  // The same bits as insert_many: a key added is not new to insert, and a second filter that
  // inserted the keys holds the same slice strings.
  EXPECT_FALSE(f.insert(keys[7]));
  auto g = redis_window_filter::create(*client_, "inserts", day);
  g.set_now(t0 + 3 * 10800 + 7);
  g.insert_many(views(keys));
  g.insert(keys[7]);
  const std::string slice = std::to_string((t0 + 3 * 10800) / 10800);
  EXPECT_EQ(server_->raw({"GET", "adds:" + slice + ":0"}).str(),
            server_->raw({"GET", "inserts:" + slice + ":0"}).str());
  // Forgotten like inserted keys.
  f.set_now(t0 + 3 * 10800 + 86400 + 10800 + 20);
  EXPECT_LT(count_present(f, keys), 10u);
}

// Two clients whose clocks differ by up to the skew (10 s): whatever one inserted within the
// last W, the other finds, also around slice boundaries.
TEST_P(RedisWindowFormat, ClientsWithClocksApartWithinTheSkewAgree) {
  auto writer_client = client::connect(server_->url());
  auto writer = redis_window_filter::create(writer_client, "skew", day);
  auto reader = redis_window_filter::open(*client_, "skew");
  for (const long long offset : {-10LL, -3LL, 0LL, 4LL, 10LL}) {
    for (const std::uint64_t boundary : {t0, t0 + 10800, t0 + 86400}) {
      for (const long long near : {-6LL, -1LL, 0LL, 1LL, 7LL}) {
        const std::uint64_t w = boundary + near;
        writer.set_now(w);
        std::string key = std::to_string(offset);  // (GCC 12 -Wrestrict: no "k" + ...)
        key.append("-").append(std::to_string(boundary)).append("-").append(std::to_string(near));
        writer.insert(key);
        // The reader's clock: offset from the writer's, now and at the end of the window.
        for (const std::uint64_t later :
             {std::uint64_t{0}, std::uint64_t{5000}, std::uint64_t{86400 - 20}}) {
          reader.set_now(static_cast<std::uint64_t>(static_cast<long long>(w + later) + offset));
          ASSERT_TRUE(reader.contains(key)) << key << " later " << later;
        }
      }
    }
  }
}

TEST_P(RedisWindowFormat, MetaIsCheckedLikeANativeFiltersMeta) {
  redis_window_filter::create(*client_, "m", day);
  // The same configuration opens; another is refused naming what differs.
  EXPECT_EQ(redis_window_filter::create(*client_, "m", day).config().window, 86400u);
  auto other = day;
  other.window = 3600;
  other.slices = 4;
  const std::string why =
      error_of([&] { redis_window_filter::create(*client_, "m", other); }, errc::already_exists);
  EXPECT_NE(why.find("window 86400 (asked 3600), slices 8 (asked 4)"), std::string::npos) << why;
  // A native filter's meta is not a window's, and the other way round.
  redis_filter::create(*client_, "native", 1000, 0.01);
  EXPECT_NE(error_of([&] { redis_window_filter::open(*client_, "native"); }, errc::incompatible)
                .find("a native filter, not a window filter"),
            std::string::npos);
  EXPECT_NE(error_of([&] { redis_filter::open(*client_, "m"); }, errc::unsupported)
                .find("a window filter, not a native one"),
            std::string::npos);
  EXPECT_TRUE(redis_window_filter::is_window(*client_, "m"));
  EXPECT_FALSE(redis_window_filter::is_window(*client_, "native"));
  EXPECT_FALSE(redis_window_filter::is_window(*client_, "none"));
  error_of([&] { redis_window_filter::open(*client_, "none"); }, errc::not_found);
  // Fields damaged by hand are corruption, named.
  server_->raw({"HSET", "m:meta", "slices", "0"});
  EXPECT_NE(error_of([&] { redis_window_filter::open(*client_, "m"); }, errc::corrupt_file)
                .find("slices"),
            std::string::npos);
  auto bad = day;
  bad.skew = 7200;
  EXPECT_NE(
      error_of([&] { redis_window_filter::create(*client_, "x", bad); }, errc::invalid_argument)
          .find("clock skew"),
      std::string::npos);
}

TEST_P(RedisWindowFormat, DropRemovesTheMetaAndEverySliceAndHandlesNoticeIt) {
  auto f = redis_window_filter::create(*client_, "d", day);
  for (std::uint64_t slice = 0; slice < 5; ++slice) {
    f.set_now(t0 + slice * 10800);
    f.insert(std::to_string(slice));
  }
  EXPECT_EQ(redis_filter::drop(*client_, "d"), 6u);  // the meta and 5 slices
  EXPECT_EQ(server_->raw({"DBSIZE"}).integer(), 0);
  error_of([&] { f.contains("0"); }, errc::not_found);
  error_of([&] { f.insert("y"); }, errc::not_found);
}

TEST_P(RedisWindowFormat, InfoReportsEveryLiveSlice) {
  auto f = redis_window_filter::create(*client_, "i", day);
  f.set_now(t0);
  f.insert_many(views(make_keys(100, 3)));
  f.set_now(t0 + 10800);
  const auto i = f.info();
  EXPECT_EQ(i.current_slice, t0 / 10800 + 1);
  ASSERT_EQ(i.slices.size(), 10u);
  EXPECT_EQ(i.slices[0].slice, t0 / 10800 + 1);  // newest first
  EXPECT_FALSE(i.slices[0].exists);
  EXPECT_TRUE(i.slices[1].exists);
  EXPECT_GT(i.slices[1].ttl_ms, 0);
  EXPECT_GT(i.slices[1].fill_ratio, 0);
  EXPECT_NEAR(i.estimated_count, 100, 5);
}

// Many keys, inserted in batches around slice boundaries by a writer whose clock is off by up to
// the skew either way, are all found by a reader off the other way, until W has passed.
TEST_P(RedisWindowFormat, NoFalseNegativeAcrossSliceBoundariesWithSkewedClocks) {
  auto writer_client = client::connect(server_->url());
  auto writer = redis_window_filter::create(writer_client, "many", day);
  auto reader = redis_window_filter::open(*client_, "many");
  // 400 keys a part: which slices a key is written to and read from depends on the clocks alone,
  // and 1,000 a part took 13 s of the asan run over the bits format.
  const auto keys = make_keys(1600, 6);
  const auto all = views(keys);
  std::size_t round = 0;
  for (const std::uint64_t boundary : {t0 + 10800, t0 + 5 * 10800}) {
    for (const long long skew : {-10LL, 10LL}) {
      const auto part = std::span(all).subspan(round++ * 400, 400);
      // Inserted 2 s before a boundary by the reader's clock, by a writer whose clock is `skew`
      // off (so maybe after it), then read 1 s later and a whole W later.
      const std::uint64_t at = boundary - 2;
      writer.set_now(static_cast<std::uint64_t>(static_cast<long long>(at) + skew));
      writer.insert_many(part);
      for (const std::uint64_t later : {std::uint64_t{1}, std::uint64_t{86400}}) {
        reader.set_now(at + later);
        auto answers = std::make_unique<bool[]>(part.size());
        ASSERT_EQ(reader.contains_many(part, {answers.get(), part.size()}), part.size())
            << "boundary " << boundary << " skew " << skew << " later " << later;
      }
    }
  }
}

// At the stated rate (capacity / S keys per slice) the live slices together answer strangers
// positive at most at the target p, within sampling error. Checked when the S + 1 live slices
// are all full.
TEST_P(RedisWindowFormat, MeasuredFppIsWithinTheTargetAtTheStatedRate) {
  BLOOMKIT_STATISTICAL_TEST();
  const redis_window_config c = in_format({40'000, 0.01, 3600, 4, 10}, GetParam());
  auto f = redis_window_filter::create(*client_, "fpp", c);
  const std::size_t per_slice = 10'000;
  const auto keys = make_keys(6 * per_slice, 7);
  const auto all = views(keys);
  for (std::uint64_t slice = 0; slice < 6; ++slice) {
    f.set_now(t0 + slice * 900 + 450);
    f.insert_many(std::span(all).subspan(slice * per_slice, per_slice));
  }
  f.set_now(t0 + 5 * 900 + 800);
  ASSERT_EQ(f.live_slices().size(), 5u);  // slices 1..5, each holding per_slice keys
  // The bits format reads k bits of each of the 5 slices by BITFIELD: 100,000 strangers took the
  // server 19 s there, 2.4 s in the words format; 40,000 still bound the rate within 20%.
  const std::size_t n = GetParam() == window_slice_format::words ? 100'000 : 40'000;
  const std::size_t positives = count_present(f, make_keys(n, 8));
  const double expected = 0.01 * n;
  EXPECT_LE(static_cast<double>(positives), expected + 4 * std::sqrt(expected)) << positives;
  if (GetParam() == window_slice_format::words) {
    // word_filter_fpp is an upper bound (f^k over-states k distinct bits of one word), so the
    // measured figure sits below it, not far.
    const auto& l = f.layout();
    const double one = bloomkit::word_filter_fpp(64, l.hashes, l.total_bits() / 64, per_slice);
    const double predicted = n * (1 - std::pow(1 - one, 5));
    EXPECT_LE(static_cast<double>(positives), predicted + 4 * std::sqrt(predicted)) << positives;
    EXPECT_GE(static_cast<double>(positives), 0.4 * predicted) << positives << " " << predicted;
  }
}

// A word per key in every slice: one BITFIELD_RO per slice and key group, one round trip (one
// meta check) per batch of up to 8192 keys over 10 slices; the bits format fits 8192 placements
// of k cells in one.
TEST_P(RedisWindowFormat, LargeBatchesTakeOneRoundTripPerChunk) {
  auto f = redis_window_filter::create(*client_, "big", day);
  f.set_now(t0);
  ASSERT_EQ(f.live_slices().size(), 10u);
  const auto keys = make_keys(5000, 9);
  server_->raw({"CONFIG", "RESETSTAT"});
  count_present(f, keys);
  const long long trips = calls_of(*server_, "hexists");
  EXPECT_EQ(trips, GetParam() == window_slice_format::words ? 1 : 7);  // bits: 819 keys each
}

// Format 2: slice e is an array of 64-bit words, a key's k bits in one: word w of the slice's
// words from h1 (multiply-high), its bits from h2 (word_mask); bit p of word w is Redis bit
// 64 w + p (docs/REDIS.md, "Window filters").
TEST_F(RedisWindow, WordsFormatIsTheDocumentedLayout) {
  auto f = redis_window_filter::create(*client_, "lay", day);
  ASSERT_EQ(f.config().slice_format, window_slice_format::words);
  const auto& l = f.layout();
  const auto sized = bloomkit::word_filter_sizing(64, 1250, 0.01 / 9);
  EXPECT_EQ(l.hashes, sized.hashes);
  EXPECT_GE(l.total_bits() / 64, sized.words);
  EXPECT_EQ(l.shard_bits % 64, 0u);
  EXPECT_EQ(server_->raw({"HGET", "lay:meta", "word_bits"}).str(), "64");
  f.set_now(t0 + 5);
  const std::string slice = std::to_string(t0 / 10800);
  for (const std::string key : {"a", "b", "c"}) {
    server_->raw({"DEL", "lay:" + slice + ":0"});
    EXPECT_TRUE(f.insert(key));
    const auto d = bloomkit::xxh3_128(key);
    const std::uint64_t word = bloomkit::reduce_range(d.low, l.total_bits() / 64);
    std::uint64_t mask = 0;
    bloomkit::detail::word_mask(d.high, 64, l.hashes, &mask);
    EXPECT_EQ(server_->raw({"BITCOUNT", "lay:" + slice + ":0"}).integer(), l.hashes);
    for (std::uint64_t p = 0; p < 64; ++p) {
      if ((mask >> p & 1) == 0) continue;
      EXPECT_EQ(
          server_->raw({"GETBIT", "lay:" + slice + ":0", std::to_string(word * 64 + p)}).integer(),
          1)
          << key << " bit " << p;
    }
    EXPECT_TRUE(f.contains(key));
  }
}

// A format 1 meta and slices exactly as an older bloomkit wrote them (HSET, SETBIT at the native
// sharded probes): still opened in that format, its keys found, new keys inserted and found.
// create of the same parameters opens it as it is, and the other way round.
TEST_F(RedisWindow, AnOlderBitsFormatFilterStillOpensAndFindsItsKeys) {
  const auto layout = bloomkit::redis::shard_layout::for_capacity(1250, 0.01 / 9, 27);
  server_->raw({"HSET",           "old:meta",
                "format_version", "1",
                "kind",           "window",
                "hash_scheme",    "20",
                "window",         "86400",
                "slices",         "8",
                "skew",           "10",
                "bits_per_shard", std::to_string(layout.shard_bits),
                "shard_count",    std::to_string(layout.shard_count),
                "hashes",         std::to_string(layout.hashes),
                "capacity",       "10000",
                "target_fpp",     "0.01",
                "created",        "1764000000"});
  const auto keys = make_keys(300, 10);
  const std::string slice = std::to_string(t0 / 10800);
  for (const auto& key : keys) {
    const auto d = bloomkit::xxh3_128(key);
    std::vector<std::uint64_t> offsets(layout.hashes);
    layout.offsets(d, offsets.data());
    for (const std::uint64_t o : offsets) {
      server_->raw({"SETBIT", "old:" + slice + ":" + std::to_string(layout.shard_of(d)),
                    std::to_string(o), "1"});
    }
  }
  auto f = redis_window_filter::open(*client_, "old");
  EXPECT_EQ(f.config().slice_format, window_slice_format::bits);
  EXPECT_EQ(f.layout(), layout);
  f.set_now(t0 + 3 * 10800);
  EXPECT_EQ(count_present(f, keys), keys.size());
  EXPECT_LT(count_present(f, make_keys(1000, 11)), 30u);
  EXPECT_TRUE(f.insert("new"));
  EXPECT_FALSE(f.insert("new"));
  EXPECT_FALSE(f.insert(keys[0]));  // found in the older slice
  EXPECT_TRUE(f.contains("new"));
  EXPECT_EQ(f.info().config.slice_format, window_slice_format::bits);
  EXPECT_EQ(server_->raw({"HGET", "old:meta", "format_version"}).str(), "1");
  // create (words by default) of the same parameters opens it in its format.
  auto again = redis_window_filter::create(*client_, "old", day);
  EXPECT_EQ(again.config().slice_format, window_slice_format::bits);
  again.set_now(t0 + 3 * 10800);
  EXPECT_TRUE(again.contains(keys[1]));
  redis_window_filter::create(*client_, "new", day);
  EXPECT_EQ(redis_window_filter::create(*client_, "new", in_format(day, window_slice_format::bits))
                .config()
                .slice_format,
            window_slice_format::words);
}

// Format versions this build does not read are refused, not guessed at: older bloomkit refuses
// format 2 in the same way.
TEST_F(RedisWindow, UnknownFormatVersionsAreRefused) {
  redis_window_filter::create(*client_, "v", day);
  for (const char* version : {"3", "0", "17"}) {
    server_->raw({"HSET", "v:meta", "format_version", version});
    EXPECT_NE(error_of([&] { redis_window_filter::open(*client_, "v"); }, errc::unsupported)
                  .find(std::string("format version ") + version),
              std::string::npos);
    error_of([&] { redis_window_filter::create(*client_, "v", day); }, errc::unsupported);
  }
  server_->raw({"HSET", "v:meta", "format_version", "2", "word_bits", "32"});
  error_of([&] { redis_window_filter::open(*client_, "v"); }, errc::unsupported);
  server_->raw({"HDEL", "v:meta", "word_bits"});
  EXPECT_NE(error_of([&] { redis_window_filter::open(*client_, "v"); }, errc::corrupt_file)
                .find("word_bits"),
            std::string::npos);
  server_->raw({"HSET", "v:meta", "word_bits", "64"});
  EXPECT_EQ(redis_window_filter::open(*client_, "v").config().slice_format,
            window_slice_format::words);
  // A native handle refuses a window meta of either format.
  error_of([&] { redis_filter::open(*client_, "v"); }, errc::unsupported);
}

class RedisWindowCluster : public bloomkit::test::cluster_test {};
TEST_F(RedisWindowCluster, SlicesSpreadOverTheMastersAndAnswer) {
  auto c = client::connect(cluster_->url());
  for (const auto format : {window_slice_format::words, window_slice_format::bits}) {
    SCOPED_TRACE(to_string(format));
    for (const auto m : cluster_->masters()) cluster_->node(m).raw({"FLUSHALL"});
    auto f =
        redis_window_filter::create(c, "cw", in_format({100'000, 0.01, 3600, 4, 10, 12}, format));
    EXPECT_GT(f.layout().shard_count, 1u);
    const auto keys = make_keys(3000, 4);
    const auto all = views(keys);
    for (std::uint64_t slice = 0; slice < 3; ++slice) {
      f.set_now(t0 + slice * 900);
      f.insert_many(std::span(all).subspan(slice * 1000, 1000));
    }
    EXPECT_EQ(count_present(f, keys), keys.size());
    std::size_t masters_with_keys = 0;
    for (const auto m : cluster_->masters()) {
      masters_with_keys += cluster_->node(m).raw({"DBSIZE"}).integer() > 0 ? 1 : 0;
    }
    EXPECT_GT(masters_with_keys, 1u);
    f.set_now(t0 + 3600 + 900 + 900 + 10 + 1);  // past W + W/S + skew after slice 1 ended
    EXPECT_LT(count_present(f, std::vector<std::string>(keys.begin(), keys.begin() + 2000)), 60u);
  }
}

TEST(RedisWindowFailover, InsertsAcknowledgedWithWaitSurviveAKilledMaster) {
  BLOOMKIT_REQUIRE_REDIS();
  bloomkit::test::redis_cluster_options o;
  o.masters = 3;
  o.replicas = 1;
  bloomkit::test::redis_cluster cluster(o);
  auto c = client::connect(cluster.url());
  filter_options fo;
  fo.wait_replicas = 1;
  fo.wait_timeout = 5000ms;
  auto f = redis_window_filter::create(c, "ha", {20'000, 0.01, 3600, 4, 10, 12}, fo);
  f.set_now(t0);
  const auto keys = make_keys(3000, 5);
  f.insert_many(views(keys));
  cluster.kill_master(cluster.owner_of_slot(bloomkit::redis::key_slot("ha:meta")));
  EXPECT_EQ(count_present(f, keys), keys.size());
}

}  // namespace
