#include "bloomkit/file.hpp"
#include "bloomkit/any_filter.hpp"
#include "bloomkit/detail/filter_access.hpp"

#include <gtest/gtest.h>
#include <xxhash.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

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
using test::write_bytes;

bloom_filter sample_filter(std::uint64_t n = 5000, double p = 0.01, std::uint64_t set = 1) {
  auto f = bloom_filter::for_capacity(n, p);
  f.insert_many(views(make_keys(n, set)));
  return f;
}

// A filter saved as `dir`/f.bloom: the file's bytes and header.
struct saved_file {
  std::vector<unsigned char> bytes;
  file_header header;
};
saved_file save_sample(const temp_dir& dir, const bloom_filter& f) {
  save(f, dir / "f.bloom");
  return {read_bytes(dir / "f.bloom"), read_header(dir / "f.bloom")};
}

TEST(File, SaveLoadIsBitIdentical) {
  temp_dir dir;
  for (std::uint64_t n : {1ull, 63ull, 5000ull, 123457ull}) {
    const auto f = sample_filter(n, 0.01, n);
    save(f, dir / "f.bloom");
    const auto g = load(dir / "f.bloom");
    EXPECT_EQ(f, g);
    EXPECT_EQ(g.capacity(), f.capacity());
    EXPECT_EQ(g.target_fpp(), f.target_fpp());
    EXPECT_EQ(g.inserted(), f.inserted());
    EXPECT_FALSE(g.read_only());
    // Saving what was loaded reproduces the same bytes.
    save(g, dir / "g.bloom");
    EXPECT_EQ(read_bytes(dir / "f.bloom"), read_bytes(dir / "g.bloom"));
  }
}

TEST(File, LayoutMatchesFormatDoc) {
  temp_dir dir;
  const auto f = sample_filter(1000, 0.01);
  save(f, dir / "f.bloom");
  const auto bytes = read_bytes(dir / "f.bloom");
  ASSERT_EQ(bytes.size(), file_header_size + f.byte_size());
  EXPECT_EQ(std::memcmp(bytes.data(), "BLOOMKIT", 8), 0);
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
  EXPECT_EQ(u32(8), 1u);     // format version
  EXPECT_EQ(u32(12), 128u);  // header size
  EXPECT_EQ(u32(16), 1u);    // kind: classic
  EXPECT_EQ(u32(20), 1u);    // scheme: xxh3-128
  EXPECT_EQ(u64(24), f.bits());
  EXPECT_EQ(u32(32), f.hashes());
  EXPECT_EQ(u64(40), 1000u);
  EXPECT_EQ(u64(56), f.inserted());
  EXPECT_EQ(u64(64), 128u);
  EXPECT_EQ(u64(72), f.byte_size());
  EXPECT_EQ(u64(80), XXH64(bytes.data() + 128, f.byte_size(), 0));
  EXPECT_EQ(u64(120), XXH64(bytes.data(), 120, 0));
  EXPECT_EQ(std::memcmp(bytes.data() + 128, f.storage().data(), f.byte_size()), 0);
}

TEST(File, MapAnswersEqualLoadAnswers) {
  temp_dir dir;
  const auto f = sample_filter(50'000, 0.01, 77);
  save(f, dir / "f.bloom");
  const auto loaded = load(dir / "f.bloom");
  const auto mapped = map(dir / "f.bloom");
  EXPECT_TRUE(mapped.read_only());
  EXPECT_EQ(mapped, loaded);
  EXPECT_EQ(mapped.inserted(), loaded.inserted());
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(mapped.storage().data()) % 64, 0u);
  const auto probe = make_keys(50'000, 78);
  const auto members = make_keys(50'000, 77);
  for (const auto* keys : {&probe, &members}) {
    const auto v = views(*keys);
    const std::size_t n = keys->size();
    auto a = std::make_unique<bool[]>(n);
    auto b = std::make_unique<bool[]>(n);
    EXPECT_EQ(mapped.contains_many(v, {a.get(), n}), loaded.contains_many(v, {b.get(), n}));
    for (std::size_t i = 0; i < v.size(); ++i) {
      ASSERT_EQ(a[i], b[i]);
      ASSERT_EQ(mapped.contains(v[i]), a[i]);
    }
  }
  EXPECT_NEAR(mapped.estimated_count(), loaded.estimated_count(), 1e-9);
}

TEST(File, MappedFilterIsReadOnlyAndOutlivesItsCopies) {
  temp_dir dir;
  save(sample_filter(), dir / "f.bloom");
  auto mapped = map(dir / "f.bloom");
  try {
    mapped.insert("x");
    FAIL() << "insert into a mapped filter";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), errc::read_only);
  }
  EXPECT_THROW(mapped.insert_many(std::vector<std::string_view>{"y"}), error);
  EXPECT_THROW(mapped.clear(), error);
  auto copy = mapped;
  mapped = bloom_filter(64, 1);  // drops the original's reference to the mapping
  EXPECT_TRUE(copy.contains(make_keys(1, 1)[0]));
  // Merging a mapped filter into an owned one reads through the mapping.
  auto owned = load(dir / "f.bloom");
  owned.merge(copy);
  EXPECT_EQ(owned, copy);
}

TEST(File, SaveReplacesAtomicallyAndLeavesNoTempFiles) {
  temp_dir dir;
  save(sample_filter(1000, 0.01, 1), dir / "f.bloom");
  const auto second = sample_filter(2000, 0.001, 2);
  save(second, dir / "f.bloom");
  EXPECT_EQ(load(dir / "f.bloom"), second);
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1u);
}

TEST(File, SaveFailureNamesTheFileAndWritesNothing) {
  temp_dir dir;
  const auto target = dir / "missing-dir" / "f.bloom";
  EXPECT_EQ(expect_error_naming(target, [&] { save(sample_filter(), target); }), errc::io_error);
  EXPECT_FALSE(std::filesystem::exists(target));
}

TEST(File, FailedRenameRemovesTheTempFile) {
  temp_dir dir;
  std::filesystem::create_directory(dir / "occupied");
  // The temp file is written and fsynced, then rename() over a directory fails (EISDIR).
  EXPECT_EQ(expect_error_naming(dir / "occupied", [&] { save(sample_filter(), dir / "occupied"); }),
            errc::io_error);
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1u);  // only the directory: no stray .tmp file
  EXPECT_TRUE(std::filesystem::is_directory(dir / "occupied"));
}

TEST(File, MissingAndNonRegularFiles) {
  temp_dir dir;
  const auto missing = dir / "nope.bloom";
  EXPECT_EQ(expect_error_naming(missing, [&] { load(missing); }), errc::io_error);
  EXPECT_EQ(expect_error_naming(missing, [&] { map(missing); }), errc::io_error);
  EXPECT_EQ(expect_error_naming(missing, [&] { read_header(missing); }), errc::io_error);
  EXPECT_EQ(expect_error_naming(dir.path(), [&] { load(dir.path()); }), errc::io_error);
}

// Every truncation and every corrupted byte of a real file gives a clean error from every
// reader: never a crash, never a filter that silently answers from damaged bits.
TEST(File, EveryTruncationIsRejected) {
  temp_dir dir;
  save(sample_filter(2000, 0.05), dir / "f.bloom");
  test::expect_every_truncation_rejected(read_bytes(dir / "f.bloom"), dir / "bad.bloom",
                                         test::all_readers<bloom_filter>());
}

TEST(File, EveryFlippedByteIsRejected) {
  temp_dir dir;
  save(sample_filter(2000, 0.05), dir / "f.bloom");
  test::expect_every_flip_rejected(read_bytes(dir / "f.bloom"), dir / "bad.bloom",
                                   test::full_readers<bloom_filter>(),
                                   test::header_readers<bloom_filter>());
}

// Headers with a valid checksum but impossible contents (a buggy or hostile writer).
TEST(File, InconsistentFieldsAreRejected) {
  temp_dir dir;
  const auto f = sample_filter(1000, 0.01);
  const auto [good, base] = save_sample(dir, f);
  const auto path = dir / "forged.bloom";

  auto forge = [&](const std::function<void(file_header&)>& edit) {
    file_header h = base;
    edit(h);
    auto bytes = good;
    const auto encoded = encode_header(h);
    std::copy(encoded.begin(), encoded.end(), bytes.begin());
    write_bytes(path, bytes);
    return expect_error_naming(path, [&] { load(path); });
  };
  EXPECT_EQ(forge([](file_header& h) { h.format_version = 2; }), errc::unsupported);
  EXPECT_EQ(forge([](file_header& h) { h.kind = static_cast<filter_kind>(77); }),
            errc::unsupported);
  EXPECT_EQ(forge([](file_header& h) { h.scheme = static_cast<hash_scheme>(77); }),
            errc::unsupported);
  EXPECT_EQ(forge([](file_header& h) { h.bits = 0; }), errc::corrupt_file);
  EXPECT_EQ(forge([](file_header& h) { h.bits += 64; }), errc::corrupt_file);
  EXPECT_EQ(forge([](file_header& h) { h.hashes = 0; }), errc::corrupt_file);
  EXPECT_EQ(forge([](file_header& h) { h.hashes = 5000; }), errc::corrupt_file);
  EXPECT_EQ(forge([](file_header& h) { h.capacity = 0; }), errc::corrupt_file);
  EXPECT_EQ(forge([](file_header& h) { h.target_fpp = 1.5; }), errc::corrupt_file);
  EXPECT_EQ(forge([](file_header& h) { h.payload_offset = 100; }), errc::corrupt_file);
  EXPECT_EQ(forge([](file_header& h) { h.payload_offset = 192; }), errc::corrupt_file);
  EXPECT_EQ(forge([](file_header& h) { h.payload_length -= 8; }), errc::corrupt_file);
  EXPECT_EQ(forge([](file_header& h) { h.payload_checksum ^= 1; }), errc::corrupt_file);
  EXPECT_EQ(forge([](file_header& h) { h.flags = 2; }), errc::unsupported);
  EXPECT_EQ(forge([](file_header& h) { h.kind_params[2] = 9; }), errc::corrupt_file);

  // Bits set past m with a matching payload checksum.
  ASSERT_NE(f.bits() % 64, 0u);
  auto bytes = good;
  bytes.back() |= 0x80;
  file_header h = base;
  h.payload_checksum = XXH64(bytes.data() + 128, bytes.size() - 128, 0);
  const auto encoded = encode_header(h);
  std::copy(encoded.begin(), encoded.end(), bytes.begin());
  write_bytes(path, bytes);
  const auto code = expect_error_naming(path, [&] { load(path); });
  EXPECT_EQ(code, errc::corrupt_file);
}

// docs/FORMAT.md: the bytes between the header and a payload past offset 128 are zero. A file
// with such padding loads; one whose padding is not zero is corrupt, named, for every full reader.
TEST(File, PaddingBeforeThePayloadMustBeZero) {
  temp_dir dir;
  const auto f = sample_filter(1000, 0.01);
  auto [good, h] = save_sample(dir, f);
  h.payload_offset = file_header_size + 64;
  std::vector<unsigned char> padded(good.begin(), good.begin() + file_header_size);
  padded.resize(file_header_size + 64, 0);
  padded.insert(padded.end(), good.begin() + file_header_size, good.end());
  const auto path = dir / "padded.bloom";
  write_bytes(path, test::with_valid_checksums(padded, h));
  EXPECT_EQ(load(path), f);
  EXPECT_EQ(map(path), f);

  padded[file_header_size + 17] = 0x20;
  write_bytes(path, test::with_valid_checksums(padded, h));
  for (const auto& read : test::full_readers<bloom_filter>()) {
    EXPECT_EQ(expect_error_naming(path, "padding before the payload is not 0", [&] { read(path); }),
              errc::corrupt_file);
  }
}

// A whole file's bytes in memory (how the Redis module reads a value's image) are read and
// checked as the file on disk is; a filter read whole takes the payload's words over.
TEST(File, BytesInMemoryReadAsTheFileWithItsChecks) {
  temp_dir dir;
  const auto f = sample_filter(1000, 0.01);
  const auto [bytes, h] = save_sample(dir, f);
  const std::span<const unsigned char> header(bytes.data(), h.payload_offset);
  const void* given = nullptr;  // the words handed to the last file made
  const auto in_memory = [&](std::span<const unsigned char> head, std::size_t flip) {
    bit_array payload(h.payload_length * 8);
    auto* data = reinterpret_cast<unsigned char*>(payload.mutable_words().data());
    std::memcpy(data, bytes.data() + h.payload_offset, h.payload_length);
    if (flip < h.payload_length) data[flip] ^= 1;
    given = data;
    return detail::filter_file_in_memory("image", head, std::move(payload), h.payload_length);
  };

  const auto file = in_memory(header, h.payload_length);
  const auto g = read_any_of<native_filters>(*file, open_mode::load);
  ASSERT_TRUE(std::holds_alternative<bloom_filter>(g.filter));
  const auto& loaded = std::get<bloom_filter>(g.filter);
  EXPECT_EQ(loaded, f);
  EXPECT_EQ(g.header.payload_checksum, h.payload_checksum);
  EXPECT_EQ(detail::filter_access::storage(loaded).data(), given) << "the words were copied";
  // Its payload was handed over: a second read is an error, never an empty filter.
  for (const open_mode mode : {open_mode::load, open_mode::map}) {
    EXPECT_EQ(expect_error_naming("image", "payload was already handed over",
                                  [&] { (void)read_any_of<native_filters>(*file, mode); }),
              errc::invalid_argument);
  }

  // A changed payload byte, read whole or mapped.
  for (const open_mode mode : {open_mode::load, open_mode::map}) {
    EXPECT_EQ(expect_error_naming(
                  "image", "payload checksum mismatch",
                  [&] { (void)read_any_of<native_filters>(*in_memory(header, 100), mode); }),
              errc::corrupt_file);
  }
  // A header cut short of its payload offset.
  EXPECT_THROW(in_memory(header.first(file_header_size - 8), h.payload_length), error);
}

TEST(File, ReadHeaderReportsFields) {
  temp_dir dir;
  const auto f = sample_filter(3000, 0.001);
  save(f, dir / "f.bloom");
  const auto h = read_header(dir / "f.bloom");
  EXPECT_EQ(h.kind, filter_kind::classic);
  EXPECT_EQ(h.scheme, hash_scheme::xxh3_128);
  EXPECT_EQ(h.bits, f.bits());
  EXPECT_EQ(h.hashes, f.hashes());
  EXPECT_EQ(h.capacity, 3000u);
  EXPECT_EQ(h.target_fpp, 0.001);
  EXPECT_EQ(h.inserted, f.inserted());
  EXPECT_EQ(to_string(h.kind), "classic");
  EXPECT_TRUE(is_known(h.kind));
  EXPECT_FALSE(is_known(static_cast<filter_kind>(99)));
}

// The kind names come from the registry (kinds.hpp): one per native kind, in kind order, and
// parse_kind reads back what to_string writes.
TEST(File, KindNamesComeFromTheRegistry) {
  ASSERT_EQ(kind_names.size(), native_kinds::size);
  const char* expected[] = {"classic", "blocked", "counting", "scalable",
                            "window",  "static",  "cuckoo"};
  // Kind 6 is RedisBloom's chain, which bloomkit::compat names.
  const std::uint32_t values[] = {1, 2, 3, 4, 5, 7, 8};
  ASSERT_EQ(std::size(expected), kind_names.size());
  for (std::size_t i = 0; i < kind_names.size(); ++i) {
    EXPECT_EQ(static_cast<std::uint32_t>(kind_names[i].kind), values[i]);
    EXPECT_EQ(kind_names[i].name, expected[i]);
    EXPECT_EQ(to_string(kind_names[i].kind), expected[i]);
    EXPECT_EQ(parse_kind(expected[i]), kind_names[i].kind);
    EXPECT_TRUE(is_known(kind_names[i].kind));
  }
  EXPECT_EQ(parse_kind("bogus"), std::nullopt);
  EXPECT_EQ(to_string(static_cast<filter_kind>(0)), "unknown");
}

// Only the peers' filters record 64-bit integer keys; a native filter saved with them is refused
// (nothing written) with errc::unsupported naming the file.
TEST(File, NativeFiltersDoNotRecordIntegerKeys) {
  temp_dir dir;
  const auto path = dir / "f.bloom";
  EXPECT_EQ(expect_error_naming(path, "record 64-bit integer keys",
                                [&] { save(sample_filter(100), path, key_type::int64); }),
            errc::unsupported);
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace bloomkit

namespace bloomkit {
namespace {

// Counts past 2^32 (a filter for 10^10 keys) survive a round trip.
TEST(File, CountsBeyondTwoToThe32RoundTrip) {
  temp_dir dir;
  const std::uint64_t inserted = (std::uint64_t{1} << 33) + 5;
  const filter_config config{1'000'003, 7, 10'000'000'000ull, 0.01};
  const auto f =
      detail::filter_access::make<bloom_filter>(config, bit_array(config.cells), inserted);
  EXPECT_EQ(f.inserted(), inserted);
  EXPECT_EQ(f.estimated_fpp(), 0.0);  // it follows the bits (none set here), not the count
  save(f, dir / "big-counts.bloom");
  const auto g = load(dir / "big-counts.bloom");
  EXPECT_EQ(g.inserted(), inserted);
  EXPECT_EQ(g.capacity(), 10'000'000'000ull);
  EXPECT_EQ(read_header(dir / "big-counts.bloom").inserted, inserted);
}

}  // namespace
}  // namespace bloomkit
