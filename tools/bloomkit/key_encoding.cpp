#include "key_encoding.hpp"

#include <charconv>

#include <fmt/core.h>

#include "cli_error.hpp"
#include "names.hpp"

namespace bloomkit::cli {

std::int64_t parse_int64_key(std::string_view key, const std::string& file) {
  // What Java's Long.parseLong accepts: an optional sign, then decimal digits, in range.
  const std::string_view digits = key.starts_with('+') ? key.substr(1) : key;
  std::int64_t value = 0;
  const char* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (digits.empty() || digits.starts_with("+") || (digits.starts_with('-') && key != digits) ||
      ec != std::errc{} || ptr != end) {
    throw error(errc::invalid_argument,
                fmt::format("key {} is not a signed 64-bit decimal integer ({} holds 64-bit "
                            "integer keys)",
                            quoted(key), file));
  }
  return value;
}

std::uint64_t parse_integer_key(std::string_view key, const std::string& file) {
  // Past INT64_MAX: an unsigned decimal (no sign) up to UINT64_MAX.
  if (!key.empty() && key.front() >= '0' && key.front() <= '9') {
    std::uint64_t value = 0;
    const char* end = key.data() + key.size();
    const auto [ptr, ec] = std::from_chars(key.data(), end, value);
    if (ec == std::errc{} && ptr == end) return value;
  }
  try {
    return static_cast<std::uint64_t>(parse_int64_key(key, file));
  } catch (const error&) {
    throw error(errc::invalid_argument,
                fmt::format("key {} is not a decimal integer from -2^63 to 2^64 - 1 ({} holds "
                            "64-bit integer keys)",
                            quoted(key), file));
  }
}

CLI::Option* add_key_type_option(CLI::App& command, std::string& name, const std::string& help) {
  return command.add_option("--key-type", name, help)
      ->type_name("TYPE")
      ->check(CLI::IsMember(std::vector<std::string>{"string", "long", "binary"}).description(""));
}

key_type key_type_of(std::string_view name) noexcept {
  return name == "long" ? key_type::int64 : key_type::string;
}

key_input key_input_for(std::string_view name, key_type keys, const std::string& file) {
  if (name.empty()) return input_of(keys);
  if (key_type_of(name) != keys) {
    throw usage_error(fmt::format("--key-type {}: {} holds {} keys", name, file,
                                  keys == key_type::int64 ? "integer (long)" : "string"));
  }
  return name == "binary" ? key_input::hex : input_of(keys);
}

namespace {

int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

void append_hex_key(std::string_view key, const std::string& file, std::string& out) {
  const auto refuse = [&](std::string_view why) {
    throw error(errc::invalid_argument,
                fmt::format("key {} is not hex: {} (--key-type binary: two hex digits per byte "
                            "of each key of {})",
                            quoted(key), why, file));
  };
  if (key.size() % 2 != 0) refuse("an odd number of digits");
  for (std::size_t i = 0; i < key.size(); i += 2) {
    const int high = hex_digit(key[i]);
    const int low = hex_digit(key[i + 1]);
    if (high < 0 || low < 0) refuse("a character other than 0-9, a-f, A-F");
    out.push_back(static_cast<char>(high << 4 | low));
  }
}

std::span<const std::string_view> key_encoder::encode(std::span<const std::string_view> keys) {
  if (input_ == key_input::bytes) return keys;
  views_.resize(keys.size());
  if (input_ == key_input::hex) {
    // Decoded into one buffer first: views into it are taken once it stops growing.
    hex_bytes_.clear();
    ends_.resize(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      append_hex_key(keys[i], file_, hex_bytes_);
      ends_[i] = hex_bytes_.size();
    }
    std::size_t begin = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      views_[i] = std::string_view(hex_bytes_).substr(begin, ends_[i] - begin);
      begin = ends_[i];
    }
    return views_;
  }
  bytes_.resize(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) {
    auto v = static_cast<std::uint64_t>(parse_int64_key(keys[i], file_));
    for (char& c : bytes_[i]) {
      c = static_cast<char>(v & 0xff);
      v >>= 8;
    }
    views_[i] = std::string_view(bytes_[i].data(), bytes_[i].size());
  }
  return views_;
}

}  // namespace bloomkit::cli
