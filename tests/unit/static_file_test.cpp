// Files of the static filter (kind 7, docs/FORMAT.md): loaded, mapped and in-memory filters
// answer alike; damaged and hostile files are refused naming the problem.

#include <gtest/gtest.h>
#include <xxhash.h>

#include <random>
#include <string>
#include <vector>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/static_filter.hpp"
#include "support/file_checks.hpp"
#include "support/keys.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit {
namespace {

using test::make_keys;
using test::read_bytes;
using test::temp_dir;
using test::views;

constexpr std::size_t static_entry_size = 40;

static_filter sample(std::size_t n, double fpp = 0.01) {
  return static_filter::build(views(make_keys(n, 1)), fpp);
}

// A filter of 4 shards (shard bits 2) over a small set, as a sharded builder assembles it.
static_filter four_shards(std::size_t n, std::uint32_t bits) {
  std::vector<std::uint64_t> parts[4];
  for (const auto& key : make_keys(n, 2)) {
    const std::uint64_t h = xxh3_64(key);
    parts[static_filter::shard_of(h, 2)].push_back(h);
  }
  std::vector<static_shard> shards;
  for (std::uint32_t i = 0; i < 4; ++i) {
    shards.push_back(static_shard::build(parts[i], bits, static_filter::first_seed(i)));
  }
  return static_filter::from_shards(std::ldexp(1.0, -static_cast<int>(bits)), bits, 2,
                                    std::move(shards));
}

std::vector<std::string> probes(const std::vector<std::string>& keys) {
  auto all = keys;
  const auto fresh = make_keys(20000, 99);
  all.insert(all.end(), fresh.begin(), fresh.end());
  return all;
}

void expect_round_trip(const static_filter& f, const std::vector<std::string>& keys) {
  temp_dir dir;
  save(f, dir / "s.bloom");
  const auto loaded = load<static_filter>(dir / "s.bloom");
  const auto mapped = map<static_filter>(dir / "s.bloom");
  const auto header_only = map<static_filter>(dir / "s.bloom", verify::header);
  EXPECT_FALSE(loaded.read_only());
  EXPECT_TRUE(mapped.read_only());
  for (const auto* g : {&loaded, &mapped, &header_only}) {
    EXPECT_EQ(g->size(), f.size());
    EXPECT_EQ(g->bits(), f.bits());
    EXPECT_EQ(g->fingerprint_bits(), f.fingerprint_bits());
    EXPECT_EQ(g->shard_bits(), f.shard_bits());
    EXPECT_EQ(g->target_fpp(), f.target_fpp());
    test::expect_same_answers(f, *g, probes(keys));
  }
  for (const auto& k : keys) ASSERT_TRUE(mapped.contains(k));
  // Saved again, the bytes are the same.
  save(mapped, dir / "again.bloom");
  EXPECT_EQ(read_bytes(dir / "again.bloom"), read_bytes(dir / "s.bloom"));
  // Through the registry: the kind a file holds decides.
  const any_filter any = map_any(dir / "s.bloom");
  ASSERT_TRUE(std::holds_alternative<static_filter>(any));
  EXPECT_EQ(kind_of(any), filter_kind::static_set);
  EXPECT_EQ(read_header(dir / "s.bloom").scheme, hash_scheme::xxh3_64_binary_fuse);
}

TEST(StaticFile, SaveLoadAndMapAnswerAlike) {
  for (const std::size_t n : {0, 1, 2, 50, 5000}) {
    const auto keys = make_keys(n, 1);
    expect_round_trip(sample(n), keys);
  }
  expect_round_trip(four_shards(3000, 13), make_keys(3000, 2));
  expect_round_trip(four_shards(0, 32), {});
}

TEST(StaticFile, LayoutMatchesFormatDoc) {
  temp_dir dir;
  const auto f = four_shards(1000, 9);
  save(f, dir / "s.bloom");
  const auto bytes = read_bytes(dir / "s.bloom");
  const file_header h = read_header(dir / "s.bloom");
  EXPECT_EQ(h.kind, filter_kind::static_set);
  EXPECT_EQ(static_cast<std::uint32_t>(h.kind), 7U);
  EXPECT_EQ(static_cast<std::uint32_t>(h.scheme), 4U);
  EXPECT_EQ(h.kind_params[0], 9U);
  EXPECT_EQ(h.kind_params[1], 2U);
  EXPECT_EQ(h.hashes, 3U);
  EXPECT_EQ(h.inserted, 1000U);
  EXPECT_EQ(h.bits, f.bits());
  const std::size_t table = file_header_size;
  EXPECT_EQ(test::read_field<std::uint64_t>(bytes, table + 4 * static_entry_size),
            XXH64(bytes.data() + table, 4 * static_entry_size, 0));
  std::uint64_t offset = 192;  // 4 entries and the checksum, padded to 64
  for (std::size_t i = 0; i < 4; ++i) {
    const std::size_t e = table + i * static_entry_size;
    const auto& s = f.shards()[i];
    EXPECT_EQ(test::read_field<std::uint64_t>(bytes, e), s.seed());
    EXPECT_EQ(test::read_field<std::uint64_t>(bytes, e + 8), s.keys());
    EXPECT_EQ(test::read_field<std::uint32_t>(bytes, e + 16), s.geometry().segment_length);
    EXPECT_EQ(test::read_field<std::uint32_t>(bytes, e + 20), s.geometry().segment_count);
    EXPECT_EQ(test::read_field<std::uint64_t>(bytes, e + 24), s.cells());
    EXPECT_EQ(test::read_field<std::uint64_t>(bytes, e + 32), offset);
    // Cell 5 of the shard is the 9-bit value at bit 45 of its table.
    std::uint64_t word;
    std::memcpy(&word, bytes.data() + table + offset + 45 / 8, 8);
    EXPECT_EQ((word >> (45 % 8)) & 511, s.cell(5));
    offset += (s.cells() * 9 + 63) / 64 * 8 + 8;
  }
  EXPECT_EQ(h.payload_length, offset);
  EXPECT_EQ(bytes.size(), file_header_size + offset);
}

const std::vector<test::file_reader> static_readers = test::table_readers<static_filter>();

TEST(StaticFile, EveryTruncationAndFlipIsRejected) {
  temp_dir dir;
  save(sample(3), dir / "s.bloom");  // one shard of 12 slots: 208 bytes
  const auto good = read_bytes(dir / "s.bloom");
  // The header and the shard table are guarded even by map(verify::header).
  test::expect_table_file_damage_rejected<static_filter>(good, dir / "bad.bloom",
                                                         static_entry_size + 8);
}

TEST(StaticFile, ForgedHeadersNameTheProblem) {
  temp_dir dir;
  save(four_shards(1000, 8), dir / "s.bloom");
  const auto good = read_bytes(dir / "s.bloom");
  const auto forged = [&](auto edit, const std::string& problem, errc code = errc::corrupt_file) {
    test::write_forged(good, dir / "bad.bloom", edit);
    test::expect_refused(dir / "bad.bloom", problem, static_readers, code);
  };
  forged([](file_header& h) { h.kind_params[0] = 0; }, "fingerprint bits 0 is not in 1..32");
  forged([](file_header& h) { h.kind_params[0] = 33; }, "fingerprint bits 33 is not in 1..32");
  forged([](file_header& h) { h.kind_params[1] = 33; }, "shard bits 33 is not in 0..32");
  forged([](file_header& h) { h.kind_params[1] = 32; }, "4294967296 shards' slots");
  forged(
      [](file_header& h) {
        h.kind_params[1] = 32;
        h.bits = 3ULL << 35;
      },
      "at least as long as the table of 4294967296 shards");
  forged([](file_header& h) { h.kind_params[1] = 3; }, "shard table");
  forged([](file_header& h) { h.kind_params[1] = 1; }, "shard table");
  forged([](file_header& h) { h.kind_params[3] = 1; }, "must be 0");
  forged([](file_header& h) { h.hashes = 4; }, "hashes 4 is not 3");
  forged([](file_header& h) { h.capacity += 1; }, "capacity 1001");
  forged([](file_header& h) { h.bits += 8; }, "the header says 1000 keys");
  forged([](file_header& h) { h.bits += 1; }, "bits");
  forged(
      [](file_header& h) {
        h.inserted += 1;
        h.capacity += 1;
      },
      "the shards hold 1000 keys");
  forged([](file_header& h) { h.kind_params[0] = 16; }, "shard 1 is at offset");
  forged([](file_header& h) { h.flags = 2; }, "flags 2", errc::unsupported);
  forged([](file_header& h) { h.scheme = hash_scheme::xxh3_128; }, "", errc::unsupported);
}

// A shard table edited and sealed again (its checksum and the payload's valid): what a hostile
// writer can make.
TEST(StaticFile, HostileShardTablesAreRefused) {
  temp_dir dir;
  save(four_shards(1000, 8), dir / "s.bloom");
  const auto good = read_bytes(dir / "s.bloom");
  const file_header h = read_header(dir / "s.bloom");
  const auto hostile = [&](auto edit, const std::string& problem, std::size_t reader_count = 3) {
    auto bytes = good;
    edit(bytes);
    test::write_sealed_table(bytes, h, 4, static_entry_size, dir / "bad.bloom");
    test::expect_refused(dir / "bad.bloom", problem, std::span(static_readers).first(reader_count));
  };
  const std::size_t e1 = file_header_size + static_entry_size;  // shard 1's entry
  hostile([&](auto& b) { test::write_field<std::uint32_t>(b, e1 + 16, 3); },
          "shard 1 has segment length 3");
  hostile([&](auto& b) { test::write_field<std::uint32_t>(b, e1 + 16, 1U << 19); },
          "shard 1 has segment length 524288");
  hostile([&](auto& b) { test::write_field<std::uint32_t>(b, e1 + 20, 0); },
          "shard 1 has no segment");
  hostile(
      [&](auto& b) {
        test::write_field<std::uint32_t>(b, e1 + 20,
                                         test::read_field<std::uint32_t>(b, e1 + 20) + 1);
      },
      "shard 1 has");
  // Overlapping shards: shard 1 at shard 0's offset.
  hostile(
      [&](auto& b) {
        test::write_field<std::uint64_t>(
            b, e1 + 32, test::read_field<std::uint64_t>(b, e1 - static_entry_size + 32));
      },
      "shard 1 is at offset 192");
  hostile([&](auto& b) { test::write_field<std::uint64_t>(b, e1 + 8, 1U << 30); },
          "shard 1 holds 1073741824 keys");
  hostile(
      [&](auto& b) {
        test::write_field<std::uint64_t>(b, e1 + 8, test::read_field<std::uint64_t>(b, e1 + 8) + 1);
      },
      "the shards hold 1001 keys");
  // Padding after a table's last slot (map(verify::header) does not read the tables).
  hostile([&](auto& b) { b[b.size() - 1] = 1; }, "padding past the slots of shard 3", 2);
}

TEST(StaticFile, AMappedFileCutUnderItIsAnErrorNotAnAnswer) {
  temp_dir dir;
  const auto keys = make_keys(200000, 3);
  save(static_filter::build(views(keys), 0.01), dir / "s.bloom");
  const auto mapped = map<static_filter>(dir / "s.bloom");
  test::expect_cut_file_is_an_error(mapped, dir / "s.bloom", keys);
}

TEST(StaticFile, CreateIsRefusedPointingToBuild) {
  kind_request r;
  r.initial_capacity = 100;
  r.target_fpp = 0.01;
  try {
    create_any("static", r);
    FAIL() << "created";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("bloomkit build"), std::string::npos) << e.what();
  }
  EXPECT_EQ(parse_kind("static"), filter_kind::static_set);
  EXPECT_EQ(to_string(filter_kind::static_set), "static");
}

}  // namespace
}  // namespace bloomkit
