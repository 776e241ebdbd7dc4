#pragma once
// Fault-injection helpers for filter-file tests: errors that must name the file, truncations,
// flipped bytes and forged headers (valid checksum, impossible contents).

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"
#include "support/temp_dir.hpp"

namespace bloomkit::test {

// Runs `fn`, expects a bloomkit::error whose message names `path`; returns the error's code.
inline errc expect_error_naming(const std::filesystem::path& path,
                                const std::function<void()>& fn) {
  try {
    fn();
  } catch (const error& e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
    return e.code();
  }
  ADD_FAILURE() << "no error for " << path;
  return errc{};
}

// The readers of one filter type, each opening `path`.
struct file_readers {
  std::function<void(const std::filesystem::path&)> load;
  std::function<void(const std::filesystem::path&, verify)> map;
};

// Every proper prefix of a good file, and the file with one byte appended, is corrupt_file to
// every reader.
inline void expect_every_truncation_rejected(const std::vector<unsigned char>& good,
                                             const std::filesystem::path& path,
                                             const file_readers& read) {
  for (std::size_t len = 0; len < good.size(); ++len) {
    write_bytes(path, {good.begin(), good.begin() + static_cast<std::ptrdiff_t>(len)});
    EXPECT_EQ(expect_error_naming(path, [&] { read.load(path); }), errc::corrupt_file) << len;
    EXPECT_EQ(expect_error_naming(path, [&] { read.map(path, verify::full); }), errc::corrupt_file)
        << len;
    EXPECT_EQ(expect_error_naming(path, [&] { read.map(path, verify::header); }),
              errc::corrupt_file)
        << len;
  }
  auto longer = good;
  longer.push_back(0);
  write_bytes(path, longer);
  EXPECT_EQ(expect_error_naming(path, [&] { read.load(path); }), errc::corrupt_file);
}

// Every byte of a good file flipped (three patterns) is rejected by load and map; in the header,
// also by read_header and the header-only map.
inline void expect_every_flipped_byte_rejected(const std::vector<unsigned char>& good,
                                               const std::filesystem::path& path,
                                               const file_readers& read) {
  for (std::size_t pos = 0; pos < good.size(); ++pos) {
    for (unsigned char flip : {0x01, 0x80, 0xff}) {
      auto bad = good;
      bad[pos] ^= flip;
      write_bytes(path, bad);
      const errc load_code = expect_error_naming(path, [&] { read.load(path); });
      EXPECT_TRUE(load_code == errc::corrupt_file || load_code == errc::unsupported) << pos;
      expect_error_naming(path, [&] { read.map(path, verify::full); });
      if (pos < file_header_size) {
        expect_error_naming(path, [&] { read_header(path); });
        expect_error_naming(path, [&] { read.map(path, verify::header); });
      }
    }
  }
}

// Writes `good` with its header replaced by `edit`ed and re-encoded (so with a valid header
// checksum) to `path`.
inline void write_forged(const std::vector<unsigned char>& good, const std::filesystem::path& path,
                         const std::function<void(file_header&)>& edit) {
  file_header h = decode_header(good, path.string());
  edit(h);
  auto bytes = good;
  const auto encoded = encode_header(h);
  std::copy(encoded.begin(), encoded.end(), bytes.begin());
  write_bytes(path, bytes);
}

}  // namespace bloomkit::test
