// Reading command arguments (arguments.hpp).

#include "arguments.hpp"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <string>

namespace bloomkit::redis_module {

std::vector<std::string_view> views_of(std::span<RedisModuleString* const> arguments) {
  std::vector<std::string_view> views;
  views.reserve(arguments.size());
  for (const RedisModuleString* argument : arguments) views.push_back(view_of(argument));
  return views;
}

std::optional<long long> to_integer(std::string_view text) {
  // As Redis's string2ll: an optional '-', then no leading zero ("0" alone), no '+', no space.
  const bool negative = !text.empty() && text.front() == '-';
  const std::string_view digits = text.substr(negative ? 1 : 0);
  if (digits.empty() || digits.front() < '0' || digits.front() > '9' ||
      (digits.front() == '0' && (digits.size() > 1 || negative))) {
    return std::nullopt;
  }
  long long value = 0;
  const auto [end, problem] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (problem != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> to_double(std::string_view text) {
  // As Redis's string2d (RedisModule_StringToDouble): strtod over the whole argument ("1e-3",
  // "inf"), no leading space, neither NaN nor an overflow or an underflow to zero.
  if (text.empty() || text.size() > 256 || std::isspace(static_cast<unsigned char>(text[0]))) {
    return std::nullopt;
  }
  const std::string copy(text);
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size() || std::isnan(value)) return std::nullopt;
  if (errno == ERANGE && (std::isinf(value) || value == 0)) return std::nullopt;
  return value;
}

bool keyword_is(std::string_view argument, std::string_view keyword) noexcept {
  if (argument.size() != keyword.size()) return false;
  for (std::size_t i = 0; i < argument.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(argument[i])) !=
        std::toupper(static_cast<unsigned char>(keyword[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace bloomkit::redis_module
