#pragma once
// Keys are fed to a filter as its file's key type says (file.hpp): text lines as they are; for
// files of 64-bit integer keys each line is a decimal integer, fed as the filter's scheme takes
// it: the peers' (imported with --key-type long: Guava's longFunnel, Spark's putLong) hash its 8
// little-endian bytes, the native integer schemes (created with --key-type long) take the integer
// itself. With --key-type binary (Spark's putBinary) each line is hex, hashed as the bytes it
// spells.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "bloomkit/file.hpp"

namespace bloomkit::cli {

// How a key's text becomes the bytes hashed: as they are, a signed 64-bit decimal (8
// little-endian bytes), or hex (two digits per byte).
enum class key_input { bytes, int64, hex };

// The key_input of a file's key type (text keys are taken as they are).
constexpr key_input input_of(key_type keys) noexcept {
  return keys == key_type::int64 ? key_input::int64 : key_input::bytes;
}

// A signed 64-bit decimal as Java's Long.parseLong reads it ("-42", "+7", "007"; no spaces).
// Throws bloomkit::error (invalid_argument) naming `key` and `file`.
std::int64_t parse_int64_key(std::string_view key, const std::string& file);
// The key of a filter of an integer scheme: a signed 64-bit decimal as above, or an unsigned one
// up to 2^64 - 1 (the same key as the signed value of its bits: widen_key, key_type.hpp). Throws
// bloomkit::error (invalid_argument) naming `key` and `file`.
std::uint64_t parse_integer_key(std::string_view key, const std::string& file);

// Turns key text into the bytes the filter hashes. Throws bloomkit::error naming the key and the
// file for a line that is not a signed 64-bit decimal in a file of integer keys, or not hex
// with --key-type binary.
class key_encoder {
 public:
  key_encoder(key_type keys, std::string file) : key_encoder(input_of(keys), std::move(file)) {}
  key_encoder(key_input input, std::string file) : input_(input), file_(std::move(file)) {}
  // Keys read as `input` for a file of header `h` (an integer scheme: integers, unsigned ones
  // too, fed to the filter as integers).
  key_encoder(const file_header& h, key_input input, std::string file)
      : input_(input), integers_(is_integer_scheme(h.scheme)), file_(std::move(file)) {}
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
    for (std::size_t i = 0; i < keys.size(); ++i) values_[i] = parse_integer_key(keys[i], file_);
    return op(std::span<const std::uint64_t>(values_));
  }

 private:
  key_input input_;
  bool integers_ = false;
  std::vector<std::uint64_t> values_;
  std::string file_;
  std::vector<std::array<char, 8>> bytes_;
  std::string hex_bytes_;
  std::vector<std::size_t> ends_;  // of each decoded key in hex_bytes_
  std::vector<std::string_view> views_;
};

// --key-type string|long|binary: how keys are read and hashed (`help` says for which command).
CLI::Option* add_key_type_option(CLI::App& command, std::string& name, const std::string& help);
// The key type a file records for --key-type `name`: long is key_type::int64; string and
// binary are both byte keys (Spark's putString is putBinary of the UTF-8 bytes).
key_type key_type_of(std::string_view name) noexcept;
// How query reads keys for a file of key type `keys` given --key-type `name` (empty: not given,
// the file's own). binary reads hex; a name that the file's key type contradicts (long on a file
// of byte keys, string or binary on one of 64-bit integers) throws usage_error naming `file`.
key_input key_input_for(std::string_view name, key_type keys, const std::string& file);

// The bytes that hex text spells ("", "00ff", "DEADbeef"): an even number of hex digits, nothing
// else, appended to `out`. Throws bloomkit::error (invalid_argument) naming `key` and `file`.
void append_hex_key(std::string_view key, const std::string& file, std::string& out);

}  // namespace bloomkit::cli
