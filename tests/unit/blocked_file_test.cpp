// Files of the blocked filter: round trips, mapping, and every kind of damage.

#include <gtest/gtest.h>
#include <xxhash.h>
#include "bloomkit/detail/filter_access.hpp"

#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "bloomkit/file.hpp"
#include "support/file_checks.hpp"
#include "support/keys.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit {
namespace {

using test::expect_error_naming;
using test::make_keys;
using test::read_bytes;
using test::temp_dir;
using test::views;

blocked_bloom_filter sample_blocked_filter(std::uint64_t n = 5000, double p = 0.01,
                                           std::uint64_t set = 1) {
  auto f = blocked_bloom_filter::for_capacity(n, p);
  f.insert_many(views(make_keys(n, set)));
  return f;
}

TEST(BlockedFile, SaveLoadIsBitIdentical) {
  temp_dir dir;
  for (std::uint64_t n : {1ull, 63ull, 5000ull, 123457ull}) {
    const auto f = sample_blocked_filter(n, 0.01, n);
    save(f, dir / "f.bloom");
    const auto g = load<blocked_bloom_filter>(dir / "f.bloom");
    EXPECT_EQ(f, g);
    EXPECT_EQ(g.blocks(), f.blocks());
    EXPECT_EQ(g.capacity(), f.capacity());
    EXPECT_EQ(g.target_fpp(), f.target_fpp());
    EXPECT_EQ(g.inserted(), f.inserted());
    EXPECT_FALSE(g.read_only());
    save(g, dir / "g.bloom");
    EXPECT_EQ(read_bytes(dir / "f.bloom"), read_bytes(dir / "g.bloom"));
  }
}

// docs/FORMAT.md, "Flags": only classic files may set a flag; a blocked file with the
// integer-key flag is refused by every reader as an unknown flag.
TEST(BlockedFile, IntegerKeyFlagIsRefused) {
  temp_dir dir;
  save(sample_blocked_filter(1000, 0.01), dir / "f.bloom");
  const auto path = dir / "flagged.bloom";
  test::write_forged(read_bytes(dir / "f.bloom"), path,
                     [](file_header& h) { h.flags = file_flag_int64_keys; });
  for (const auto& read : test::all_readers<blocked_bloom_filter>()) {
    EXPECT_EQ(expect_error_naming(path, "header flags 1 are not supported", [&] { read(path); }),
              errc::unsupported);
  }
}

TEST(BlockedFile, LayoutMatchesFormatDoc) {
  temp_dir dir;
  const auto f = sample_blocked_filter(1000, 0.01);
  save(f, dir / "f.bloom");
  const auto bytes = read_bytes(dir / "f.bloom");
  ASSERT_EQ(bytes.size(), file_header_size + f.bits() / 8);
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
  EXPECT_EQ(u32(16), 2u);  // kind: blocked
  EXPECT_EQ(u32(20), 2u);  // scheme: xxh3-64-split-block
  EXPECT_EQ(u64(24), f.bits());
  EXPECT_EQ(u64(24) % 256, 0u);
  EXPECT_EQ(u32(32), 8u);
  EXPECT_EQ(u64(40), 1000u);
  EXPECT_EQ(u64(64), 128u);
  EXPECT_EQ(u64(72), f.bits() / 8);
  EXPECT_EQ(u64(80), XXH64(bytes.data() + 128, f.byte_size(), 0));
  for (std::size_t off = 88; off < 120; off += 8) EXPECT_EQ(u64(off), 0u);
  EXPECT_EQ(std::memcmp(bytes.data() + 128, f.storage().data(), f.byte_size()), 0);
  const auto h = read_header(dir / "f.bloom");
  EXPECT_EQ(h.kind, filter_kind::blocked);
  EXPECT_EQ(to_string(h.kind), "blocked");
  EXPECT_TRUE(is_known(filter_kind::blocked));
  EXPECT_EQ(h.scheme, hash_scheme::xxh3_64_split_block);
}

TEST(BlockedFile, MapAnswersEqualLoadAnswers) {
  temp_dir dir;
  const auto f = sample_blocked_filter(50'000, 0.01, 77);
  save(f, dir / "f.bloom");
  const auto loaded = load<blocked_bloom_filter>(dir / "f.bloom");
  for (auto check : {verify::full, verify::header}) {
    const auto mapped = map<blocked_bloom_filter>(dir / "f.bloom", check);
    EXPECT_TRUE(mapped.read_only());
    EXPECT_EQ(mapped, loaded);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(mapped.storage().data()) % 64, 0u);
    for (std::uint64_t set : {77ull, 78ull}) {
      const auto keys = make_keys(20'000, set);
      const auto v = views(keys);
      auto a = std::make_unique<bool[]>(keys.size());
      auto b = std::make_unique<bool[]>(keys.size());
      EXPECT_EQ(mapped.contains_many(v, {a.get(), v.size()}),
                loaded.contains_many(v, {b.get(), v.size()}));
      for (std::size_t i = 0; i < v.size(); ++i) {
        ASSERT_EQ(a[i], b[i]);
        ASSERT_EQ(mapped.contains(v[i]), a[i]);
      }
    }
  }
}

TEST(BlockedFile, MappedFilterIsReadOnly) {
  temp_dir dir;
  save(sample_blocked_filter(), dir / "f.bloom");
  auto mapped = map<blocked_bloom_filter>(dir / "f.bloom");
  for (auto write : std::initializer_list<std::function<void()>>{
           [&] { mapped.insert("x"); }, [&] { mapped.insert_concurrent("x"); },
           [&] { mapped.insert_many(std::vector<std::string_view>{"y"}); },
           [&] { mapped.insert_many_concurrent(std::vector<std::string_view>{"y"}); },
           [&] { mapped.clear(); }, [&] { mapped.merge(mapped); }}) {
    try {
      write();
      FAIL() << "write to a mapped filter";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::read_only);
    }
  }
  auto owned = load<blocked_bloom_filter>(dir / "f.bloom");
  owned.merge(mapped);  // reads through the mapping
  EXPECT_EQ(owned, mapped);
}

// A file of one kind is not read as the other.
TEST(BlockedFile, KindsDoNotMix) {
  temp_dir dir;
  save(sample_blocked_filter(), dir / "blocked.bloom");
  save(bloom_filter::for_capacity(100, 0.01), dir / "classic.bloom");
  for (auto fn : std::initializer_list<std::function<void()>>{
           [&] { load<bloom_filter>(dir / "blocked.bloom"); },
           [&] { map<bloom_filter>(dir / "blocked.bloom", verify::full); }}) {
    EXPECT_EQ(expect_error_naming(dir / "blocked.bloom", fn), errc::unsupported);
  }
  try {
    load<blocked_bloom_filter>(dir / "classic.bloom");
    FAIL();
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::unsupported);
    EXPECT_NE(std::string(e.what()).find("holds a classic filter, not a blocked one"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(map<blocked_bloom_filter>(dir / "classic.bloom", verify::header), error);
}

TEST(BlockedFile, EveryTruncationIsRejected) {
  temp_dir dir;
  save(sample_blocked_filter(300, 0.05), dir / "f.bloom");
  test::expect_every_truncation_rejected(read_bytes(dir / "f.bloom"), dir / "bad.bloom",
                                         test::all_readers<blocked_bloom_filter>());
}

TEST(BlockedFile, EveryFlippedByteIsRejected) {
  temp_dir dir;
  save(sample_blocked_filter(300, 0.05), dir / "f.bloom");
  test::expect_every_flip_rejected(read_bytes(dir / "f.bloom"), dir / "bad.bloom",
                                   test::full_readers<blocked_bloom_filter>(),
                                   test::header_readers<blocked_bloom_filter>());
}

// Headers with a valid checksum but impossible contents for a blocked filter.
TEST(BlockedFile, InconsistentFieldsAreRejected) {
  temp_dir dir;
  save(sample_blocked_filter(1000, 0.01), dir / "f.bloom");
  const auto good = read_bytes(dir / "f.bloom");
  const auto path = dir / "forged.bloom";
  auto forge = [&](const std::function<void(file_header&)>& edit) {
    test::write_forged(good, path, edit);
    return expect_error_naming(path, [&] { load<blocked_bloom_filter>(path); });
  };
  EXPECT_EQ(forge([](file_header& h) { h.bits -= 64; }), errc::corrupt_file);
  EXPECT_EQ(forge([](file_header& h) {
              h.bits -= 64;  // payload length consistent with bits, but not whole blocks
              h.payload_length -= 8;
            }),
            errc::corrupt_file);
  EXPECT_EQ(forge([](file_header& h) { h.bits = 0; }), errc::corrupt_file);
  EXPECT_EQ(forge([](file_header& h) { h.hashes = 9; }), errc::corrupt_file);  // no layout
  EXPECT_EQ(forge([](file_header& h) { h.hashes = 17; }), errc::corrupt_file);
  EXPECT_EQ(forge([](file_header& h) { h.hashes = 0; }), errc::corrupt_file);
  EXPECT_EQ(forge([](file_header& h) { h.capacity = 0; }), errc::corrupt_file);
  EXPECT_EQ(forge([](file_header& h) { h.target_fpp = 0; }), errc::corrupt_file);
  EXPECT_EQ(forge([](file_header& h) { h.payload_offset = 64; }), errc::corrupt_file);
  EXPECT_EQ(forge([](file_header& h) { h.payload_length += 32; }), errc::corrupt_file);
  EXPECT_EQ(forge([](file_header& h) { h.payload_checksum ^= 1; }), errc::corrupt_file);
  EXPECT_EQ(forge([](file_header& h) { h.flags = 2; }), errc::unsupported);
  EXPECT_EQ(forge([](file_header& h) { h.kind_params[0] = 256; }), errc::corrupt_file);
  EXPECT_EQ(forge([](file_header& h) { h.scheme = hash_scheme::xxh3_128; }), errc::unsupported);
  EXPECT_EQ(forge([](file_header& h) { h.kind = static_cast<filter_kind>(99); }),
            errc::unsupported);
  // The untouched file still loads (the forgeries above were rejected for their edits).
  EXPECT_NO_THROW(load<blocked_bloom_filter>(dir / "f.bloom"));
}

TEST(BlockedFile, CountsBeyondTwoToThe32RoundTrip) {
  temp_dir dir;
  const std::uint64_t inserted = (std::uint64_t{1} << 33) + 5;
  const filter_config config{256 * 1000, 8, 10'000'000'000ull, 0.01};
  const auto f =
      detail::filter_access::make<blocked_bloom_filter>(config, bit_array(config.cells), inserted);
  EXPECT_EQ(f.estimated_fpp(), 0.0);  // it follows the bits (none set here), not the count
  save(f, dir / "big-counts.bloom");
  const auto g = load<blocked_bloom_filter>(dir / "big-counts.bloom");
  EXPECT_EQ(g.inserted(), inserted);
  EXPECT_EQ(g.capacity(), 10'000'000'000ull);
}

}  // namespace
}  // namespace bloomkit
