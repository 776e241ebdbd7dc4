#pragma once
// Keys are fed to a filter as its file's key type says (file.hpp): text lines as they are, or,
// for files of 64-bit integer keys (imported with --key-type long: Guava's longFunnel), each line
// parsed as a signed decimal and hashed as its 8 little-endian bytes.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/file.hpp"

namespace bloomkit::cli {

// Turns key text into the bytes the filter hashes, per the file's key type. Throws
// bloomkit::error naming the key and the file for a line that is not a signed 64-bit decimal in
// a file of integer keys.
class key_encoder {
 public:
  key_encoder(key_type keys, std::string file) : keys_(keys), file_(std::move(file)) {}
  // The keys as the filter sees them; valid until the next call.
  std::span<const std::string_view> encode(std::span<const std::string_view> keys);

 private:
  key_type keys_;
  std::string file_;
  std::vector<std::array<char, 8>> bytes_;
  std::vector<std::string_view> views_;
};

// A signed 64-bit decimal as Java's Long.parseLong reads it ("-42", "+7", "007"; no spaces).
// Throws bloomkit::error (invalid_argument) naming `key` and `file`.
std::int64_t parse_int64_key(std::string_view key, const std::string& file);

}  // namespace bloomkit::cli
