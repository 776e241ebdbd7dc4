// Files of the scalable filter: round trips (load and zero-copy map), layout, corruption, forged
// headers and forged sub-filter tables.

#include <gtest/gtest.h>
#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

#include "bloomkit/file.hpp"
#include "bloomkit/scalable_bloom_filter.hpp"
#include "support/file_checks.hpp"
#include "support/keys.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit {
namespace {

using test::expect_same_answers;

using test::expect_error_naming;
using test::make_keys;
using test::read_bytes;
using test::read_field;
using test::temp_dir;
using test::views;
using test::with_valid_checksums;
using test::write_bytes;
using test::write_field;

constexpr std::size_t scalable_entry_size = 48;

// A chain of `keys / n0`-ish sub-filters, the newest partly full.
scalable_bloom_filter sample_scalable_filter(std::uint64_t n0 = 100, std::uint64_t keys = 500,
                                             double p = 0.01, std::uint64_t set = 1) {
  scalable_bloom_filter f(n0, p, 2, 0.5, 1 << 24);
  f.insert_many(views(make_keys(keys, set)));
  return f;
}

TEST(ScalableFile, SaveLoadAndMapAreBitIdentical) {
  temp_dir dir;
  for (std::uint64_t keys : {0ull, 1ull, 100ull, 101ull, 5000ull}) {
    const auto f = sample_scalable_filter(100, keys, 0.01, keys);
    save(f, dir / "f.bloom");
    const auto loaded = load<scalable_bloom_filter>(dir / "f.bloom");
    const auto mapped = map<scalable_bloom_filter>(dir / "f.bloom");
    for (const auto* g : {&loaded, &mapped}) {
      EXPECT_EQ(*g, f);
      EXPECT_EQ(g->params(), f.params());
      EXPECT_EQ(g->inserted(), f.inserted());
      EXPECT_EQ(g->sub_filter_count(), f.sub_filter_count());
      EXPECT_EQ(g->estimated_fpp(), f.estimated_fpp());
    }
    EXPECT_FALSE(loaded.read_only());
    EXPECT_TRUE(mapped.read_only());
    // Every mapped sub-filter is a 64-byte-aligned view into the file: zero-copy.
    for (const auto& sub : mapped.sub_filters()) {
      EXPECT_TRUE(sub.read_only());
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(sub.storage().data()) % 64, 0u);
    }
    expect_same_answers(mapped, f, make_keys(keys, keys));
    expect_same_answers(mapped, loaded, make_keys(3000, keys + 1));
    save(loaded, dir / "g.bloom");
    EXPECT_EQ(read_bytes(dir / "f.bloom"), read_bytes(dir / "g.bloom"));
    EXPECT_EQ(map<scalable_bloom_filter>(dir / "f.bloom", verify::header), f);
  }
}

TEST(ScalableFile, LoadedFilterKeepsGrowingLikeTheOriginal) {
  temp_dir dir;
  auto f = sample_scalable_filter(100, 250);
  save(f, dir / "f.bloom");
  auto loaded = load<scalable_bloom_filter>(dir / "f.bloom");
  const auto more = make_keys(2000, 99);
  EXPECT_EQ(loaded.insert_many(views(more)), f.insert_many(views(more)));
  EXPECT_EQ(loaded, f);
  auto mapped = map<scalable_bloom_filter>(dir / "f.bloom");
  for (const auto& write : std::vector<std::function<void()>>{
           [&] { mapped.insert("x"); },
           [&] { mapped.insert_many(std::vector<std::string_view>{"y"}); },
           [&] { mapped.clear(); }}) {
    try {
      write();
      ADD_FAILURE() << "write to a mapped filter";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::read_only);
    }
  }
}

TEST(ScalableFile, LayoutMatchesFormatDoc) {
  temp_dir dir;
  const auto f = sample_scalable_filter(100, 500);
  ASSERT_EQ(f.sub_filter_count(), 3u);
  save(f, dir / "f.bloom");
  const auto bytes = read_bytes(dir / "f.bloom");
  EXPECT_EQ(read_field<std::uint32_t>(bytes, 16), 4u);  // kind: scalable
  EXPECT_EQ(read_field<std::uint32_t>(bytes, 20), 1u);  // scheme: xxh3-128
  EXPECT_EQ(read_field<std::uint64_t>(bytes, 24), f.cells());
  EXPECT_EQ(read_field<std::uint32_t>(bytes, 32), 0u);  // hashes: per sub-filter
  EXPECT_EQ(read_field<std::uint64_t>(bytes, 40), 100u);
  EXPECT_EQ(read_field<double>(bytes, 48), 0.01);
  EXPECT_EQ(read_field<std::uint64_t>(bytes, 56), f.inserted());
  EXPECT_EQ(read_field<std::uint64_t>(bytes, 64), 128u);
  EXPECT_EQ(read_field<std::uint64_t>(bytes, 72), bytes.size() - 128);
  EXPECT_EQ(read_field<std::uint64_t>(bytes, 80), XXH64(bytes.data() + 128, bytes.size() - 128, 0));
  EXPECT_EQ(read_field<std::uint64_t>(bytes, 88), 2u);         // growth
  EXPECT_EQ(read_field<double>(bytes, 96), 0.5);               // tightening ratio
  EXPECT_EQ(read_field<std::uint64_t>(bytes, 104), 1u << 24);  // memory ceiling
  EXPECT_EQ(read_field<std::uint64_t>(bytes, 112), 3u);        // sub-filters
  // The table's checksum follows its 3 * 48 = 144 bytes; then zeros up to 192.
  EXPECT_EQ(read_field<std::uint64_t>(bytes, 128 + 144), XXH64(bytes.data() + 128, 144, 0));
  std::uint64_t expected_offset = 192;
  for (std::size_t i = 0; i < 3; ++i) {
    const bloom_filter& sub = f.sub_filters()[i];
    const std::size_t e = 128 + i * scalable_entry_size;
    EXPECT_EQ(read_field<std::uint64_t>(bytes, e), sub.bits());
    EXPECT_EQ(read_field<std::uint32_t>(bytes, e + 8), sub.hashes());
    EXPECT_EQ(read_field<std::uint32_t>(bytes, e + 12), 0u);
    EXPECT_EQ(read_field<std::uint64_t>(bytes, e + 16), sub.capacity());
    EXPECT_EQ(read_field<double>(bytes, e + 24), sub.target_fpp());
    EXPECT_EQ(read_field<std::uint64_t>(bytes, e + 32), sub.inserted());
    EXPECT_EQ(read_field<std::uint64_t>(bytes, e + 40), expected_offset);
    EXPECT_EQ(
        std::memcmp(bytes.data() + 128 + expected_offset, sub.storage().data(), sub.byte_size()),
        0);
    expected_offset = (expected_offset + sub.byte_size() + 63) / 64 * 64;
  }
  EXPECT_EQ(to_string(read_header(dir / "f.bloom").kind), "scalable");
}

TEST(ScalableFile, OtherKindsAreRefusedNamingWhatTheFileHolds) {
  temp_dir dir;
  const auto scalable = dir / "scalable.bloom";
  const auto counting = dir / "counting.bloom";
  save(sample_scalable_filter(), scalable);
  save(counting_bloom_filter(100, 3), counting);
  EXPECT_EQ(expect_error_naming(scalable, "holds a scalable filter, not a classic one",
                                [&] { load(scalable); }),
            errc::unsupported);
  EXPECT_EQ(expect_error_naming(scalable, "holds a scalable filter, not a counting one",
                                [&] { map<counting_bloom_filter>(scalable); }),
            errc::unsupported);
  EXPECT_EQ(expect_error_naming(counting, "holds a counting filter, not a scalable one",
                                [&] { load<scalable_bloom_filter>(counting); }),
            errc::unsupported);
}

const std::vector<test::file_reader> all_readers = {
    [](const auto& p) { load<scalable_bloom_filter>(p); },
    [](const auto& p) { map<scalable_bloom_filter>(p); },
    [](const auto& p) { map<scalable_bloom_filter>(p, verify::header); }};

TEST(ScalableFile, EveryTruncationIsRejected) {
  temp_dir dir;
  save(sample_scalable_filter(10, 40, 0.05), dir / "f.bloom");
  test::expect_every_truncation_rejected(read_bytes(dir / "f.bloom"), dir / "bad.bloom",
                                         all_readers);
}

// Damage to the header or the sub-filter table is caught even by map(verify::header), which
// skips only the checksum of the bit arrays.
TEST(ScalableFile, EveryFlippedByteIsRejected) {
  temp_dir dir;
  const auto f = sample_scalable_filter(10, 40, 0.05);
  ASSERT_EQ(f.sub_filter_count(), 3u);
  save(f, dir / "f.bloom");
  test::expect_every_flip_rejected(
      read_bytes(dir / "f.bloom"), dir / "bad.bloom", {all_readers[0], all_readers[1]},
      {{file_header_size, [](const auto& p) { read_header(p); }},
       {file_header_size + 3 * scalable_entry_size + 8, all_readers[2]}});
}

class ScalableForgery : public ::testing::Test {
 protected:
  void SetUp() override {
    filter_ = sample_scalable_filter(20, 100, 0.05);
    ASSERT_EQ(filter_.sub_filter_count(), 3u);
    save(filter_, dir_ / "f.bloom");
    good_ = read_bytes(dir_ / "f.bloom");
    header_ = read_header(dir_ / "f.bloom");
  }
  // Writes `bytes` with `header` and valid checksums; expects every reader to refuse it as
  // corrupt_file with `problem` in the message.
  void expect_refused(const std::vector<unsigned char>& bytes, const file_header& header,
                      const std::string& problem, errc code = errc::corrupt_file) {
    write_bytes(path_, with_valid_checksums(bytes, header));
    for (const auto& read : all_readers) {
      EXPECT_EQ(expect_error_naming(path_, problem, [&] { read(path_); }), code) << problem;
    }
  }
  void expect_header_refused(const std::function<void(file_header&)>& edit,
                             const std::string& problem, errc code = errc::corrupt_file) {
    file_header h = header_;
    edit(h);
    expect_refused(good_, h, problem, code);
  }
  // Sets a field of table entry `index` at `field` (byte offset in the entry) and refreshes the
  // table's checksum.
  template <class T>
  void expect_entry_refused(std::size_t index, std::size_t field, T value,
                            const std::string& problem) {
    auto bytes = good_;
    write_field(bytes, 128 + index * scalable_entry_size + field, value);
    write_field(bytes, 128 + 3 * scalable_entry_size,
                XXH64(bytes.data() + 128, 3 * scalable_entry_size, 0));
    expect_refused(bytes, header_, problem);
  }

  temp_dir dir_;
  std::filesystem::path path_ = dir_ / "forged.bloom";
  scalable_bloom_filter filter_{1, 0.5};
  std::vector<unsigned char> good_;
  file_header header_;
};

TEST_F(ScalableForgery, HeaderFields) {
  expect_header_refused([](auto& h) { h.kind_params[0] = 0; }, "growth factor 0");
  expect_header_refused([](auto& h) { h.kind_params[0] = 40000; }, "growth factor 40000");
  expect_header_refused([](auto& h) { h.kind_params[1] = std::bit_cast<std::uint64_t>(1.5); },
                        "tightening ratio");
  expect_header_refused([](auto& h) { h.kind_params[3] = 0; }, "sub-filter count 0");
  expect_header_refused([](auto& h) { h.kind_params[3] = 300; }, "sub-filter count 300");
  expect_header_refused([](auto& h) { h.kind_params[3] = 2; }, "table checksum mismatch");
  expect_header_refused([](auto& h) { h.kind_params[3] = 4; }, "table checksum mismatch");
  expect_header_refused([](auto& h) { h.hashes = 7; }, "must be 0 for a scalable filter");
  expect_header_refused([](auto& h) { h.flags = 1; }, "flags", errc::unsupported);
  expect_header_refused([](auto& h) { h.bits += 1; }, "the header says");
  expect_header_refused([](auto& h) { h.inserted += 1; }, "the header says");
  expect_header_refused([](auto& h) { h.capacity = 21; }, "sub-filter 0 has capacity 20");
  expect_header_refused([](auto& h) { h.target_fpp = 0.04; }, "target fpp");
  expect_header_refused([](auto& h) { h.kind_params[1] = std::bit_cast<std::uint64_t>(0.6); },
                        "target fpp");
  expect_header_refused([](auto& h) { h.kind_params[2] = 64; }, "memory ceiling of 64");
  expect_header_refused([](auto& h) { h.payload_length = 100; }, "cannot hold 3 sub-filters");
}

TEST_F(ScalableForgery, TableEntries) {
  const auto& subs = filter_.sub_filters();
  expect_entry_refused<std::uint64_t>(1, 0, subs[1].bits() / 2, "above its target");
  expect_entry_refused<std::uint32_t>(2, 8, 1, "above its target");
  expect_entry_refused<std::uint32_t>(2, 8, 0, "hashes must be at least 1");
  // More bits than the chain's sizing keep the bound, but the layout no longer adds up.
  expect_entry_refused<std::uint64_t>(1, 0, subs[1].bits() + 512, "entry 2 has offset");
  expect_entry_refused<std::uint64_t>(2, 0, subs[2].bits() + 1, "the header says");
  expect_entry_refused<std::uint32_t>(0, 12, 1, "entry 0 has its reserved field set");
  expect_entry_refused<std::uint64_t>(1, 16, 41, "sub-filter 1 has capacity 41");
  expect_entry_refused<double>(2, 24, 0.001, "sub-filter 2 has target fpp");
  expect_entry_refused<std::uint64_t>(2, 32, subs[2].capacity() + 1, "at most its capacity fits");
  expect_entry_refused<std::uint64_t>(0, 32, 19, "all but the newest sub-filter are full");
  const std::uint64_t offset1 = read_field<std::uint64_t>(good_, 128 + scalable_entry_size + 40);
  expect_entry_refused<std::uint64_t>(1, 40, offset1 + 8, "entry 1 has offset");
  expect_entry_refused<std::uint64_t>(1, 40, offset1 + 64, "entry 1 has offset");
  expect_entry_refused<std::uint64_t>(2, 40, ~std::uint64_t{0} - 63, "entry 2 has offset");
  expect_entry_refused<std::uint64_t>(0, 40, 0, "entry 0 has offset");
}

TEST_F(ScalableForgery, TableChecksum) {
  auto bytes = good_;
  write_field<std::uint64_t>(bytes, 128 + 32, 19);  // entry 0's inserted, table checksum left stale
  expect_refused(bytes, header_, "sub-filter table checksum mismatch");
}

// Damage only the payload checksum can see: padding and bits past a sub-filter's m.
TEST_F(ScalableForgery, PaddingAndTailBits) {
  auto padded = good_;
  padded[128 + 3 * scalable_entry_size + 9] = 1;  // between the table's checksum and sub-filter 0
  write_bytes(path_, with_valid_checksums(padded, header_));
  EXPECT_EQ(expect_error_naming(path_, "padding before sub-filter 0",
                                [&] { load<scalable_bloom_filter>(path_); }),
            errc::corrupt_file);
  EXPECT_EQ(expect_error_naming(path_, "padding", [&] { map<scalable_bloom_filter>(path_); }),
            errc::corrupt_file);
  const bloom_filter& first = filter_.sub_filters()[0];
  ASSERT_NE(first.bits() % 64, 0u);
  auto tail = good_;
  const std::uint64_t offset0 = read_field<std::uint64_t>(good_, 128 + 40);
  tail[128 + offset0 + first.byte_size() - 1] |= 0x80;
  write_bytes(path_, with_valid_checksums(tail, header_));
  EXPECT_EQ(expect_error_naming(path_, "past the filter's size",
                                [&] { load<scalable_bloom_filter>(path_); }),
            errc::corrupt_file);
}

}  // namespace
}  // namespace bloomkit

namespace bloomkit {
namespace {

// A chain of blocked sub-filters is the same composition with another sub-filter kind: its file
// has scheme xxh3-64-split-block and sub-filter kind 2 in every table entry (docs/FORMAT.md).
TEST(ScalableBlockedFile, SaveLoadAndMapRoundTrip) {
  test::temp_dir dir;
  for (std::uint64_t n : {0ull, 1ull, 5000ull}) {
    scalable_blocked_bloom_filter f(100, 0.01);
    const auto keys = test::make_keys(n, 3);
    f.insert_many(test::views(keys));
    save(f, dir / "b.bloom");
    const auto loaded = load<scalable_blocked_bloom_filter>(dir / "b.bloom");
    const auto mapped = map<scalable_blocked_bloom_filter>(dir / "b.bloom");
    for (const auto* g : {&loaded, &mapped}) {
      EXPECT_TRUE(*g == f);
      EXPECT_EQ(g->inserted(), f.inserted());
      EXPECT_EQ(g->sub_filter_count(), f.sub_filter_count());
      for (const auto& k : keys) ASSERT_TRUE(g->contains(k));
    }
    EXPECT_TRUE(mapped.read_only());
    save(loaded, dir / "c.bloom");
    const auto bytes = test::read_bytes(dir / "b.bloom");
    EXPECT_EQ(bytes, test::read_bytes(dir / "c.bloom"));
    const file_header h = read_header(dir / "b.bloom");
    EXPECT_EQ(h.kind, filter_kind::scalable);
    EXPECT_EQ(h.scheme, hash_scheme::xxh3_64_split_block);
    for (std::size_t i = 0; i < f.sub_filter_count(); ++i) {
      std::uint32_t sub_kind;
      std::memcpy(&sub_kind, bytes.data() + 128 + 48 * i + 12, 4);
      EXPECT_EQ(sub_kind, static_cast<std::uint32_t>(filter_kind::blocked)) << i;
    }
  }
}

TEST(ScalableBlockedFile, ChainsOfOneKindDoNotOpenAsTheOther) {
  test::temp_dir dir;
  save(scalable_blocked_bloom_filter(100, 0.01), dir / "b.bloom");
  save(scalable_bloom_filter(100, 0.01), dir / "c.bloom");
  EXPECT_EQ(test::expect_error_naming(dir / "b.bloom", "xxh3-64-split-block",
                                      [&] { (void)load<scalable_bloom_filter>(dir / "b.bloom"); }),
            errc::unsupported);
  EXPECT_EQ(
      test::expect_error_naming(dir / "c.bloom", "xxh3-128",
                                [&] { (void)map<scalable_blocked_bloom_filter>(dir / "c.bloom"); }),
      errc::unsupported);
  // A blocked chain whose entry does not record the blocked kind is corrupt (checksums valid).
  auto bytes = test::read_bytes(dir / "b.bloom");
  const file_header h = read_header(dir / "b.bloom");
  bytes[128 + 12] = 0;
  const std::uint64_t table_checksum = XXH64(bytes.data() + 128, 48, 0);
  std::memcpy(bytes.data() + 128 + 48, &table_checksum, 8);
  test::write_bytes(dir / "b.bloom", test::with_valid_checksums(bytes, h));
  EXPECT_EQ(test::expect_error_naming(
                dir / "b.bloom", "sub-filter kind 0",
                [&] { (void)load<scalable_blocked_bloom_filter>(dir / "b.bloom"); }),
            errc::corrupt_file);
}

}  // namespace
}  // namespace bloomkit
