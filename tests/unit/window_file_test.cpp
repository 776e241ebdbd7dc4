// Files of the window filter (kind 5, docs/FORMAT.md).

#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstring>
#include <string>
#include <vector>

#include "bloomkit/any_filter.hpp"
#include "bloomkit/detail/filter_access.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/sizing.hpp"
#include "bloomkit/window_filter.hpp"
#include "support/file_checks.hpp"
#include "support/keys.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit {
namespace {

using test::expect_error_naming;
using test::make_keys;
using test::read_bytes;
using test::read_field;
using test::temp_dir;
using test::views;

constexpr std::size_t entry_size = 24;

// A time window of 400 s in 4 slices of 100 s with keys in slices 10..13 (slots 0..3; slot 4
// empty).
template <class Window = window_filter>
Window sample_window(std::uint64_t keys_per_slice = 50) {
  Window f({400, 0.01, 400, window_unit::seconds, 4});
  for (std::uint64_t slice = 10; slice < 14; ++slice) {
    f.set_now(slice * 100);
    f.insert_many(views(make_keys(keys_per_slice, slice)));
  }
  return f;
}

template <class Window>
void expect_round_trip() {
  temp_dir dir;
  const auto f = sample_window<Window>();
  save(f, dir / "w.bloom");
  auto loaded = load<Window>(dir / "w.bloom");
  auto mapped = map<Window>(dir / "w.bloom");
  EXPECT_TRUE(loaded == f);
  EXPECT_TRUE(mapped == f);
  EXPECT_TRUE(mapped.read_only());
  for (auto* w : {&loaded, &mapped}) {
    w->set_now(1399);  // slice 13: every slice live
    for (std::uint64_t slice = 10; slice < 14; ++slice) {
      for (const auto& k : make_keys(50, slice)) ASSERT_TRUE(w->contains(k)) << k;
    }
    w->set_now(1500);  // slice 15: slice 10 has gone
    std::size_t old = 0;
    for (const auto& k : make_keys(50, 10)) old += w->contains(k) ? 1 : 0;
    EXPECT_LE(old, 5u);
  }
  EXPECT_EQ(test::code_of([&] { mapped.insert("x"); }), errc::read_only);
  loaded.set_now(1500);
  loaded.insert("x");
  save(loaded, dir / "w2.bloom");
  auto again = map<Window>(dir / "w2.bloom");
  again.set_now(1500);
  EXPECT_TRUE(again.contains("x"));
}

TEST(WindowFile, SaveLoadAndMapRoundTrip) {
  expect_round_trip<window_filter>();
  expect_round_trip<blocked_window_filter>();
  expect_round_trip<classic_window_filter>();
}

TEST(WindowFile, CountWindowKeepsItsInsertCount) {
  temp_dir dir;
  window_filter f({100, 0.01, 100, window_unit::inserts, 4});
  f.insert_many(views(make_keys(130, 1)));
  save(f, dir / "c.bloom");
  auto loaded = load<window_filter>(dir / "c.bloom");
  EXPECT_EQ(loaded.insert_count(), 130u);
  EXPECT_EQ(loaded.current_slice(), 5u);
  EXPECT_TRUE(loaded == f);
}

TEST(WindowFile, AnyFilterOpensEveryLayout) {
  temp_dir dir;
  save(sample_window<window_filter>(), dir / "g.bloom");
  save(sample_window<blocked_window_filter>(), dir / "b.bloom");
  save(sample_window<classic_window_filter>(), dir / "c.bloom");
  EXPECT_TRUE(std::holds_alternative<window_filter>(map_any(dir / "g.bloom")));
  EXPECT_TRUE(std::holds_alternative<window_filter>(load_any(dir / "g.bloom")));
  EXPECT_TRUE(std::holds_alternative<blocked_window_filter>(map_any(dir / "b.bloom")));
  EXPECT_TRUE(std::holds_alternative<blocked_window_filter>(load_any(dir / "b.bloom")));
  EXPECT_TRUE(std::holds_alternative<classic_window_filter>(load_any(dir / "c.bloom")));
  EXPECT_EQ(to_string(read_header(dir / "g.bloom").kind), "window");
  EXPECT_EQ(to_string(read_header(dir / "g.bloom").scheme), "xxh3-128-window-groups");
  // Each layout is its own file identity: one is not read as the other.
  EXPECT_EQ(expect_error_naming(dir / "b.bloom", "xxh3-64-split-block",
                                [&] { load<window_filter>(dir / "b.bloom"); }),
            errc::unsupported);
  EXPECT_EQ(expect_error_naming(dir / "g.bloom", "xxh3-128-window-groups",
                                [&] { map<blocked_window_filter>(dir / "g.bloom"); }),
            errc::unsupported);
  EXPECT_EQ(to_string(read_header(dir / "b.bloom").kind), "window");
  EXPECT_EQ(parse_kind("window"), filter_kind::window);
}

// The header fields both layouts share (docs/FORMAT.md, Kind 5).
template <class Window>
void expect_window_header(const std::vector<unsigned char>& bytes, const Window& f) {
  EXPECT_EQ(read_field<std::uint32_t>(bytes, 16), 5u);  // kind: window
  EXPECT_EQ(read_field<std::uint32_t>(bytes, 20), static_cast<std::uint32_t>(f.scheme()));
  EXPECT_EQ(read_field<std::uint64_t>(bytes, 24), f.cells());
  EXPECT_EQ(read_field<std::uint32_t>(bytes, 32), f.hashes());
  EXPECT_EQ(read_field<std::uint64_t>(bytes, 40), 400u);
  EXPECT_EQ(read_field<double>(bytes, 48), 0.01);
  EXPECT_EQ(read_field<std::uint64_t>(bytes, 56), 200u);  // keys in all slots
  EXPECT_EQ(read_field<std::uint64_t>(bytes, 64), 128u);
  EXPECT_EQ(read_field<std::uint64_t>(bytes, 72), bytes.size() - 128);
  EXPECT_EQ(read_field<std::uint64_t>(bytes, 80), XXH64(bytes.data() + 128, bytes.size() - 128, 0));
  EXPECT_EQ(read_field<std::uint64_t>(bytes, 88), 400u);  // window
  EXPECT_EQ(read_field<std::uint64_t>(bytes, 96), 0u);    // unit: seconds
  EXPECT_EQ(read_field<std::uint64_t>(bytes, 104), 4u);   // slices
  EXPECT_EQ(read_field<std::uint64_t>(bytes, 112), 0u);   // insert count
  // 5 entries of 24 bytes, their checksum, zeros up to 128.
  EXPECT_EQ(read_field<std::uint64_t>(bytes, 128 + 5 * entry_size),
            XXH64(bytes.data() + 128, 120, 0));
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(read_field<std::uint64_t>(bytes, 128 + i * entry_size), f.slot_slices()[i]);
  }
  EXPECT_EQ(f.slot_slices()[0], 10u);                      // slice 10 in slot 10 mod 5 = 0
  EXPECT_EQ(f.slot_slices()[4], window_filter::no_slice);  // slices 10..13 fill slots 0..3
}

// Grouped words: S = 4 gives groups of 2 lines (128 bytes) of 5 words of 25 bytes, slot i's word
// at byte 25 i (the table's offset), 3 zero bytes after them; 64 zero bytes after the groups.
TEST(WindowFile, GroupLayoutMatchesFormatDoc) {
  temp_dir dir;
  const auto f = sample_window<window_filter>();
  save(f, dir / "w.bloom");
  const auto bytes = read_bytes(dir / "w.bloom");
  expect_window_header(bytes, f);
  const window_groups& g = f.layout();
  EXPECT_EQ(g.lines, 2u);
  EXPECT_EQ(g.word_bytes, 25u);
  EXPECT_EQ(g.hashes, word_filter_sizing(200, 100, 0.01 / 5).hashes);
  EXPECT_EQ(g.groups, word_filter_sizing(200, 100, 0.01 / 5).words);
  EXPECT_EQ(read_field<std::uint64_t>(bytes, 24), g.groups * 128 * 8);
  EXPECT_EQ(bytes.size(), 128 + 128 + g.groups * 128 + 64);
  for (std::size_t i = 0; i < 5; ++i) {
    const std::size_t e = 128 + i * entry_size;
    EXPECT_EQ(read_field<std::uint64_t>(bytes, e + 8), f.slot_inserted(i));
    EXPECT_EQ(read_field<std::uint64_t>(bytes, e + 16), 25 * i);
  }
  const auto& cells = detail::filter_access::storage(f);
  EXPECT_EQ(std::memcmp(bytes.data() + 256, cells.data(), cells.byte_size()), 0);
  for (std::uint64_t group = 0; group < g.groups; ++group) {
    for (std::size_t b = 125; b < 128; ++b) EXPECT_EQ(bytes[256 + group * 128 + b], 0);
  }
  for (std::size_t b = bytes.size() - 64; b < bytes.size(); ++b) EXPECT_EQ(bytes[b], 0);
}

TEST(WindowFile, SubFilterLayoutMatchesFormatDoc) {
  temp_dir dir;
  const auto f = sample_window<blocked_window_filter>();
  save(f, dir / "w.bloom");
  const auto bytes = read_bytes(dir / "w.bloom");
  expect_window_header(bytes, f);
  EXPECT_EQ(f.hashes(), 8u);  // hashes of a blocked slice
  // The slots at 64-byte strides.
  const std::uint64_t stride = (f.slots()[0].byte_size() + 63) / 64 * 64;
  for (std::size_t i = 0; i < 5; ++i) {
    const std::size_t e = 128 + i * entry_size;
    EXPECT_EQ(read_field<std::uint64_t>(bytes, e + 8), f.slots()[i].inserted());
    const std::uint64_t offset = 128 + i * stride;
    EXPECT_EQ(read_field<std::uint64_t>(bytes, e + 16), offset);
    EXPECT_EQ(std::memcmp(bytes.data() + 128 + offset, f.slots()[i].storage().data(),
                          f.slots()[i].byte_size()),
              0);
  }
}

TEST(WindowFile, OtherKindsAreRefusedNamingWhatTheFileHolds) {
  temp_dir dir;
  save(sample_window<window_filter>(), dir / "w.bloom");
  EXPECT_EQ(expect_error_naming(dir / "w.bloom", "holds a window filter, not a classic one",
                                [&] { load(dir / "w.bloom"); }),
            errc::unsupported);
}

template <class Window>
const std::vector<test::file_reader> readers = {
    [](const auto& p) { load<Window>(p); }, [](const auto& p) { map<Window>(p); },
    [](const auto& p) { map<Window>(p, verify::header); }};

template <class Window>
void expect_every_truncation_rejected() {
  temp_dir dir;
  save(sample_window<Window>(5), dir / "w.bloom");
  test::expect_every_truncation_rejected(read_bytes(dir / "w.bloom"), dir / "bad.bloom",
                                         readers<Window>);
}

TEST(WindowFile, EveryTruncationIsRejected) {
  expect_every_truncation_rejected<window_filter>();
  expect_every_truncation_rejected<blocked_window_filter>();
}

// Damage to the header or the slot table is caught even by map(verify::header).
template <class Window>
void expect_every_flip_rejected() {
  temp_dir dir;
  Window f({40, 0.05, 40, window_unit::inserts, 2});
  f.insert_many(views(make_keys(50, 1)));
  save(f, dir / "w.bloom");
  test::expect_every_flip_rejected(read_bytes(dir / "w.bloom"), dir / "bad.bloom",
                                   {readers<Window>[0], readers<Window>[1]},
                                   {{file_header_size, [](const auto& p) { read_header(p); }},
                                    {file_header_size + 3 * entry_size + 8, readers<Window>[2]}});
}

TEST(WindowFile, EveryFlippedByteIsRejected) {
  expect_every_flip_rejected<window_filter>();
  expect_every_flip_rejected<blocked_window_filter>();
}

// Forged window fields are refused naming the problem, in both layouts; `layout` adds the edits
// each layout's own fields need, as (edit, problem) pairs applied by forged(edit, problem).
template <class Window, class Layout>
void expect_forged_headers_named(Layout layout) {
  temp_dir dir;
  save(sample_window<Window>(), dir / "w.bloom");
  const auto good = read_bytes(dir / "w.bloom");
  const auto forged = [&](auto edit, const std::string& problem) {
    test::write_forged(good, dir / "bad.bloom", edit);
    EXPECT_EQ(expect_error_naming(dir / "bad.bloom", problem, [&] { load_any(dir / "bad.bloom"); }),
              errc::corrupt_file);
  };
  forged([](file_header& h) { h.kind_params[2] = 0; }, "slices 0 is not in 1..255");
  forged([](file_header& h) { h.kind_params[1] = 2; }, "window unit 2");
  forged([](file_header& h) { h.kind_params[3] = 7; }, "a time window records an insert count");
  forged([](file_header& h) { h.kind_params[0] = 3; }, "must be at least one per slice");
  forged([](file_header& h) { h.inserted += 1; }, "the slots hold 200 keys");
  layout(forged);
}

TEST(WindowFile, ForgedHeadersNameTheProblem) {
  expect_forged_headers_named<window_filter>([](auto forged) {
    const std::string slots = "are not those of the window's slots";
    forged([](file_header& h) { h.bits += 1024; }, slots);
    forged([](file_header& h) { h.hashes += 1; }, slots);
    forged([](file_header& h) { h.capacity *= 2; }, slots);
    forged([](file_header& h) { h.kind_params[2] = 5; }, "payload length");
  });
  expect_forged_headers_named<blocked_window_filter>([](auto forged) {
    forged([](file_header& h) { h.bits += 5; }, "are not 5 equal slots");
    forged([](file_header& h) { h.capacity *= 2; }, "inconsistent slot table");
  });
}

}  // namespace
}  // namespace bloomkit
