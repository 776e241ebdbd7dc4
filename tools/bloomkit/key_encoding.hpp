#pragma once
// Keys are fed to a filter as its file's key type says (file.hpp): text lines as they are, or,
// for files of 64-bit integer keys (imported with --key-type long: Guava's longFunnel, Spark's
// putLong), each line parsed as a signed decimal and hashed as its 8 little-endian bytes. With
// --key-type binary (Spark's putBinary) each line is hex, hashed as the bytes it spells.

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

// Turns key text into the bytes the filter hashes. Throws bloomkit::error naming the key and the
// file for a line that is not a signed 64-bit decimal in a file of integer keys, or not hex
// with --key-type binary.
class key_encoder {
 public:
  key_encoder(key_type keys, std::string file) : key_encoder(input_of(keys), std::move(file)) {}
  key_encoder(key_input input, std::string file) : input_(input), file_(std::move(file)) {}
  // The keys as the filter sees them; valid until the next call.
  std::span<const std::string_view> encode(std::span<const std::string_view> keys);

 private:
  key_input input_;
  std::string file_;
  std::vector<std::array<char, 8>> bytes_;
  std::string hex_bytes_;
  std::vector<std::size_t> ends_;  // of each decoded key in hex_bytes_
  std::vector<std::string_view> views_;
};

// --key-type string|long|binary: how keys are hashed (`help` says for which command).
CLI::Option* add_key_type_option(CLI::App& command, std::string& name, const std::string& help);
// The key type a file records for --key-type `name`: long is key_type::int64; string and
// binary are both byte keys (Spark's putString is putBinary of the UTF-8 bytes).
key_type key_type_of(std::string_view name) noexcept;
// How query reads keys for a file of key type `keys` given --key-type `name` (empty: not given,
// the file's own). binary reads hex; a name that the file's key type contradicts (long on a file
// of byte keys, string or binary on one of 64-bit integers) throws bloomkit::error naming `file`.
key_input key_input_for(std::string_view name, key_type keys, const std::string& file);

// A signed 64-bit decimal as Java's Long.parseLong reads it ("-42", "+7", "007"; no spaces).
// Throws bloomkit::error (invalid_argument) naming `key` and `file`.
std::int64_t parse_int64_key(std::string_view key, const std::string& file);

// The bytes that hex text spells ("", "00ff", "DEADbeef"): an even number of hex digits, nothing
// else, appended to `out`. Throws bloomkit::error (invalid_argument) naming `key` and `file`.
void append_hex_key(std::string_view key, const std::string& file, std::string& out);

}  // namespace bloomkit::cli
