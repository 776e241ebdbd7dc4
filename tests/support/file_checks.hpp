#pragma once
// Checks shared by the file tests of every filter kind: errors that name the file, every
// truncation and every flipped byte rejected, and forging files whose checksums are valid.

#include <gtest/gtest.h>
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/file.hpp"
#include "file/header_codec.hpp"  // encode_header, decode_header (src/: a test-only include)
#include "support/errors.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit::test {

// Runs `fn`, expects a bloomkit::error whose message names `path` and contains `problem`;
// returns the error's code.
inline errc expect_error_naming(const std::filesystem::path& path, const std::string& problem,
                                const std::function<void()>& fn) {
  const auto e = thrown_by(fn);
  if (!e) return errc{};
  EXPECT_NE(std::string(e->what()).find(path.string()), std::string::npos) << e->what();
  EXPECT_NE(std::string(e->what()).find(problem), std::string::npos) << e->what();
  return e->code();
}

// As above, with any message that names `path`.
inline errc expect_error_naming(const std::filesystem::path& path,
                                const std::function<void()>& fn) {
  return expect_error_naming(path, "", fn);
}

// a and b (e.g. a filter and its loaded or mapped copy) answer alike for every key, batched and
// one at a time.
template <class Filter>
void expect_same_answers(const Filter& a, const Filter& b, const std::vector<std::string>& keys) {
  const std::size_t n = keys.size();
  auto ra = std::make_unique<bool[]>(n);
  auto rb = std::make_unique<bool[]>(n);
  // The views after the allocations: GCC 12 -Walloc-size-larger-than otherwise.
  std::vector<std::string_view> v(keys.begin(), keys.end());
  EXPECT_EQ(a.contains_many(v, {ra.get(), n}), b.contains_many(v, {rb.get(), n}));
  for (std::size_t i = 0; i < v.size(); ++i) {
    ASSERT_EQ(ra[i], rb[i]);
    ASSERT_EQ(a.contains(v[i]), ra[i]);
  }
}

// One way of opening a filter file (load, map with some verify level, ...).
using file_reader = std::function<void(const std::filesystem::path&)>;

// Every proper prefix of the valid file `good`, and `good` with a byte appended, is rejected by
// every reader with errc::corrupt_file naming the file.
inline void expect_every_truncation_rejected(const std::vector<unsigned char>& good,
                                             const std::filesystem::path& path,
                                             const std::vector<file_reader>& readers) {
  for (std::size_t len = 0; len < good.size(); ++len) {
    write_bytes(path, {good.begin(), good.begin() + static_cast<std::ptrdiff_t>(len)});
    for (const auto& read : readers) {
      ASSERT_EQ(expect_error_naming(path, [&] { read(path); }), errc::corrupt_file) << len;
    }
  }
  auto longer = good;
  longer.push_back(0);
  write_bytes(path, longer);
  for (const auto& read : readers) {
    EXPECT_EQ(expect_error_naming(path, [&] { read(path); }), errc::corrupt_file);
  }
}

// A reader that skips part of the checks (read_header, map with verify::header) but must still
// reject damage to the first `bytes` bytes of a file.
struct guarding_reader {
  std::size_t bytes;
  file_reader read;
};

// Every byte of `good` flipped (three ways) is rejected, as corrupt or unsupported, by every
// reader in `checked`, and by every guarding reader whose prefix holds the byte.
inline void expect_every_flip_rejected(const std::vector<unsigned char>& good,
                                       const std::filesystem::path& path,
                                       const std::vector<file_reader>& checked,
                                       const std::vector<guarding_reader>& guarding) {
  for (std::size_t pos = 0; pos < good.size(); ++pos) {
    for (unsigned char flip : {0x01, 0x80, 0xff}) {
      auto bad = good;
      bad[pos] ^= flip;
      write_bytes(path, bad);
      for (const auto& read : checked) {
        const errc code = expect_error_naming(path, [&] { read(path); });
        ASSERT_TRUE(code == errc::corrupt_file || code == errc::unsupported) << pos;
      }
      for (const auto& guard : guarding) {
        if (pos >= guard.bytes) continue;
        const errc code = expect_error_naming(path, [&] { guard.read(path); });
        ASSERT_TRUE(code == errc::corrupt_file || code == errc::unsupported) << pos;
      }
    }
  }
}

// `bytes` with `header` written over its first 128 bytes and both checksums valid again: the
// payload checksum recomputed over bytes[payload_offset..], the header checksum by encoding.
inline std::vector<unsigned char> with_valid_checksums(std::vector<unsigned char> bytes,
                                                       file_header header) {
  const std::size_t offset = std::min<std::size_t>(header.payload_offset, bytes.size());
  header.payload_checksum = XXH64(bytes.data() + offset, bytes.size() - offset, 0);
  const auto encoded = encode_header(header);
  std::copy(encoded.begin(), encoded.end(), bytes.begin());
  return bytes;
}

// The readers of a filter type: load, map (full checks), and the header-only readers, which must
// still reject damage to the 128-byte header.
template <class Filter>
std::vector<file_reader> full_readers() {
  return {[](const std::filesystem::path& p) { load<Filter>(p); },
          [](const std::filesystem::path& p) { map<Filter>(p); }};
}
template <class Filter>
std::vector<guarding_reader> header_readers() {
  return {
      {file_header_size, [](const std::filesystem::path& p) { read_header(p); }},
      {file_header_size, [](const std::filesystem::path& p) { map<Filter>(p, verify::header); }}};
}

// load, map and map(verify::header): the readers of a kind whose files have a table of their
// own after the header (static shards, cuckoo tables), which map(verify::header) checks too.
template <class Filter>
std::vector<file_reader> table_readers() {
  auto readers = full_readers<Filter>();
  readers.push_back([](const std::filesystem::path& p) { map<Filter>(p, verify::header); });
  return readers;
}

// Every truncation and flipped byte of `good`, a file of a kind read by table_readers<Filter>(),
// rejected: by load and map wherever it is, by read_header in the header, and by
// map(verify::header) in the header and the first `table_bytes` of the table after it.
template <class Filter>
void expect_table_file_damage_rejected(const std::vector<unsigned char>& good,
                                       const std::filesystem::path& path, std::size_t table_bytes) {
  const auto readers = table_readers<Filter>();
  expect_every_truncation_rejected(good, path, readers);
  expect_every_flip_rejected(
      good, path, {readers[0], readers[1]},
      {{file_header_size, [](const std::filesystem::path& p) { read_header(p); }},
       {file_header_size + table_bytes, readers[2]}});
}

// Every reader of Filter's files: the full readers and the header-guarded ones.
template <class Filter>
std::vector<file_reader> all_readers() {
  auto readers = full_readers<Filter>();
  for (const auto& guard : header_readers<Filter>()) readers.push_back(guard.read);
  return readers;
}

// Writes `good` with its header replaced by `edit`ed and re-encoded (so with a valid header
// checksum; the payload and its checksum unchanged) to `path`.
inline void write_forged(const std::vector<unsigned char>& good, const std::filesystem::path& path,
                         const std::function<void(file_header&)>& edit) {
  file_header h = decode_header(good, path.string());
  edit(h);
  auto bytes = good;
  const auto encoded = encode_header(h);
  std::copy(encoded.begin(), encoded.end(), bytes.begin());
  write_bytes(path, bytes);
}

// Writes `bytes` to `path` with the table after its header (`entries` entries of `entry_size`
// bytes, then their XXH64) and both file checksums valid again: an edited table as a hostile
// writer can make it.
inline void write_sealed_table(std::vector<unsigned char> bytes, const file_header& header,
                               std::size_t entries, std::size_t entry_size,
                               const std::filesystem::path& path) {
  const std::size_t table = file_header_size;
  const std::uint64_t sum = XXH64(bytes.data() + table, entries * entry_size, 0);
  std::memcpy(bytes.data() + table + entries * entry_size, &sum, sizeof sum);
  write_bytes(path, with_valid_checksums(std::move(bytes), header));
}

// Every reader refuses `path` with `code`, in an error naming the file and `problem`.
inline void expect_refused(const std::filesystem::path& path, const std::string& problem,
                           std::span<const file_reader> readers, errc code = errc::corrupt_file) {
  for (const auto& read : readers) {
    EXPECT_EQ(expect_error_naming(path, problem, [&] { read(path); }), code) << problem;
  }
}

// `mapped`, a filter mapped from `path`, once the file is cut to 4096 bytes under it: looking up
// `keys` (which it holds) ends in one errc::io_error, never in a false negative.
template <class Filter>
void expect_cut_file_is_an_error(const Filter& mapped, const std::filesystem::path& path,
                                 const std::vector<std::string>& keys) {
  std::filesystem::resize_file(path, 4096);
  std::size_t errors = 0;
  for (const auto& k : keys) {
    try {
      if (!mapped.contains(k)) FAIL() << "a false negative from a cut file: " << k;
    } catch (const error& e) {
      EXPECT_EQ(e.code(), errc::io_error);
      ++errors;
      break;
    }
  }
  EXPECT_EQ(errors, 1U);
}

// A field of type T at byte `off` of a file's bytes, as it lies in memory (the formats are
// little-endian, like every machine bloomkit builds on), and its overwrite.
template <class T>
T read_field(const std::vector<unsigned char>& bytes, std::size_t off) {
  T v;
  std::memcpy(&v, bytes.data() + off, sizeof v);
  return v;
}
template <class T>
void write_field(std::vector<unsigned char>& bytes, std::size_t off, T v) {
  std::memcpy(bytes.data() + off, &v, sizeof v);
}

}  // namespace bloomkit::test
