#include "bloomkit/kinds.hpp"

namespace bloomkit {

std::string_view to_string(filter_kind kind) noexcept {
  for (const kind_name& k : kind_names) {
    if (k.kind == kind) return k.name;
  }
  return "unknown";
}

bool is_known(filter_kind kind) noexcept {
  return to_string(kind) != "unknown";
}

std::optional<filter_kind> parse_kind(std::string_view name) noexcept {
  for (const kind_name& k : kind_names) {
    if (k.name == name) return k.kind;
  }
  return std::nullopt;
}

}  // namespace bloomkit
