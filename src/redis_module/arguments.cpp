// Reading command arguments (arguments.hpp).

#include "arguments.hpp"

#include <cctype>
#include <charconv>
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
  long long value = 0;
  const auto [end, problem] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (problem != std::errc() || end != text.data() + text.size() || text.empty()) {
    return std::nullopt;
  }
  return value;
}

std::optional<double> to_double(std::string_view text) {
  // strtod accepts what Redis's own parser does ("1e-3", "inf", "nan"); the callers range-check.
  if (text.empty() || text.size() > 64 || std::isspace(static_cast<unsigned char>(text[0]))) {
    return std::nullopt;
  }
  const std::string copy(text);
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::nullopt;
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
