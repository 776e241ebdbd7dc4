// Files of the cuckoo filter (kind 8, docs/FORMAT.md): loaded, mapped and in-memory filters
// answer alike, a mapped one is read-only; damaged and hostile files are refused naming the
// problem.

#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstring>
#include <string>
#include <vector>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/cuckoo_filter.hpp"
#include "bloomkit/file.hpp"
#include "support/file_checks.hpp"
#include "support/keys.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit {
namespace {

using test::make_keys;
using test::read_bytes;
using test::temp_dir;
using test::views;

constexpr std::size_t cuckoo_entry_size = 40;

// A chain of `tables` tables (expansion 2) holding keys 0..n of set 1.
cuckoo_filter chain(std::size_t n, std::size_t tables) {
  cuckoo_filter f({.capacity = 100, .target_fpp = 0.01, .expansion = 2});
  for (const auto& k : make_keys(n, 1)) EXPECT_TRUE(f.insert(k));
  EXPECT_EQ(f.tables().size(), tables);
  return f;
}

void expect_round_trip(const cuckoo_filter& f, const std::vector<std::string>& keys) {
  temp_dir dir;
  save(f, dir / "c.bloom");
  const auto loaded = load<cuckoo_filter>(dir / "c.bloom");
  const auto mapped = map<cuckoo_filter>(dir / "c.bloom");
  const auto header_only = map<cuckoo_filter>(dir / "c.bloom", verify::header);
  EXPECT_TRUE(loaded == f);
  EXPECT_FALSE(loaded.read_only());
  EXPECT_TRUE(mapped.read_only());
  auto probes = keys;
  const auto fresh = make_keys(5000, 99);
  probes.insert(probes.end(), fresh.begin(), fresh.end());
  for (const auto* g : {&loaded, &mapped, &header_only}) {
    EXPECT_EQ(g->items(), f.items());
    EXPECT_EQ(g->options(), f.options());
    test::expect_same_answers(f, *g, probes);
  }
  for (const auto& k : keys) ASSERT_EQ(mapped.count(k), f.count(k));
  // A mapped filter answers but takes no writes.
  auto writable = mapped;
  EXPECT_EQ(test::thrown_by([&] { writable.insert("x"); })->code(), errc::read_only);
  EXPECT_EQ(test::thrown_by([&] { writable.remove(keys.empty() ? "x" : keys[0]); })->code(),
            errc::read_only);
  // A loaded one takes them and keeps removing what it holds.
  auto copy = loaded;
  if (!keys.empty()) {
    EXPECT_TRUE(copy.remove(keys[0]));
  }
  // Saved again, the bytes are the same.
  save(mapped, dir / "again.bloom");
  EXPECT_EQ(read_bytes(dir / "again.bloom"), read_bytes(dir / "c.bloom"));
  const any_filter any = map_any(dir / "c.bloom");
  ASSERT_TRUE(std::holds_alternative<cuckoo_filter>(any));
  EXPECT_EQ(kind_of(any), filter_kind::cuckoo);
  EXPECT_EQ(read_header(dir / "c.bloom").scheme, hash_scheme::xxh3_64_cuckoo);
}

TEST(CuckooFile, SaveLoadAndMapAnswerAlike) {
  for (const std::size_t n : {0, 1, 50, 3000}) {
    auto f = cuckoo_filter::for_capacity(3000, 0.001);
    const auto keys = make_keys(n, 1);
    ASSERT_EQ(f.insert_many(views(keys)), n);
    expect_round_trip(f, keys);
  }
  expect_round_trip(chain(600, 3), make_keys(600, 1));
}

TEST(CuckooFile, LayoutMatchesFormatDoc) {
  temp_dir dir;
  const auto f = chain(300, 2);
  save(f, dir / "c.bloom");
  const auto bytes = read_bytes(dir / "c.bloom");
  const file_header h = read_header(dir / "c.bloom");
  EXPECT_EQ(static_cast<std::uint32_t>(h.kind), 8U);
  EXPECT_EQ(static_cast<std::uint32_t>(h.scheme), 5U);
  EXPECT_EQ(h.kind_params[0], f.bucket_size());
  EXPECT_EQ(h.kind_params[1], 500U);  // max kicks
  EXPECT_EQ(h.kind_params[2], 2U);    // expansion
  EXPECT_EQ(h.kind_params[3], 2U);    // tables
  EXPECT_EQ(h.hashes, 2U);
  EXPECT_EQ(h.capacity, 100U);
  EXPECT_EQ(h.inserted, 300U);
  EXPECT_EQ(h.bits, f.cells());
  const std::size_t table = file_header_size;
  EXPECT_EQ(test::read_field<std::uint64_t>(bytes, table + 2 * cuckoo_entry_size),
            XXH64(bytes.data() + table, 2 * cuckoo_entry_size, 0));
  std::uint64_t offset = 128;  // 2 entries and the checksum, padded to 64
  for (std::size_t i = 0; i < 2; ++i) {
    const std::size_t e = table + i * cuckoo_entry_size;
    const auto& t = f.tables()[i];
    EXPECT_EQ(test::read_field<std::uint64_t>(bytes, e), t.buckets());
    EXPECT_EQ(test::read_field<std::uint32_t>(bytes, e + 8), t.fingerprint_bits());
    EXPECT_EQ(test::read_field<std::uint32_t>(bytes, e + 12), t.bucket_size());
    EXPECT_EQ(test::read_field<std::uint64_t>(bytes, e + 16), t.capacity());
    EXPECT_EQ(test::read_field<std::uint64_t>(bytes, e + 24), t.items());
    EXPECT_EQ(test::read_field<std::uint64_t>(bytes, e + 32), offset);
    // Slot 2 of bucket 3 is the f-bit value at bit (3 b + 2) f of the table.
    const std::uint64_t bit = (3 * t.bucket_size() + 2) * t.fingerprint_bits();
    std::uint64_t word;
    std::memcpy(&word, bytes.data() + table + offset + bit / 8, 8);
    EXPECT_EQ((word >> (bit % 8)) & ((1U << t.fingerprint_bits()) - 1), t.slot(3, 2));
    const std::uint64_t length =
        cuckoo_table::bytes_for(t.buckets(), t.bucket_size(), t.fingerprint_bits());
    EXPECT_EQ(t.words().byte_size(), length);
    offset = i == 0 ? (offset + length + 63) / 64 * 64 : offset + length;
  }
  EXPECT_EQ(h.payload_length, offset);
  EXPECT_EQ(bytes.size(), file_header_size + offset);
}

const std::vector<test::file_reader> cuckoo_readers = test::table_readers<cuckoo_filter>();

TEST(CuckooFile, EveryTruncationAndFlipIsRejected) {
  temp_dir dir;
  auto f = cuckoo_filter::for_capacity(3, 0.01);
  ASSERT_TRUE(f.insert("a"));
  save(f, dir / "c.bloom");
  const auto good = read_bytes(dir / "c.bloom");
  test::expect_table_file_damage_rejected<cuckoo_filter>(good, dir / "bad.bloom",
                                                         cuckoo_entry_size + 8);
}

TEST(CuckooFile, ForgedHeadersNameTheField) {
  temp_dir dir;
  save(chain(300, 2), dir / "c.bloom");
  const auto good = read_bytes(dir / "c.bloom");
  const auto forged = [&](auto edit, const std::string& problem, errc code = errc::corrupt_file) {
    test::write_forged(good, dir / "bad.bloom", edit);
    test::expect_refused(dir / "bad.bloom", problem, cuckoo_readers, code);
  };
  forged([](file_header& h) { h.kind_params[0] = 1; }, "bucket size 1 is not in 2..8");
  forged([](file_header& h) { h.kind_params[0] = 9; }, "bucket size 9 is not in 2..8");
  forged([](file_header& h) { h.kind_params[0] = 3; }, "table 0 has");
  forged([](file_header& h) { h.kind_params[1] = 0; }, "max kicks 0");
  forged([](file_header& h) { h.kind_params[2] = 70000; }, "expansion 70000");
  forged([](file_header& h) { h.kind_params[2] = 0; }, "table count 2");
  forged([](file_header& h) { h.kind_params[2] = 3; }, "table 1 has");
  forged([](file_header& h) { h.kind_params[3] = 33; }, "table count 33");
  forged([](file_header& h) { h.kind_params[3] = 1; }, "table of tables");
  forged([](file_header& h) { h.hashes = 3; }, "hashes 3 is not 2");
  forged([](file_header& h) { h.capacity = 0; }, "capacity");
  forged([](file_header& h) { h.capacity = 101; }, "table 0 has");
  forged([](file_header& h) { h.target_fpp = 1.5; }, "target fpp");
  forged([](file_header& h) { h.target_fpp = 0.0001; }, "table 0 has");
  forged([](file_header& h) { h.inserted += 1; }, "the header says 301 items");
  forged([](file_header& h) { h.bits += 1; }, "the tables hold 300 items");
  forged([](file_header& h) { h.flags = 2; }, "flags 2", errc::unsupported);
  forged([](file_header& h) { h.scheme = hash_scheme::xxh3_128; }, "", errc::unsupported);
}

// A table of tables edited and sealed again (its checksum and the payload's valid): what a
// hostile writer can make.
TEST(CuckooFile, HostileTablesAreRefused) {
  temp_dir dir;
  save(chain(300, 2), dir / "c.bloom");
  const auto good = read_bytes(dir / "c.bloom");
  const file_header h = read_header(dir / "c.bloom");
  const auto hostile = [&](auto edit, const std::string& problem, std::size_t reader_count = 3) {
    auto bytes = good;
    edit(bytes);
    test::write_sealed_table(bytes, h, 2, cuckoo_entry_size, dir / "bad.bloom");
    test::expect_refused(dir / "bad.bloom", problem, std::span(cuckoo_readers).first(reader_count));
  };
  const std::size_t e1 = file_header_size + cuckoo_entry_size;  // table 1's entry
  hostile([&](auto& b) { test::write_field<std::uint64_t>(b, e1, 1ULL << 40); }, "table 1 has");
  hostile([&](auto& b) { test::write_field<std::uint32_t>(b, e1 + 8, 40); }, "table 1 has");
  hostile([&](auto& b) { test::write_field<std::uint32_t>(b, e1 + 12, 8); }, "table 1 has");
  hostile([&](auto& b) { test::write_field<std::uint64_t>(b, e1 + 16, 7); }, "table 1 has");
  hostile([&](auto& b) { test::write_field<std::uint64_t>(b, e1 + 24, 1ULL << 40); },
          "table 1 holds 1099511627776 items");
  hostile([&](auto& b) { test::write_field<std::uint64_t>(b, e1 + 32, 128); },
          "table 1 is at offset 128");
  hostile(
      [&](auto& b) {
        test::write_field<std::uint64_t>(b, e1 + 24,
                                         test::read_field<std::uint64_t>(b, e1 + 24) + 1);
      },
      "the tables hold 301 items");
  // Items that are not the table's non-zero slots, and bytes past the slots (map(verify::header)
  // does not read the tables).
  hostile(
      [&](auto& b) {
        test::write_field<std::uint64_t>(b, e1 + 24,
                                         test::read_field<std::uint64_t>(b, e1 + 24) + 1);
        test::write_field<std::uint64_t>(
            b, e1 - cuckoo_entry_size + 24,
            test::read_field<std::uint64_t>(b, e1 - cuckoo_entry_size + 24) - 1);
      },
      "says it holds", 2);
  hostile([&](auto& b) { b[b.size() - 1] = 1; }, "padding past the slots of table 1", 2);
}

TEST(CuckooFile, AMappedFileCutUnderItIsAnErrorNotAnAnswer) {
  temp_dir dir;
  const auto keys = make_keys(100000, 3);
  auto f = cuckoo_filter::for_capacity(keys.size(), 0.01);
  ASSERT_EQ(f.insert_many(views(keys)), keys.size());
  save(f, dir / "c.bloom");
  const auto mapped = map<cuckoo_filter>(dir / "c.bloom");
  test::expect_cut_file_is_an_error(mapped, dir / "c.bloom", keys);
}

TEST(CuckooFile, CreatedThroughTheRegistry) {
  kind_request r;
  r.initial_capacity = 1000;
  r.target_fpp = 0.01;
  const auto any = create_any("cuckoo", r);
  ASSERT_TRUE(any && std::holds_alternative<cuckoo_filter>(*any));
  EXPECT_EQ(std::get<cuckoo_filter>(*any).bucket_size(),
            cuckoo_filter::sizing_for(1000, 0.01).bucket_size);
  EXPECT_EQ(parse_kind("cuckoo"), filter_kind::cuckoo);
  EXPECT_EQ(to_string(filter_kind::cuckoo), "cuckoo");
  EXPECT_TRUE(counts_repeats<cuckoo_filter>);
  EXPECT_TRUE(takes_inserts<cuckoo_filter>);
}

}  // namespace
}  // namespace bloomkit
