// Properties every storage policy of basic_filter (filter.hpp) shares, through the single-key
// and the batched (pipelined) paths: no false negatives, the same answers and cells either way,
// in cache and in DRAM, with few and with many probes per key. And what open_any gives of a file
// of any of them: the filter and the header of one open.

#include "bloomkit/filter.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bloomkit/compat/any_filter.hpp"
#include "core/filter_pipeline.hpp"
#include "core/key_stream.hpp"

#include "bloomkit/compat/bits_and_blooms.hpp"
#include "bloomkit/compat/go_zero.hpp"
#include "bloomkit/compat/guava.hpp"
#include "bloomkit/scalable_filter.hpp"
#include "support/keys.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit {
namespace {

using test::make_keys;
using test::views;

static_assert(filter_like<guava::mitz_32_filter>);
static_assert(filter_like<guava::mitz_64_filter>);
static_assert(filter_like<bits_and_blooms::filter>);
static_assert(filter_like<go_zero::filter>);

// Inserts keys one by one into `single` and in batches of `batch` into `batched` (and, by digest,
// into `digests`), then checks that every key is found by every path and that the cells agree.
template <class Filter>
void check_no_false_negatives(const Filter& empty, std::size_t n, const std::string& what,
                              std::size_t batch = 777) {
  Filter single = empty, batched = empty, digests = empty;
  const auto keys = make_keys(n, 7);
  const auto v = views(keys);
  std::size_t fresh_single = 0;
  for (const auto& k : v) fresh_single += single.insert(k);
  std::size_t fresh_batched = 0;
  for (std::size_t at = 0; at < v.size(); at += batch) {
    fresh_batched +=
        batched.insert_many(std::span(v).subspan(at, std::min<std::size_t>(batch, v.size() - at)));
  }
  std::vector<typename Filter::digest_type> ds;
  for (const auto& k : v) ds.push_back(Filter::digest_of(k));
  digests.insert_many(std::span<const typename Filter::digest_type>(ds));
  EXPECT_EQ(fresh_single, fresh_batched) << what;
  EXPECT_TRUE(single == batched) << what << ": single and batched inserts set different cells";
  EXPECT_TRUE(single == digests) << what << ": inserts by digest set different cells";
  EXPECT_EQ(single.inserted(), batched.inserted()) << what;

  auto results = std::make_unique<bool[]>(n);
  EXPECT_EQ(batched.contains_many(v, {results.get(), n}), n) << what;
  EXPECT_EQ(
      batched.contains_many(std::span<const typename Filter::digest_type>(ds), {results.get(), n}),
      n)
      << what;
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(single.contains(v[i])) << what << " key " << i;
    ASSERT_TRUE(batched.contains_digest(ds[i])) << what << " key " << i;
  }
  // Strangers: batched and single answers agree (both paths test the same cells).
  const auto others = make_keys(n, 8);
  const auto o = views(others);
  batched.contains_many(o, {results.get(), n});
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(results[i], batched.contains(o[i])) << what << " stranger " << i;
  }
}

TEST(Filter, NoFalseNegativesThroughEveryPathOfEveryStorage) {
  for (const double p : {0.3, 0.01, 1e-6}) {  // k = 2, 7, 20: one stage, two, past 16 probes
    const std::string at = " at p = " + std::to_string(p);
    check_no_false_negatives(bloom_filter::for_capacity(2000, p), 2000, "classic" + at);
    check_no_false_negatives(counting_bloom_filter::for_capacity(2000, p), 2000, "counting" + at);
    check_no_false_negatives(blocked_bloom_filter::for_capacity(2000, p), 2000, "blocked" + at);
  }
  // Past L2 (filter_pipeline.hpp's rule): the prefetching pipeline with its lag, in
  // batches longer and shorter than the lag.
  const auto past_l2 = [](auto f, const std::string& what) {
    EXPECT_GE(f.byte_size(), detail::pipeline_cache_bytes) << what << ": below the pipelined size";
    check_no_false_negatives(f, 100'000, what);
    check_no_false_negatives(f, 3000, what + " in batches of 5", 5);
  };
  past_l2(bloom_filter::for_capacity(1'000'000, 0.01), "classic 1 MiB");
  past_l2(counting_bloom_filter::for_capacity(300'000, 0.01), "counting 1 MiB");
  past_l2(blocked_bloom_filter::for_capacity(1'000'000, 0.01), "blocked 1 MiB");
  // The blocked layouts of 512-bit lines: one line per key (p = 0.2) and two (p = 1e-5).
  const auto one_line = blocked_bloom_filter::for_capacity(4'000'000, 0.2);
  EXPECT_NE(one_line.hashes(), 8U);  // not split blocks
  past_l2(one_line, "blocked lines 1 MiB");
  const auto two_lines = blocked_bloom_filter::for_capacity(400'000, 1e-5);
  EXPECT_EQ(two_lines.hashes(), 16U);
  past_l2(two_lines, "blocked two lines 1 MiB");
  // Past 64 MiB the longest lag and ring; 20,000 keys into the classic filter (two stages).
  const bloom_filter dram(detail::pipeline_dram_bytes * 8, 7);
  check_no_false_negatives(dram, 20'000, "classic 64 MiB");
  check_no_false_negatives(dram, 3000, "classic 64 MiB in batches of 5", 5);
  check_no_false_negatives(bloom_filter(64, 1), 50, "classic k = 1");
  check_no_false_negatives(go_zero::filter(5000, go_zero::hashes), 300, "go-zero k = 14");
}

// filter_pipeline.hpp's rule: the plain loop in cache; past it a lag that never shrinks as the
// filter grows, shorter over more slots or more lines per key (a key's two lines in one slot
// count as two slots of one line), and a ring (a power of two) that holds both stages' keys.
TEST(PipelineDistance, PlainLoopInCacheAndARingThatHoldsBothLags) {
  using detail::pipeline_distance_for;
  EXPECT_EQ(pipeline_distance_for({detail::pipeline_cache_bytes - 1}).lag, 0U);
  EXPECT_EQ(pipeline_distance_for({0}).lag, 0U);
  std::size_t previous = 1;
  for (std::size_t bytes = detail::pipeline_cache_bytes; bytes <= (std::size_t{1} << 40);
       bytes = bytes * 3 / 2) {
    const auto one = pipeline_distance_for({bytes});
    ASSERT_GE(one.lag, previous) << bytes;
    previous = one.lag;
    for (const std::size_t ways : {1, 2, 9, 256}) {
      const auto d = pipeline_distance_for({bytes}, ways);
      ASSERT_GT(d.lag, 0U) << bytes << " over " << ways;
      ASSERT_LE(d.lag, one.lag) << bytes << " over " << ways;
      ASSERT_TRUE(std::has_single_bit(d.ring_mask + 1)) << bytes;
      ASSERT_GT(d.ring_mask + 1, d.lag + d.second) << bytes << " over " << ways;
      ASSERT_LE(d.ring_mask + 1, detail::pipeline_ring) << bytes << " over " << ways;
      const auto two_lines = pipeline_distance_for({bytes, 2}, ways);
      ASSERT_EQ(two_lines.lag, pipeline_distance_for({bytes}, 2 * ways).lag) << bytes;
      ASSERT_LE(two_lines.lag, d.lag) << bytes << " over " << ways;
      // Cheap keys go further only at one line of one filter, in one stage (no second).
      const auto cheap = pipeline_distance_for({bytes}, ways, detail::key_work::cheap);
      if (ways == 1) {
        ASSERT_EQ(cheap.lag, one.lag * detail::pipeline_cheap_key_factor) << bytes;
        ASSERT_EQ(cheap.second, 0U) << bytes;
        ASSERT_TRUE(std::has_single_bit(cheap.ring_mask + 1)) << bytes;
        ASSERT_GT(cheap.ring_mask + 1, cheap.lag) << bytes;
        ASSERT_LE(cheap.ring_mask + 1, detail::pipeline_ring) << bytes;
      } else {
        ASSERT_EQ(cheap.lag, d.lag) << bytes << " over " << ways;
      }
      ASSERT_EQ(pipeline_distance_for({bytes, 2}, ways, detail::key_work::cheap).lag, two_lines.lag)
          << bytes;
    }
  }
  EXPECT_EQ(pipeline_distance_for({0}, 1, detail::key_work::cheap).lag, 0U);
}

// Integer keys and ready digests prefetch further in blocked filters (cheap keys, above): in the
// L3's range and past 64 MiB, batches of lengths around that lag (shorter, equal, longer; a key
// repeated in the batch) set the cells and answer as the single-key paths do, key by key.
TEST(PipelineDistance, CheapKeyBatchesAroundTheirLagAnswerAsSingleKeys) {
  for (const std::uint64_t capacity : {1'000'000ULL, 56'000'000ULL}) {
    auto singles = blocked_bloom_filter::for_capacity(capacity, 0.01, key_type::int64);
    ASSERT_GE(singles.byte_size(),
              capacity > 1'000'000 ? detail::pipeline_dram_bytes : detail::pipeline_cache_bytes);
    auto batched = singles;
    std::uint64_t next = capacity;
    for (const std::size_t length : {1, 5, 63, 64, 65, 95, 96, 97, 129, 300}) {
      std::vector<std::uint64_t> keys(length);
      for (auto& k : keys) k = next++ * 0x9E3779B97F4A7C15ULL;
      keys.back() = keys.front();  // a repeat: not new the second time
      std::size_t fresh = 0;
      for (const std::uint64_t k : keys) fresh += singles.insert_integer(k);
      ASSERT_EQ(batched.insert_integers(std::span<const std::uint64_t>(keys)), fresh) << length;
      std::unique_ptr<bool[]> results(new bool[length]);
      ASSERT_EQ(batched.contains_integers(std::span<const std::uint64_t>(keys),
                                          std::span<bool>(results.get(), length)),
                length);
      // Ready digests of new keys, with the per-key answers of insert_many(digests, added).
      std::vector<std::uint64_t> digests(length);
      for (auto& d : digests) d = splitmix64_digest(next++);
      digests.back() = digests.front();
      ASSERT_EQ(batched.insert_many(std::span<const std::uint64_t>(digests),
                                    std::span<bool>(results.get(), length)),
                length - (length > 1))
          << length;
      for (std::size_t i = 0; i < length; ++i) {
        ASSERT_EQ(results[i], singles.insert_digest(digests[i])) << length << " digest " << i;
      }
    }
    EXPECT_TRUE(singles == batched) << capacity;
  }
}

// The key stream reads ahead of the key being hashed in batches of at least key_stream_min_bytes
// (key_stream.hpp): at every position of arrays of lengths around its distances past that size,
// digest_at(i) is the key's own digest, and (under ASan) nothing past the array is loaded.
TEST(KeyStream, DigestsAtEveryPositionOfEveryLengthAroundTheLookahead) {
  constexpr std::size_t views_min = detail::key_stream_min_bytes / sizeof(std::string_view);
  constexpr std::size_t ints_min = detail::key_stream_min_bytes / sizeof(std::uint64_t);
  const auto owned = make_keys(views_min + 300, 31);
  std::vector<std::uint64_t> integers(ints_min + 300);
  for (std::size_t i = 0; i < integers.size(); ++i) integers[i] = i * 0x9E3779B97F4A7C15ULL;
  const auto check = [&]<detail::key_stream_distance Distance>() {
    for (const std::size_t past : {0, 1, 7, 8, 9, 31, 32, 33, 65, 129, 255, 256, 257, 300}) {
      const std::size_t n = views_min - 1 + past;
      const std::vector<std::string_view> keys(owned.begin(), owned.begin() + n);  // exact size
      const auto digest_at = detail::streamed_digests<Distance>(
          std::span<const std::string_view>(keys), [](std::string_view k) { return xxh3_64(k); });
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(digest_at(i), xxh3_64(keys[i])) << n << " " << i;
      }
      const std::size_t m = ints_min - 1 + past;
      const std::vector<std::uint64_t> ints(integers.begin(), integers.begin() + m);
      const auto same = detail::streamed_digests<Distance>(
          std::span<const std::uint64_t>(ints),
          [](const std::uint64_t& x) -> const std::uint64_t& { return x; });
      for (std::size_t i = 0; i < m; ++i) ASSERT_EQ(&same(i), &ints[i]) << m << " " << i;
    }
  };
  check.operator()<detail::one_line_per_key>();
  check.operator()<detail::lines_per_key>();
}

// Streamed batches of lengths around the stream's distances, in filters past L2 (the pipelines
// prefetch) and in cache (the plain loops): every key answers, by keys and by integers.
TEST(KeyStream, StreamedBatchesOfEveryLengthFindEveryKey) {
  constexpr std::size_t views_min = detail::key_stream_min_bytes / sizeof(std::string_view);
  constexpr std::size_t ints_min = detail::key_stream_min_bytes / sizeof(std::uint64_t);
  const auto owned = make_keys(views_min + 257, 32);
  for (const std::uint64_t capacity : {1000ULL, 2000000ULL}) {
    for (const std::size_t past : {1, 33, 257}) {
      const std::vector<std::string_view> keys(owned.begin(), owned.begin() + views_min + past);
      std::vector<std::uint64_t> ints(ints_min + past);
      for (std::size_t i = 0; i < ints.size(); ++i) ints[i] = i * 7919 + capacity;
      auto blocked = blocked_bloom_filter::for_capacity(capacity, 0.01);
      auto classic = bloom_filter::for_capacity(capacity, 0.01);
      auto blocked_ints = blocked_bloom_filter::for_capacity(capacity, 0.01, key_type::int64);
      auto classic_ints = bloom_filter::for_capacity(capacity, 0.01, key_type::int64);
      blocked.insert_many(std::span<const std::string_view>(keys));
      classic.insert_many(std::span<const std::string_view>(keys));
      blocked_ints.insert_integers(std::span<const std::uint64_t>(ints));
      classic_ints.insert_integers(std::span<const std::uint64_t>(ints));
      std::unique_ptr<bool[]> results(new bool[ints.size()]);
      const std::span<bool> answers(results.get(), keys.size());
      const std::span<bool> int_answers(results.get(), ints.size());
      EXPECT_EQ(blocked.contains_many(std::span<const std::string_view>(keys), answers),
                keys.size());
      EXPECT_EQ(classic.contains_many(std::span<const std::string_view>(keys), answers),
                keys.size());
      EXPECT_EQ(blocked_ints.contains_integers(std::span<const std::uint64_t>(ints), int_answers),
                ints.size());
      EXPECT_EQ(classic_ints.contains_integers(std::span<const std::uint64_t>(ints), int_answers),
                ints.size());
    }
  }
}

TEST(Filter, CountingIntersectKeepsTheSmallerCounter) {
  auto a = counting_bloom_filter(1000, 3);
  auto b = counting_bloom_filter(1000, 3);
  const auto keys = make_keys(200, 9);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    a.insert(keys[i]);
    if (i % 2 == 0) {
      b.insert(keys[i]);
      b.insert(keys[i]);
    }
  }
  auto both = a;
  both.intersect(b);
  for (std::uint64_t i = 0; i < both.counters(); ++i) {
    ASSERT_EQ(both.counter(i), std::min(a.counter(i), b.counter(i))) << i;
  }
  for (std::size_t i = 0; i < keys.size(); i += 2) EXPECT_TRUE(both.contains(keys[i])) << i;
}

TEST(Filter, NamesSayWhatTheyCount) {
  const auto counting = counting_bloom_filter(1000, 3);
  EXPECT_EQ(counting.cells(), 1000u);
  EXPECT_EQ(counting.counters(), 1000u);
  EXPECT_EQ(counting.byte_size(), bytes_for_bits(4 * 1000));
  const auto classic = bloom_filter(1000, 3);
  EXPECT_EQ(classic.cells(), classic.bits());
  scalable_bloom_filter chain(100, 0.01);
  chain.insert_many(views(make_keys(1000, 10)));
  std::uint64_t cells = 0;
  for (const auto& sub : chain.sub_filters()) cells += sub.cells();
  EXPECT_EQ(chain.cells(), cells);
  EXPECT_EQ(chain.hashes(), chain.sub_filters().back().hashes());
}

// A file replaced (renamed over) while it is opened: the header open_any gives is that of the
// file its filter came from. Reading the header in a second open (as load_any + read_header did)
// pairs one file's key type with the other's bits.
TEST(OpenAny, GivesTheHeaderOfTheFileItsFilterCameFrom) {
  const test::temp_dir dir;
  auto longs = guava::mitz_64_filter::for_capacity(1000, 0.01);  // 64-bit integer keys
  longs.insert(std::int64_t{42});
  save(longs, dir / "longs", key_type::int64);
  auto strings = blocked_bloom_filter::for_capacity(50'000, 0.01);
  strings.insert("42");
  save(strings, dir / "strings");
  const auto target = dir / "f.bloom";
  std::filesystem::copy_file(dir / "strings", target);

  std::atomic<bool> stop{false};
  std::thread swapper([&] {
    for (int i = 0; !stop.load(); ++i) {
      const auto tmp = dir / "swap";
      std::filesystem::create_hard_link(dir / (i % 2 == 0 ? "longs" : "strings"), tmp);
      std::filesystem::rename(tmp, target);
    }
  });
  int seen_longs = 0, seen_strings = 0, mismatched = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (int i = 0; i < 20'000 && std::chrono::steady_clock::now() < until; ++i) {
    const auto o = compat::open_any(target, i % 2 == 0 ? open_mode::load : open_mode::map);
    const bool is_longs = std::holds_alternative<guava::mitz_64_filter>(o.filter);
    (is_longs ? seen_longs : seen_strings) += 1;
    const std::uint64_t cells = std::visit([](const auto& f) { return f.cells(); }, o.filter);
    const hash_scheme scheme = std::visit([](const auto& f) { return f.scheme(); }, o.filter);
    if (o.header.keys() != (is_longs ? key_type::int64 : key_type::string) ||
        o.header.bits != cells || o.header.scheme != scheme || o.header.kind != kind_of(o.filter)) {
      ++mismatched;
    }
  }
  stop = true;
  swapper.join();
  EXPECT_EQ(mismatched, 0) << "of " << seen_longs + seen_strings << " opens";
  EXPECT_GT(seen_longs, 0);  // the file did change under the opens
  EXPECT_GT(seen_strings, 0);
}

}  // namespace
}  // namespace bloomkit
