// Files of the counting filter: round trips, layout, corruption and forged headers.

#include <gtest/gtest.h>
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <string>

#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/file.hpp"
#include "support/file_checks.hpp"
#include "support/keys.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit {
namespace {

using test::expect_same_answers;

using test::expect_error_naming;
using test::make_keys;
using test::read_bytes;
using test::temp_dir;
using test::views;
using test::with_valid_checksums;
using test::write_bytes;

// A filter with counters across 0..15: repeats, removes and a saturated hot key.
counting_bloom_filter sample_counting_filter(std::uint64_t n = 2000, double p = 0.01,
                                             std::uint64_t set = 1) {
  auto f = counting_bloom_filter::for_capacity(n, p);
  const auto keys = make_keys(n, set);
  f.insert_many(views(keys));
  for (std::size_t i = 0; i < keys.size(); i += 3) f.insert(keys[i]);
  for (std::size_t i = 0; i < keys.size(); i += 5) f.remove(keys[i]);
  for (int i = 0; i < 20; ++i) f.insert("hot");
  return f;
}

TEST(CountingFile, SaveLoadAndMapAreBitIdentical) {
  temp_dir dir;
  for (std::uint64_t n : {1ull, 17ull, 2000ull, 50'001ull}) {
    const auto f = sample_counting_filter(n, 0.01, n);
    ASSERT_GT(f.saturated_counters(), 0u);
    save(f, dir / "f.bloom");
    const auto loaded = load<counting_bloom_filter>(dir / "f.bloom");
    const auto mapped = map<counting_bloom_filter>(dir / "f.bloom");
    for (const auto* g : {&loaded, &mapped}) {
      EXPECT_EQ(*g, f);
      EXPECT_EQ(g->capacity(), f.capacity());
      EXPECT_EQ(g->target_fpp(), f.target_fpp());
      EXPECT_EQ(g->inserted(), f.inserted());
      EXPECT_EQ(g->saturated_counters(), f.saturated_counters());
    }
    EXPECT_FALSE(loaded.read_only());
    EXPECT_TRUE(mapped.read_only());
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(mapped.storage().data()) % 64, 0u);
    expect_same_answers(mapped, f, make_keys(n, n));
    expect_same_answers(mapped, loaded, make_keys(5000, n + 1));
    save(loaded, dir / "g.bloom");
    EXPECT_EQ(read_bytes(dir / "f.bloom"), read_bytes(dir / "g.bloom"));
    EXPECT_EQ(map<counting_bloom_filter>(dir / "f.bloom", verify::header), f);
  }
}

TEST(CountingFile, MappedFilterIsReadOnlyAndLoadedOneStaysWritable) {
  temp_dir dir;
  save(sample_counting_filter(), dir / "f.bloom");
  auto mapped = map<counting_bloom_filter>(dir / "f.bloom");
  const auto key = make_keys(1, 1)[0];
  for (const auto& write : std::vector<std::function<void()>>{
           [&] { mapped.insert("x"); }, [&] { mapped.remove(key); },
           [&] { mapped.insert_many(std::vector<std::string_view>{"y"}); }, [&] { mapped.clear(); },
           [&] { mapped.merge(sample_counting_filter()); }}) {
    try {
      write();
      ADD_FAILURE() << "write to a mapped filter";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::read_only);
    }
  }
  EXPECT_TRUE(mapped.contains(key));
  auto loaded = load<counting_bloom_filter>(dir / "f.bloom");
  EXPECT_TRUE(loaded.remove(key));
  loaded.merge(mapped);  // reads through the mapping
  EXPECT_EQ(loaded.to_bloom_filter(), mapped.to_bloom_filter());
}

TEST(CountingFile, LayoutMatchesFormatDoc) {
  temp_dir dir;
  const auto f = sample_counting_filter(1000, 0.01);
  save(f, dir / "f.bloom");
  const auto bytes = read_bytes(dir / "f.bloom");
  ASSERT_EQ(bytes.size(), file_header_size + bytes_for_bits(4 * f.counters()));
  auto u32 = [&](std::size_t off) {
    std::uint32_t v;
    std::memcpy(&v, bytes.data() + off, 4);
    return v;
  };
  auto u64 = [&](std::size_t off) {
    std::uint64_t v;
    std::memcpy(&v, bytes.data() + off, 8);
    return v;
  };
  EXPECT_EQ(std::memcmp(bytes.data(), "BLOOMKIT", 8), 0);
  EXPECT_EQ(u32(16), 3u);  // kind: counting
  EXPECT_EQ(u32(20), 1u);  // scheme: xxh3-128
  EXPECT_EQ(u64(24), f.counters());
  EXPECT_EQ(u32(32), f.hashes());
  EXPECT_EQ(u64(40), 1000u);
  EXPECT_EQ(u64(56), f.inserted());
  EXPECT_EQ(u64(64), 128u);
  EXPECT_EQ(u64(72), bytes_for_bits(4 * f.counters()));
  EXPECT_EQ(u64(80), XXH64(bytes.data() + 128, bytes.size() - 128, 0));
  for (std::size_t off = 88; off < 120; off += 8) EXPECT_EQ(u64(off), 0u);
  // Counter i is the low (even i) or high (odd i) nibble of payload byte i / 2.
  for (std::uint64_t i = 0; i < f.counters(); ++i) {
    const unsigned byte = bytes[128 + i / 2];
    ASSERT_EQ(f.counter(i), i % 2 == 0 ? (byte & 15u) : (byte >> 4u)) << i;
  }
  const auto h = read_header(dir / "f.bloom");
  EXPECT_EQ(h.kind, filter_kind::counting);
  EXPECT_EQ(to_string(h.kind), "counting");
  EXPECT_TRUE(is_known(h.kind));
}

TEST(CountingFile, OtherKindsAreRefusedNamingWhatTheFileHolds) {
  temp_dir dir;
  save(sample_counting_filter(), dir / "counting.bloom");
  save(bloom_filter::for_capacity(100, 0.01), dir / "classic.bloom");
  const auto counting = dir / "counting.bloom";
  const auto classic = dir / "classic.bloom";
  EXPECT_EQ(expect_error_naming(counting, "holds a counting filter, not a classic one",
                                [&] { load(counting); }),
            errc::unsupported);
  EXPECT_EQ(expect_error_naming(counting, "holds a counting filter", [&] { map(counting); }),
            errc::unsupported);
  EXPECT_EQ(expect_error_naming(classic, "holds a classic filter, not a counting one",
                                [&] { load<counting_bloom_filter>(classic); }),
            errc::unsupported);
  EXPECT_EQ(expect_error_naming(classic, "holds a classic filter",
                                [&] { map<counting_bloom_filter>(classic); }),
            errc::unsupported);
}

TEST(CountingFile, EveryTruncationIsRejected) {
  temp_dir dir;
  save(sample_counting_filter(200, 0.1), dir / "f.bloom");
  test::expect_every_truncation_rejected(read_bytes(dir / "f.bloom"), dir / "bad.bloom",
                                         test::all_readers<counting_bloom_filter>());
}

TEST(CountingFile, EveryFlippedByteIsRejected) {
  temp_dir dir;
  save(sample_counting_filter(200, 0.1), dir / "f.bloom");
  test::expect_every_flip_rejected(read_bytes(dir / "f.bloom"), dir / "bad.bloom",
                                   test::full_readers<counting_bloom_filter>(),
                                   test::header_readers<counting_bloom_filter>());
}

// Headers with valid checksums but impossible contents.
TEST(CountingFile, InconsistentFieldsAreRejected) {
  temp_dir dir;
  const auto f = sample_counting_filter(1000, 0.01);
  save(f, dir / "f.bloom");
  const auto good = read_bytes(dir / "f.bloom");
  const file_header base = read_header(dir / "f.bloom");
  const auto path = dir / "forged.bloom";
  auto forge = [&](const std::string& problem, const std::function<void(file_header&)>& edit) {
    file_header h = base;
    edit(h);
    write_bytes(path, with_valid_checksums(good, h));
    return expect_error_naming(path, problem, [&] { load<counting_bloom_filter>(path); });
  };
  EXPECT_EQ(forge("bits must be at least 1", [](auto& h) { h.bits = 0; }), errc::corrupt_file);
  EXPECT_EQ(forge("4-bit counters", [](auto& h) { h.bits += 16; }), errc::corrupt_file);
  EXPECT_EQ(forge("exceed the maximum", [](auto& h) { h.bits = max_bits / 4 + 1; }),
            errc::corrupt_file);
  EXPECT_EQ(forge("hashes", [](auto& h) { h.hashes = 0; }), errc::corrupt_file);
  EXPECT_EQ(forge("flags", [](auto& h) { h.flags = 2; }), errc::unsupported);
  EXPECT_EQ(forge("reserved", [](auto& h) { h.kind_params[0] = 1; }), errc::corrupt_file);
  EXPECT_EQ(forge("payload length", [](auto& h) { h.payload_length -= 8; }), errc::corrupt_file);
  EXPECT_EQ(forge("capacity", [](auto& h) { h.capacity = 0; }), errc::corrupt_file);

  // A counter past m set, with a matching payload checksum.
  ASSERT_NE((4 * f.counters()) % 64, 0u);
  auto bytes = good;
  bytes.back() |= 0x80;
  write_bytes(path, with_valid_checksums(bytes, base));
  EXPECT_EQ(expect_error_naming(path, "past the filter's size",
                                [&] { load<counting_bloom_filter>(path); }),
            errc::corrupt_file);
  EXPECT_EQ(expect_error_naming(path, "past the filter's size",
                                [&] { map<counting_bloom_filter>(path); }),
            errc::corrupt_file);
}

}  // namespace
}  // namespace bloomkit
