#include "bloomkit/kinds.hpp"

#include "bloomkit/integer_keys.hpp"

namespace bloomkit {

namespace {
// Kinds whose filter types live in bloomkit::compat (their files' checks are its loaders').
constexpr std::array<kind_name, 1> compat_kind_names{{{filter_kind::redisbloom, "redisbloom"}}};
}  // namespace

std::string_view to_string(filter_kind kind) noexcept {
  for (const kind_name& k : kind_names) {
    if (k.kind == kind) return k.name;
  }
  for (const kind_name& k : compat_kind_names) {
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

namespace detail {
void refuse_integer_keys_of(filter_kind kind) {
  throw error(errc::invalid_argument,
              "a " + std::string(to_string(kind)) +
                  " filter of string keys takes no integer keys (integer keys, key type long, "
                  "are for classic, blocked and counting filters made for them)");
}
}  // namespace detail

}  // namespace bloomkit
