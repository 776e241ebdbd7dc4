// RedisBloom's cuckoo filter (compat/redisbloom_cuckoo.hpp) beyond the vectors: sizing facts,
// the argument rules, properties over random command sequences (no false negative, a failed
// insert changes nothing), the older encodings, and hostile headers, chunks, RDB fields and DUMP
// payloads — each refused with an error naming the problem, never a crash nor a large allocation.

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "bloomkit/compat/redisbloom_cuckoo.hpp"
#include "support/chunk_errors.hpp"
#include "support/errors.hpp"
#include "support/redisbloom_fields.hpp"

namespace {

namespace cf = bloomkit::redisbloom::cuckoo;
using bloomkit::errc;

// prefix + i (built by append: GCC 12's -Wrestrict misreads literal + std::string here).
std::string named(std::string_view prefix, std::uint64_t i) {
  return std::string(prefix).append(std::to_string(i));
}

using bloomkit::test::error_of;
constexpr auto cuckoo_chunk_problem_of = bloomkit::test::chunk_problem_of<cf::chunk_problem>;

std::array<unsigned char, cf::header_bytes> header_of(const cf::fields& fs) {
  std::array<unsigned char, cf::header_bytes> h{};
  unsigned char* p = h.data();
  auto put = [&](std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) *p++ = static_cast<unsigned char>(v >> (8 * i));
  };
  put(fs.num_items, 8);
  put(fs.num_buckets, 8);
  put(fs.num_deletes, 8);
  put(fs.num_filters, 8);
  put(fs.bucket_size, 2);
  put(fs.max_iterations, 2);
  put(fs.expansion, 2);
  return h;
}

TEST(RedisBloomCuckooSizing, BucketsAndExpansionAreRoundedUpToPowersOfTwo) {
  const cf::filter a = cf::filter::make(1000, 2, 20, 1);
  EXPECT_EQ(a.num_buckets(), 512u);
  EXPECT_EQ(a.num_filters(), 1u);
  EXPECT_EQ(cf::filter::make(100, 4, 20, 3).expansion(), 4u);
  EXPECT_EQ(cf::filter::make(100, 4, 20, 0).expansion(), 0u);
  EXPECT_EQ(cf::filter::make(1, 2, 20, 1).num_buckets(), 1u);  // 1 / 2 = 0 buckets: 1
  EXPECT_EQ(a.info_size(), 40u + 16u + 1024u);
  EXPECT_EQ(a.debug_text(),
            "bktsize:2 buckets:512 items:0 deletes:0 filters:1 max_iterations:20 expansion:1");
  error_of([] { (void)cf::filter::make(100, 0, 20, 1); }, errc::invalid_argument);
  error_of([] { (void)cf::filter::make(100, 256, 20, 1); }, errc::invalid_argument);
  error_of([] { (void)cf::filter::make(100, 2, 0, 1); }, errc::invalid_argument);
  error_of([] { (void)cf::filter::make(100, 2, 20, 32769); }, errc::invalid_argument);
}

TEST(RedisBloomCuckooRules, ReserveAndInsertRangesInRedisBloomsOrder) {
  EXPECT_FALSE(cf::reserve_problem(1000, 2, 20, 1));
  EXPECT_EQ(cf::reserve_problem(3, 2, 20, 1), cf::reserve_capacity_text);
  EXPECT_EQ(cf::reserve_problem(1000, 0, 20, 1), cf::bucket_size_text);
  EXPECT_EQ(cf::reserve_problem(1000, 256, 20, 1), cf::bucket_size_text);
  EXPECT_EQ(cf::reserve_problem(1000, 2, 0, 1), cf::max_iterations_text);
  EXPECT_EQ(cf::reserve_problem(1000, 2, 65536, 1), cf::max_iterations_text);
  EXPECT_EQ(cf::reserve_problem(1000, 2, 20, -1), cf::expansion_text);
  EXPECT_EQ(cf::reserve_problem(1000, 2, 20, 32769), cf::expansion_text);
  EXPECT_EQ(cf::reserve_problem((1LL << 30) + 1, 2, 20, 1), cf::reserve_capacity_text);
  EXPECT_EQ(cf::reserve_problem(3, 0, 0, 1), cf::max_iterations_text);  // the first broken rule
  EXPECT_FALSE(cf::insert_capacity_problem(4));
  EXPECT_EQ(cf::insert_capacity_problem(3), cf::insert_capacity_text);
}

// Random adds (with duplicates) and deletes of added items, on small filters that kick, grow
// and compact: every item added more often than deleted is present, counts cover multiplicity,
// and a failed insert (expansion 0) leaves every byte as it was.
TEST(RedisBloomCuckooProperties, NoFalseNegativeAndFailedInsertsChangeNothing) {
  std::mt19937_64 rng(31);
  for (int round = 0; round < 60; ++round) {
    const std::uint16_t bs = static_cast<std::uint16_t>(1 + rng() % 4);
    const std::uint16_t mi = static_cast<std::uint16_t>(1 + rng() % 20);
    const std::uint16_t ex = static_cast<std::uint16_t>(rng() % 3);
    cf::filter f = cf::filter::make(8 + rng() % 64, bs, mi, ex);
    std::map<std::string, int> held;
    for (int step = 0; step < 400; ++step) {
      if (!held.empty() && rng() % 4 == 0) {
        auto it = std::next(held.begin(), static_cast<long>(rng() % held.size()));
        ASSERT_TRUE(f.remove(it->first)) << it->first;
        if (--it->second == 0) held.erase(it);
        continue;
      }
      const std::string item = named("k", rng() % 300);
      if (f.max_expansions_reached()) break;
      const cf::filter before = f;
      const auto status = rng() % 2 == 0 ? f.insert(item) : f.insert_unique(item);
      if (status == cf::insert_status::inserted) {
        ++held[item];
      } else if (status == cf::insert_status::no_space) {
        EXPECT_EQ(ex, 0u);
        EXPECT_TRUE(f == before) << "a failed insert changed the filter";
      } else {
        ASSERT_EQ(status, cf::insert_status::exists);
        EXPECT_TRUE(f == before);
      }
      for (const auto& [key, n] : held) {
        ASSERT_TRUE(f.contains(key)) << "round " << round << " step " << step << " " << key;
        ASSERT_GE(f.count(key), static_cast<std::uint64_t>(n)) << key;
      }
    }
    std::uint64_t items = 0;
    for (const auto& entry : held) items += static_cast<std::uint64_t>(entry.second);
    EXPECT_EQ(f.num_items(), items);
    f.compact(true);
    EXPECT_EQ(f.num_deletes(), 0u);
    for (const auto& entry : held) EXPECT_TRUE(f.contains(entry.first)) << entry.first;
  }
}

TEST(RedisBloomCuckooProperties, CompactFreesAnEmptiedNewestSubFilter) {
  cf::filter f = cf::filter::make(8, 2, 5, 1);
  std::vector<std::string> added;
  for (int i = 0; f.num_filters() < 2; ++i) {
    added.push_back(named("x", static_cast<std::uint64_t>(i)));
    ASSERT_EQ(f.insert(added.back()), cf::insert_status::inserted);
  }
  // Deleting the newest item empties the newest sub-filter; with deletes past 10% of the items
  // CF.DEL's auto-compaction frees it.
  ASSERT_TRUE(f.remove(added.back()));
  added.pop_back();
  EXPECT_EQ(f.num_filters(), 1u);
  EXPECT_EQ(f.num_deletes(), 0u);
  EXPECT_EQ(f.info_size(), 40u + 16u + 8u);
  for (const auto& a : added) EXPECT_TRUE(f.contains(a)) << a;
}

// An allocator that holds exactly the bytes asked for: the filter's own bytes are then CF.INFO
// Size, RedisBloom's count of its structs and slots.
struct exact_allocator final : bloomkit::storage_allocator {
  std::uint64_t live = 0;
  bloomkit::storage_block allocate(std::size_t bytes) override {
    const std::size_t rounded = (bytes + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, rounded);
    if (p == nullptr) throw bloomkit::error(errc::too_large, "no memory");
    std::memset(p, 0, rounded);
    live += bytes;
    return {static_cast<std::uint64_t*>(p), p, bytes};
  }
  void deallocate(const bloomkit::storage_block& block) noexcept override {
    live -= block.bytes;
    std::free(block.base);
  }
};

TEST(RedisBloomCuckooMemory, AFilterHoldsWhatRedisBloomCounts) {
  exact_allocator exact;
  bloomkit::set_storage_allocator(exact);
  {
    cf::filter f = cf::filter::make(64, 2, 5, 2);
    for (int i = 0; f.num_filters() < 3; ++i)
      (void)f.insert(named("m", static_cast<std::uint64_t>(i) * 7));
    EXPECT_EQ(f.memory_bytes(), f.info_size());
    EXPECT_EQ(exact.live, f.slot_bytes());
    const cf::filter copy = f;
    EXPECT_EQ(copy.memory_bytes(), f.info_size());
  }
  EXPECT_EQ(exact.live, 0u);
  bloomkit::set_storage_allocator(bloomkit::mapped_memory_allocator());
}

TEST(RedisBloomCuckooRdb, OlderEncodingsLoadWithRedisBloomsDefaults) {
  bloomkit::test::redisbloom_fields in;
  const std::string slots(8, '\0');
  in.fields = {std::uint64_t{2}, std::uint64_t{4}, std::uint64_t{0}, slots, slots};
  const cf::filter f = cf::load_fields(in, 3);
  EXPECT_EQ(f.num_filters(), 2u);
  EXPECT_EQ(f.bucket_size(), 2u);
  EXPECT_EQ(f.max_iterations(), 20u);
  EXPECT_EQ(f.expansion(), 1u);
  EXPECT_EQ(f.sub_buckets(1), 4u);
  bloomkit::test::redisbloom_fields again;
  error_of([&] { (void)cf::load_fields(again, 5); }, errc::unsupported);
}

TEST(RedisBloomCuckooRdb, HostileFieldsAreRefusedNamingTheField) {
  const std::string slots(8, '\0');
  auto load = [&](std::vector<std::variant<std::uint64_t, double, std::string>> fields) {
    bloomkit::test::redisbloom_fields in;
    in.fields = std::move(fields);
    return error_of([&] { (void)cf::load_fields(in, 4); }, errc::corrupt_file);
  };
  using u = std::uint64_t;
  // numFilters, numBuckets, numItems, numDeletes, bucketSize, maxIterations, expansion, subs.
  EXPECT_NE(load({u{0}, u{4}, u{0}, u{0}, u{2}, u{20}, u{1}}).find("number of filters"),
            std::string::npos);
  EXPECT_NE(load({~u{0}, u{4}, u{0}, u{0}, u{2}, u{20}, u{1}}).find("number of filters"),
            std::string::npos);
  EXPECT_NE(load({u{1}, u{3}, u{0}, u{0}, u{2}, u{20}, u{1}}).find("number of buckets"),
            std::string::npos);
  EXPECT_NE(load({u{1}, u{4}, u{0}, u{0}, u{0}, u{20}, u{1}}).find("bucket size"),
            std::string::npos);
  EXPECT_NE(load({u{1}, u{4}, u{0}, u{0}, u{300}, u{20}, u{1}}).find("bucket size"),
            std::string::npos);
  EXPECT_NE(load({u{1}, u{4}, u{0}, u{0}, u{2}, u{0}, u{1}}).find("max iterations"),
            std::string::npos);
  EXPECT_NE(load({u{2}, u{4}, u{0}, u{0}, u{2}, u{20}, u{0}}).find("expansion 0"),
            std::string::npos);
  EXPECT_NE(load({u{1}, u{4}, u{0}, u{0}, u{2}, u{20}, u{1}, u{4}, std::string(7, '\0')})
                .find("sub-filter 0"),
            std::string::npos);
  EXPECT_NE(
      load({u{1}, u{4}, u{0}, u{0}, u{2}, u{20}, u{1}, u{1} << 50, slots}).find("sub-filter 0"),
      std::string::npos);
  EXPECT_NE(load({u{2}, u{4}, u{0}, u{0}, u{2}, u{20}, u{2}, u{4}, slots, u{4}, slots})
                .find("sub-filter 1"),
            std::string::npos);
}

TEST(RedisBloomCuckooDump, EveryTruncationAndFlippedByteIsRefusedOrLoadsExactly) {
  cf::filter f = cf::filter::make(64, 2, 20, 2);
  for (int i = 0; i < 80; ++i) (void)f.insert(named("item-", static_cast<std::uint64_t>(i)));
  const auto good = cf::write_dump(f);
  EXPECT_EQ(cf::read_dump(good, "good"), f);
  for (std::size_t n = 0; n < good.size(); ++n) {
    const std::span<const unsigned char> cut(good.data(), n);
    EXPECT_THROW((void)cf::read_dump(cut, "cut"), bloomkit::error) << n;
  }
  // A flipped byte fails the CRC; with the CRC made right again, the fields' checks decide.
  for (std::size_t at = 0; at + 10 < good.size(); ++at) {
    auto bad = good;
    bad[at] ^= 0x5a;
    EXPECT_THROW((void)cf::read_dump(bad, "flipped"), bloomkit::error) << at;
    const std::uint64_t crc = bloomkit::redisbloom::crc64_jones(
        0, std::span<const unsigned char>(bad.data(), bad.size() - 8));
    for (int i = 0; i < 8; ++i)
      bad[bad.size() - 8 + i] = static_cast<unsigned char>(crc >> (8 * i));
    try {
      const cf::filter g = cf::read_dump(bad, "flipped");
      EXPECT_LE(g.slot_bytes(), bad.size()) << at;  // nothing larger than the payload held
    } catch (const bloomkit::error&) {
    }
  }
}

TEST(RedisBloomCuckooChunks, HostileHeadersAreRefusedNamingTheField) {
  const cf::fields ok{4, 1, 0, 1, 2, 20, 1};
  EXPECT_NO_THROW((void)cf::filter_from_header(header_of(ok)));
  std::string message;
  const std::array<unsigned char, 10> short_header{};
  EXPECT_EQ(cuckoo_chunk_problem_of([&] { (void)cf::filter_from_header(short_header); }),
            cf::chunk_problem::invalid_header);
  EXPECT_EQ(cf::redisbloom_text(cf::chunk_problem::invalid_header), "Invalid header");
  auto refused = [&](cf::fields fs, const char* field) {
    std::string what;
    EXPECT_EQ(cuckoo_chunk_problem_of([&] { (void)cf::filter_from_header(header_of(fs)); }, &what),
              cf::chunk_problem::cannot_create)
        << field;
    EXPECT_NE(what.find(field), std::string::npos) << what;
  };
  cf::fields fs = ok;
  fs.num_filters = 0;
  refused(fs, "number of filters");
  fs.num_filters = 65536;
  refused(fs, "number of filters");
  fs = ok;
  fs.num_buckets = 0;
  refused(fs, "number of buckets");
  fs.num_buckets = 6;
  refused(fs, "number of buckets");
  fs.num_buckets = std::uint64_t{1} << 56;
  refused(fs, "number of buckets");
  fs = ok;
  fs.bucket_size = 256;
  refused(fs, "bucket size");
  fs = ok;
  fs.max_iterations = 0;
  refused(fs, "max iterations");
  fs = ok;
  fs.expansion = 0;
  fs.num_filters = 2;
  refused(fs, "expansion 0");
  // Sizes past bloomkit's bound are refused before any allocation: 2^40 buckets of 255 slots,
  // or 65535 sub-filters of 2^32 buckets.
  fs = ok;
  fs.num_buckets = std::uint64_t{1} << 40;
  fs.bucket_size = 255;
  refused(fs, "sub-filter 0");
  fs = ok;
  fs.num_buckets = std::uint64_t{1} << 32;
  fs.num_filters = 65535;
  refused(fs, "sub-filter");
  fs = ok;
  fs.num_buckets = std::uint64_t{1} << 40;
  fs.expansion = 32768;
  fs.num_filters = 3;
  refused(fs, "sub-filter");
  EXPECT_EQ(cf::redisbloom_text(cf::chunk_problem::cannot_create), "Couldn't create filter!");
}

TEST(RedisBloomCuckooChunks, ChunksAtBadPositionsAreRefusedAndPastTheEndWrapsAsRedisBloom) {
  cf::filter f = cf::filter_from_header(header_of({4, 1, 0, 2, 2, 20, 1}));  // 2 x 8 bytes
  const std::array<unsigned char, 4> data{1, 2, 3, 4};
  for (std::int64_t pos : {0LL, -5LL, 4LL}) {
    EXPECT_EQ(cuckoo_chunk_problem_of([&] { cf::apply_chunk(f, pos, data); }),
              cf::chunk_problem::cannot_load)
        << pos;
  }
  EXPECT_EQ(cuckoo_chunk_problem_of([&] { cf::apply_chunk(f, 9, {}); }),
            cf::chunk_problem::cannot_load);
  // Bytes 6..9 straddle the two sub-filters: refused.
  EXPECT_EQ(cuckoo_chunk_problem_of([&] { cf::apply_chunk(f, 11, data); }),
            cf::chunk_problem::cannot_load);
  cf::apply_chunk(f, 13, data);  // sub-filter 1, offset 0
  EXPECT_EQ(f.sub_slots(1)[0], 1u);
  // Past all 16 bytes: offset 18 - 16 = 2 of the last sub-filter, as RedisBloom's loop leaves it.
  cf::apply_chunk(f, 23, data);
  EXPECT_EQ(f.sub_slots(1)[2], 1u);
  EXPECT_EQ(f.sub_slots(1)[5], 4u);
  EXPECT_EQ(cuckoo_chunk_problem_of([&] { cf::apply_chunk(f, 100, data); }),
            cf::chunk_problem::cannot_load);
  // SCANDUMP positions: a small sub-filter comes whole wherever pos points inside it.
  EXPECT_EQ(cf::next_chunk(f, 3).next, 3 + 8);
  EXPECT_EQ(cf::next_chunk(f, 3).data.data(), f.sub_slots(0).data());
  EXPECT_EQ(cf::next_chunk(f, 17).next, 0);
  EXPECT_EQ(cf::next_chunk(f, 0).next, 0);
  EXPECT_EQ(cf::next_chunk(f, 3, 2).next, 5);  // past max_bytes: pieces from pos
}

}  // namespace
