#pragma once
// Reading command arguments: bytes as string_views, numbers as RedisBloom parses them (Redis's
// RedisModule_StringToLongLong / StringToDouble rules), keywords case-insensitively.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "module_api.hpp"

namespace bloomkit::redis_module {

inline std::string_view view_of(const RedisModuleString* argument) {
  std::size_t length = 0;
  const char* data = RedisModule_StringPtrLen(argument, &length);
  return {data, length};
}

// The arguments as views (they live as long as the command's argv).
std::vector<std::string_view> views_of(std::span<RedisModuleString* const> arguments);

// A whole-argument integer / double (infinities allowed, not NaN), or nothing.
std::optional<long long> to_integer(std::string_view text);
std::optional<double> to_double(std::string_view text);

bool keyword_is(std::string_view argument, std::string_view keyword) noexcept;

}  // namespace bloomkit::redis_module
