#include "bloomkit/error.hpp"

#include <array>

namespace bloomkit {
namespace {

// Indexed by code - 1: errc counts up from invalid_argument = 1 without gaps.
constexpr std::array<std::string_view, 15> errc_names = {
    "invalid argument", "too large",      "incompatible",
    "read-only",        "I/O error",      "corrupt file",
    "unsupported",      "unreachable",    "authentication failed",
    "timeout",          "server error",   "wrong type",
    "not found",        "already exists", "conflict"};
static_assert(static_cast<std::size_t>(errc::conflict) == errc_names.size());

}  // namespace

std::string_view to_string(errc code) noexcept {
  const auto index = static_cast<std::size_t>(code) - 1;  // 0 wraps around to "unknown"
  return index < errc_names.size() ? errc_names[index] : "unknown error";
}

}  // namespace bloomkit
