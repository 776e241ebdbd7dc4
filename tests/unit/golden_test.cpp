// The golden vectors of the native formats (tests/data/golden, tools/golden/generate): every
// native kind and hash scheme as committed bytes, answers, digests and bit positions. Any change
// to the salts, the block choice, the probe formula, the header layout or the checksums fails
// here, even when writer and reader change together. Regenerating them is a format change
// (docs/FORMAT.md, "Golden vectors").

#include <gtest/gtest.h>
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "bloomkit/compat/any_filter.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/hashing.hpp"
#include "support/golden_build.hpp"
#include "support/golden_reference.hpp"
#include "support/golden_vectors.hpp"
#include "support/temp_dir.hpp"

#ifndef BLOOMKIT_GOLDEN_DATA
#error "BLOOMKIT_GOLDEN_DATA must name tests/data/golden"
#endif

namespace bloomkit {
namespace {

namespace ref = golden;
using test::golden_vector;
using test::insert_path;
using test::read_bytes;
// The vectors hold the peers' schemes too (Guava's, with integer keys).
using compat::load_any;
using compat::map_any;
using compat::save;

// The vectors whose file is committed beside them, or (large) those of filters too large to
// commit, of which only the size and checksum are.
std::vector<std::filesystem::path> golden_files(bool large = false) {
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(BLOOMKIT_GOLDEN_DATA)) {
    auto bloom = entry.path();
    bloom.replace_extension(".bloom");
    if (entry.path().extension() == ".txt" && std::filesystem::exists(bloom) != large) {
      out.push_back(entry.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool sharded(const golden_vector& v) {
  return v.shards != 0;
}

class golden_file : public ::testing::TestWithParam<std::filesystem::path> {
 protected:
  void SetUp() override {
    v_ = test::read_golden(GetParam());
    committed_ = read_bytes(v_.file);
    ASSERT_FALSE(committed_.empty()) << v_.file;
  }

  // The committed file rebuilt from the vector's keys by `how`.
  std::vector<unsigned char> rebuilt(insert_path how, bool simd = true) const {
    test::temp_dir dir;
    test::build_golden(v_, dir / "f.bloom", how, simd);
    return read_bytes(dir / "f.bloom");
  }

  // contains() of the committed file: the library's filter, or for a sharded Redis copy (which
  // no filter class loads) the document's positions in its bits.
  std::vector<bool> answers(bool mapped) const {
    std::vector<bool> out;
    if (sharded(v_)) {
      const auto raw = load_raw(v_.file);
      for (const auto& [key, expected] : v_.probes) {
        bool all = true;
        for (auto i : ref::sharded_positions(ref::xxh3_128_of(key), v_.bits, v_.hashes, v_.shards))
          all = all && raw.bits.test(i);
        out.push_back(all);
      }
      return out;
    }
    const auto f = mapped ? map_any(v_.file) : load_any(v_.file);
    for (const auto& [key, expected] : v_.probes) {
      out.push_back(std::visit(
          [&](const auto& filter) {
            const bool by_bytes = test::contains_key(filter, key);
            if constexpr (requires(std::int64_t v) { filter.contains(v); }) {
              if (v_.key_type == "long") {
                EXPECT_EQ(filter.contains(test::as_int64(key)), by_bytes);
              }
            }
            return by_bytes;
          },
          f));
    }
    return out;
  }

  golden_vector v_;
  std::vector<unsigned char> committed_;
};

TEST_P(golden_file, HeaderHoldsTheVectorsParameters) {
  const auto h = read_header(v_.file);
  EXPECT_EQ(std::string(committed_.begin(), committed_.begin() + 8), "BLOOMKIT");
  EXPECT_EQ(h.format_version, 1u);
  EXPECT_EQ(to_string(h.kind), v_.kind);
  EXPECT_EQ(to_string(h.scheme), v_.scheme);
  EXPECT_EQ(h.bits, v_.bits);
  EXPECT_EQ(h.hashes, v_.hashes);
  EXPECT_EQ(h.capacity, v_.capacity);
  EXPECT_EQ(h.target_fpp, v_.target_fpp);
  EXPECT_EQ(h.inserted, v_.inserted);
  EXPECT_EQ(h.flags, v_.flags);
  EXPECT_EQ(h.payload_offset, file_header_size);
  EXPECT_EQ(h.payload_offset + h.payload_length, committed_.size());
  if (sharded(v_)) {
    EXPECT_EQ(h.kind_params[0], v_.shards);
  }
  if (v_.kind == "scalable") {
    EXPECT_EQ(h.kind_params[0], v_.growth);
    double tightening = 0;
    std::memcpy(&tightening, &h.kind_params[1], sizeof tightening);
    EXPECT_EQ(tightening, v_.tightening);
    EXPECT_EQ(h.kind_params[2], v_.memory_ceiling);
    EXPECT_EQ(h.kind_params[3], v_.sub_filters);
  }
  if (v_.kind == "window") {
    EXPECT_EQ(h.kind_params[0], v_.window);
    EXPECT_EQ(h.kind_params[1], 1u);  // inserts
    EXPECT_EQ(h.kind_params[2], v_.slices);
    EXPECT_EQ(h.kind_params[3], v_.operations.size());  // every insert counts
  }
}

TEST_P(golden_file, LoadedAndMappedFileAnswersAsCommitted) {
  for (bool mapped : {false, true}) {
    const auto got = answers(mapped);
    ASSERT_EQ(got.size(), v_.probes.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i], v_.probes[i].second)
          << (mapped ? "mapped " : "loaded ") << test::key_text(v_.probes[i].first, v_.key_type);
    }
  }
}

TEST_P(golden_file, InsertingTheKeysGivesTheCommittedBytes) {
  EXPECT_TRUE(rebuilt(insert_path::one_by_one) == committed_)
      << v_.name << ": the bytes of the filter changed: a format change (docs/FORMAT.md)";
}

TEST_P(golden_file, BatchedInsertsGiveTheCommittedBytes) {
  if (sharded(v_)) GTEST_SKIP() << "the sharded layout has no batched local insert";
  EXPECT_TRUE(rebuilt(insert_path::batched) == committed_) << v_.name;
}

TEST_P(golden_file, LoadedAndSavedAgainGivesTheCommittedBytes) {
  test::temp_dir dir;
  const auto out = dir / "again.bloom";
  if (sharded(v_)) {
    const auto raw = load_raw(v_.file);
    save_raw(raw.header, raw.bits, out);
  } else {
    save(load_any(v_.file), out, read_header(v_.file).keys());
  }
  EXPECT_TRUE(read_bytes(out) == committed_) << v_.name;
}

// The committed cell at `index` (bit, or counter of a counting filter) read straight from the
// file's bytes: docs/FORMAT.md's payload layout, no library.
unsigned committed_cell(const std::vector<unsigned char>& file, const golden_vector& v,
                        std::uint64_t index) {
  const std::size_t payload = file_header_size;
  if (v.kind == "counting") return (file.at(payload + index / 2) >> (4 * (index % 2))) & 15u;
  return (file.at(payload + index / 8) >> (index % 8)) & 1u;
}

// The digests and positions of a vector: as docs/FORMAT.md computes them, as the library sets
// them, and (with the committed bytes) set in the committed file for inserted keys.
void check_placements(const golden_vector& v, const std::vector<unsigned char>* committed) {
  ASSERT_GE(v.placements.size(), 6u);
  std::set<std::string> present;
  for (const auto& op : v.operations) {
    if (op.remove) present.erase(op.key);
    if (!op.remove) present.insert(op.key);
  }
  for (const auto& p : v.placements) {
    SCOPED_TRACE(test::key_text(p.key, v.key_type));
    if (test::grouped_window(v)) {
      const auto d = ref::xxh3_128_of(p.key);
      ASSERT_EQ(p.digest, (std::vector<std::uint64_t>{d.h1, d.h2}));
      EXPECT_EQ(p.positions, ref::window_group_positions(d, v.bits, v.slices, v.hashes));
    } else if (v.kind == "blocked" || v.kind == "window") {
      // A window's slots are blocked filters of bits / (slices + 1) bits each.
      const std::uint64_t bits = v.kind == "window" ? v.bits / (v.slices + 1) : v.bits;
      ASSERT_EQ(p.digest, std::vector<std::uint64_t>{ref::xxh3_64_of(p.key)});
      EXPECT_EQ(xxh3_64(p.key), p.digest[0]);
      EXPECT_EQ(p.block, ref::split_block_of(p.digest[0], bits));
      EXPECT_EQ(p.positions, ref::split_block_positions(p.digest[0], bits));
      for (std::size_t w = 0; w < 8; ++w) EXPECT_EQ(p.positions[w] / 32, *p.block * 8 + w);
    } else {
      const auto d = ref::xxh3_128_of(p.key);
      ASSERT_EQ(p.digest, (std::vector<std::uint64_t>{d.h1, d.h2}));
      EXPECT_EQ(xxh3_128(p.key), (digest128{d.h1, d.h2}));
    }
    if (v.kind == "classic" || v.kind == "counting") {
      // The probe values before the range reduction; over 2^64 - 1 bits the library's probe i is
      // g_i - 1 (g_i > 0), which shows every bit of g_i.
      const auto d = ref::xxh3_128_of(p.key);
      EXPECT_EQ(p.probe_values, ref::xxh3_128_probe_values(d, v.hashes));
      probe_sequence wide(xxh3_128(p.key), ~std::uint64_t{0});
      for (auto g : p.probe_values) EXPECT_EQ(wide.next(), g == 0 ? 0 : g - 1);
    }
    if (sharded(v)) {
      const auto d = ref::xxh3_128_of(p.key);
      EXPECT_EQ(p.shard, ref::shard_of(d, v.shards));
      EXPECT_EQ(p.positions, ref::sharded_positions(d, v.bits, v.hashes, v.shards));
      EXPECT_EQ(test::sharded_layout(v).shard_of(xxh3_128(p.key)), p.shard);
    } else if (v.kind == "classic" || v.kind == "counting") {
      EXPECT_EQ(p.positions, ref::xxh3_128_positions(ref::xxh3_128_of(p.key), v.bits, v.hashes));
      probe_sequence seq(xxh3_128(p.key), v.bits);
      for (auto expected : p.positions) EXPECT_EQ(seq.next(), expected);
    }
    if (v.kind == "scalable") {
      const auto chain = std::get<scalable_bloom_filter>(load_any(v.file));
      ASSERT_EQ(p.sub_positions.size(), chain.sub_filter_count());
      for (std::size_t i = 0; i < p.sub_positions.size(); ++i) {
        const auto& sub = chain.sub_filters()[i];
        EXPECT_EQ(p.sub_positions[i],
                  ref::xxh3_128_positions(ref::xxh3_128_of(p.key), sub.bits(), sub.hashes()));
        EXPECT_EQ(test::library_positions(v, p.key, sub.bits(), sub.hashes()),
                  test::counted(p.sub_positions[i], false));
      }
      continue;
    }
    // A filter holding the key alone sets exactly these bits (counters: as often as listed).
    EXPECT_EQ(test::library_positions(v, p.key), test::counted(p.positions, v.kind == "counting"));
    // And the committed bytes have them set for a key that was inserted (a window's slot
    // positions are relative to its slot: its file layout is pinned by the committed bytes).
    if (committed != nullptr && present.count(p.key) != 0 && v.kind != "window") {
      for (auto i : p.positions) EXPECT_NE(committed_cell(*committed, v, i), 0u) << i;
    }
  }
}

TEST_P(golden_file, DigestsAndPositionsAreTheDocumentsAndTheLibrarys) {
  if (!test::placed(v_)) GTEST_SKIP() << "positions: the peers' vectors or the parts' kinds";
  check_placements(v_, &committed_);
}

INSTANTIATE_TEST_SUITE_P(vectors, golden_file, ::testing::ValuesIn(golden_files()),
                         [](const auto& info) { return test::test_name(info.param); });

// Filters of 1 MiB and more, whose inserts and lookups take the pipelined paths.
class golden_large : public ::testing::TestWithParam<std::filesystem::path> {
 protected:
  void SetUp() override { v_ = test::read_golden(GetParam()); }
  golden_vector v_;
};

TEST_P(golden_large, InsertingTheKeysGivesTheCommittedChecksum) {
  for (auto how : {insert_path::one_by_one, insert_path::batched}) {
    test::temp_dir dir;
    test::build_golden(v_, dir / "f.bloom", how);
    const auto bytes = read_bytes(dir / "f.bloom");
    EXPECT_EQ(bytes.size(), v_.file_size);
    EXPECT_EQ(XXH64(bytes.data(), bytes.size(), 0), v_.file_xxh64)
        << v_.name << ": the bytes of the filter changed: a format change (docs/FORMAT.md)";
    // Batched and single lookups, loaded and mapped, answer as committed.
    for (bool mapped : {false, true}) {
      const auto f = mapped ? map_any(dir / "f.bloom") : load_any(dir / "f.bloom");
      std::vector<std::string_view> keys;
      for (const auto& probe : v_.probes) keys.push_back(probe.first);
      auto answers = std::make_unique<bool[]>(keys.size());
      std::visit(
          [&](const auto& filter) {
            filter.contains_many(keys, {answers.get(), keys.size()});
          },
          f);
      for (std::size_t i = 0; i < keys.size(); ++i) {
        EXPECT_EQ(answers[i], v_.probes[i].second) << i;
        EXPECT_EQ(std::visit([&](const auto& filter) { return filter.contains(keys[i]); }, f),
                  v_.probes[i].second)
            << i;
      }
    }
  }
}

TEST_P(golden_large, DigestsAndPositionsAreTheDocumentsAndTheLibrarys) {
  check_placements(v_, nullptr);
}

INSTANTIATE_TEST_SUITE_P(vectors, golden_large, ::testing::ValuesIn(golden_files(true)),
                         [](const auto& info) { return test::test_name(info.param); });

// Every native kind and hash scheme has vectors, over both key types where the kind takes them.
TEST(golden, EveryNativeKindAndSchemeHasVectors) {
  std::set<std::string> have;
  for (const auto& path : golden_files()) {
    const auto v = test::read_golden(path);
    have.insert(v.kind + " " + v.scheme + " " + v.key_type + (v.flags != 0 ? " flagged" : ""));
  }
  for (const std::string type : {"string", "long"}) {
    EXPECT_EQ(have.count("classic xxh3-128 " + type), 1u) << type;
    EXPECT_EQ(have.count("blocked xxh3-64-split-block " + type), 1u) << type;
    EXPECT_EQ(have.count("counting xxh3-128 " + type), 1u) << type;
    EXPECT_EQ(have.count("scalable xxh3-128 " + type), 1u) << type;
  }
  EXPECT_EQ(have.count("window xxh3-64-split-block string"), 1u);
  EXPECT_EQ(have.count("window xxh3-128 string"), 1u);
  EXPECT_EQ(have.count("window xxh3-128-window-groups string"), 1u);
  EXPECT_EQ(have.count("window xxh3-128-window-groups string flagged"), 1u);  // overflow parts
  EXPECT_EQ(have.count("scalable xxh3-64-split-block string"), 1u);
  EXPECT_EQ(have.count("classic redis-sharded-xxh3 string"), 1u);
  EXPECT_EQ(have.count("classic guava-murmur128-mitz-64 long flagged"), 1u);
  EXPECT_EQ(have.count("static xxh3-64-binary-fuse string"), 1u);
  EXPECT_EQ(have.count("cuckoo xxh3-64-cuckoo string"), 1u);
  EXPECT_EQ(have.count("classic splitmix64-128 long flagged"), 1u);
  EXPECT_EQ(have.count("blocked splitmix64-split-block long flagged"), 1u);
  EXPECT_EQ(have.count("counting splitmix64-128 long flagged"), 1u);
  std::set<std::string> large;
  for (const auto& path : golden_files(true)) large.insert(test::read_golden(path).kind);
  EXPECT_EQ(large, (std::set<std::string>{"classic", "blocked", "counting"}));
}

// A static filter's committed answers are those of the lookup docs/FORMAT.md states (kind 7),
// read from the committed bytes by golden::static_contains, not by the library.
TEST(golden, StaticLookupsFollowTheDocument) {
  std::size_t vectors = 0;
  for (const auto& path : golden_files()) {
    const auto v = test::read_golden(path);
    if (v.kind != "static") continue;
    ++vectors;
    const auto bytes = read_bytes(v.file);
    std::size_t present = 0;
    for (const auto& [key, expected] : v.probes) {
      EXPECT_EQ(ref::static_contains(bytes, key), expected) << test::key_text(key, v.key_type);
      present += expected ? 1 : 0;
    }
    EXPECT_GE(present, 100U);  // every key of the set, and the absent keys' false positives
  }
  EXPECT_EQ(vectors, 1u);
}

// A cuckoo filter's committed answers are those of the lookup docs/FORMAT.md states (kind 8),
// read from the committed bytes by golden::cuckoo_contains, not by the library.
TEST(golden, CuckooLookupsFollowTheDocument) {
  std::size_t vectors = 0;
  for (const auto& path : golden_files()) {
    const auto v = test::read_golden(path);
    if (v.kind != "cuckoo") continue;
    ++vectors;
    const auto bytes = read_bytes(v.file);
    std::size_t present = 0;
    for (const auto& [key, expected] : v.probes) {
      EXPECT_EQ(ref::cuckoo_contains(bytes, key), expected) << test::key_text(key, v.key_type);
      present += expected ? 1 : 0;
    }
    EXPECT_GE(present, 90U);  // every key still inserted, and the absent keys' false positives
  }
  EXPECT_EQ(vectors, 1u);
}

// The blocked filter's portable path sets the bits its SIMD path does (the vectors were written
// with the SIMD path where the CPU has one).
TEST(golden, PortableBlockedPathGivesTheCommittedBytes) {
  std::size_t blocked = 0;
  for (const auto& path : golden_files()) {
    const auto v = test::read_golden(path);
    if (v.kind != "blocked") continue;
    ++blocked;
    for (auto how : {insert_path::one_by_one, insert_path::batched}) {
      test::temp_dir dir;
      test::build_golden(v, dir / "f.bloom", how, false);
      EXPECT_TRUE(read_bytes(dir / "f.bloom") == read_bytes(v.file)) << v.name;
    }
  }
  EXPECT_EQ(blocked, 3u);  // string, long, and the integer scheme
}

}  // namespace
}  // namespace bloomkit
