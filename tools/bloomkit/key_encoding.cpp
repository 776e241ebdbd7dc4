#include "key_encoding.hpp"

#include <charconv>

#include <fmt/core.h>

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

std::uint64_t key_encoder::parse_integer(std::string_view key) const {
  return parse_integer_key(key, file_);
}

std::span<const std::string_view> key_encoder::encode(std::span<const std::string_view> keys) {
  if (keys_ == key_type::string) return keys;
  bytes_.resize(keys.size());
  views_.resize(keys.size());
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
