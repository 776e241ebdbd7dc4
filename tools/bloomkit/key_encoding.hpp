#pragma once
// Keys are fed to a filter as its file's key type says (file.hpp): text lines as they are; for
// files of 64-bit integer keys each line is a decimal integer, fed as the filter's scheme takes
// it: the peers' (imported with --key-type long: Guava's longFunnel) hash its 8 little-endian
// bytes, the native integer schemes (created with --key-type long) take the integer itself.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/file.hpp"

namespace bloomkit::cli {

// Turns key text into the keys the filter takes, per the file's key type. Throws
// bloomkit::error naming the key and the file for a line that is not a decimal integer in a file
// of integer keys.
class key_encoder {
 public:
  key_encoder(key_type keys, std::string file) : keys_(keys), file_(std::move(file)) {}
  // The key type and scheme of a file's header (an integer scheme: integers, unsigned ones too).
  key_encoder(const file_header& h, std::string file)
      : keys_(h.keys()), integers_(is_integer_scheme(h.scheme)), file_(std::move(file)) {}
  // The keys as the filter sees them, as byte strings; valid until the next call.
  std::span<const std::string_view> encode(std::span<const std::string_view> keys);
  // Whether the filter takes integers (apply's integer span) rather than byte strings.
  bool integers() const noexcept { return integers_; }
  // op(keys as the filter takes them): a span of byte strings (encode) or, for a filter of an
  // integer scheme, of 64-bit integers; valid during the call.
  template <class Op>
  auto apply(std::span<const std::string_view> keys, Op op) {
    if (!integers_) return op(encode(keys));
    values_.resize(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) values_[i] = parse_integer(keys[i]);
    return op(std::span<const std::uint64_t>(values_));
  }

 private:
  std::uint64_t parse_integer(std::string_view key) const;

  key_type keys_;
  bool integers_ = false;
  std::string file_;
  std::vector<std::array<char, 8>> bytes_;
  std::vector<std::string_view> views_;
  std::vector<std::uint64_t> values_;
};

// A signed 64-bit decimal as Java's Long.parseLong reads it ("-42", "+7", "007"; no spaces).
// Throws bloomkit::error (invalid_argument) naming `key` and `file`.
std::int64_t parse_int64_key(std::string_view key, const std::string& file);
// The key of a filter of an integer scheme: a signed 64-bit decimal as above, or an unsigned one
// up to 2^64 - 1 (the same key as the signed value of its bits: widen_key, key_type.hpp). Throws
// bloomkit::error (invalid_argument) naming `key` and `file`.
std::uint64_t parse_integer_key(std::string_view key, const std::string& file);

}  // namespace bloomkit::cli
