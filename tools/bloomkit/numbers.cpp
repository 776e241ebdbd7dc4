#include "numbers.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>

#include <fmt/core.h>

#include "cli_error.hpp"

namespace bloomkit::cli {

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// A number of the grammar: its value is (-1 if negative) * digits * 10^exponent.
struct decimal {
  bool negative = false;
  std::string digits;         // the digits before and after the point, without leading zeros
  std::int64_t exponent = 0;  // saturates far beyond any double or 64-bit integer
};

// The number `text` spells, or nullopt when it is not in the grammar.
std::optional<decimal> scan(std::string_view text) {
  decimal d;
  std::size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) d.negative = text[i++] == '-';
  std::size_t mantissa_digits = 0;
  std::int64_t fraction_digits = 0;
  bool point = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.' && !point) {
      point = true;
    } else if (is_digit(c)) {
      ++mantissa_digits;
      if (!(d.digits.empty() && c == '0')) d.digits += c;
      if (point) ++fraction_digits;
    } else {
      break;
    }
  }
  if (mantissa_digits == 0) return std::nullopt;
  std::int64_t exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool negative_exponent = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative_exponent = text[i++] == '-';
    const std::size_t start = i;
    constexpr std::int64_t saturation = std::int64_t{1} << 40;
    for (; i < text.size() && is_digit(text[i]); ++i) {
      exponent = std::min(saturation, exponent * 10 + (text[i] - '0'));
    }
    if (i == start) return std::nullopt;
    if (negative_exponent) exponent = -exponent;
  }
  if (i != text.size()) return std::nullopt;
  d.exponent = exponent - fraction_digits;
  return d;
}

[[noreturn]] void fail(std::string_view text, std::string_view option, std::string_view problem) {
  throw usage_error(fmt::format("{}: {} {}", option, quoted(text), problem));
}

}  // namespace

std::uint64_t parse_count(std::string_view text, std::string_view option, std::uint64_t min,
                          std::uint64_t max) {
  std::optional<decimal> d = scan(text);
  if (!d) fail(text, option, "is not a number");
  const auto out_of_range = [&] {
    fail(text, option, fmt::format("is out of range ({} to {})", min, max));
  };
  // Trailing zeros of the digits move into the exponent: 2.50e1 is 25 * 10^0.
  while (!d->digits.empty() && d->digits.back() == '0') {
    d->digits.pop_back();
    ++d->exponent;
  }
  std::uint64_t value = 0;
  if (!d->digits.empty()) {
    if (d->exponent < 0) fail(text, option, "is not a whole number");
    if (d->negative) out_of_range();
    constexpr std::uint64_t limit = std::numeric_limits<std::uint64_t>::max();
    for (const char c : d->digits) {
      const auto digit = static_cast<std::uint64_t>(c - '0');
      if (value > (limit - digit) / 10) out_of_range();
      value = value * 10 + digit;
    }
    for (std::int64_t e = 0; e < d->exponent; ++e) {
      if (value > limit / 10) out_of_range();
      value *= 10;
    }
  }
  if (value < min || value > max) out_of_range();
  return value;
}

double parse_real(std::string_view text, std::string_view option) {
  if (!scan(text)) fail(text, option, "is not a number");
  // from_chars takes the grammar's numbers, but not a leading '+'.
  const std::string_view unsigned_text = text.starts_with('+') ? text.substr(1) : text;
  double value = 0;
  const char* const last = unsigned_text.data() + unsigned_text.size();
  const auto [end, ec] = std::from_chars(unsigned_text.data(), last, value);
  if (ec == std::errc::result_out_of_range) {
    fail(text, option, "is out of range (not representable as a double)");
  }
  if (ec != std::errc() || end != last) fail(text, option, "is not a number");
  return value;
}

}  // namespace bloomkit::cli
