#pragma once
// Internal: the printable names of an enum as one table, so that to_string and parsing read the
// same list. A test per enum checks that every value has a name.

#include <optional>
#include <span>
#include <string_view>

namespace bloomkit::detail {

template <class Enum>
struct enum_name {
  Enum value;
  std::string_view name;
};

// The name of `value` in `names`, or `unknown`.
template <class Enum>
constexpr std::string_view name_in(std::span<const enum_name<Enum>> names, Enum value,
                                   std::string_view unknown) noexcept {
  for (const enum_name<Enum>& n : names) {
    if (n.value == value) return n.name;
  }
  return unknown;
}

// The value named `name` in `names`, if any.
template <class Enum>
constexpr std::optional<Enum> value_in(std::span<const enum_name<Enum>> names,
                                       std::string_view name) noexcept {
  for (const enum_name<Enum>& n : names) {
    if (n.name == name) return n.value;
  }
  return std::nullopt;
}

}  // namespace bloomkit::detail
