// parse_window_length (window_slices.hpp): the one reader of a window's length, for the CLI's
// --window and the module's BK.RESERVE ... WINDOW.

#include <charconv>
#include <string>

#include "bloomkit/window_slices.hpp"

namespace bloomkit {

std::optional<window_length> parse_window_length(std::string_view text, std::string* problem) {
  const auto bad = [&](std::string why) -> std::optional<window_length> {
    if (problem != nullptr) *problem = std::move(why);
    return std::nullopt;
  };
  if (text.empty()) return bad("is empty");
  struct duration_unit {
    char suffix;
    std::uint64_t seconds;  // 0: no suffix, a count of inserts
    std::string_view name;
  };
  constexpr duration_unit units[] = {
      {'s', 1, "seconds"}, {'m', 60, "minutes"}, {'h', 3600, "hours"}, {'d', 86400, "days"}};
  duration_unit unit{0, 0, "inserts"};
  for (const duration_unit& u : units) {
    if (text.back() == u.suffix) unit = u;
  }
  const std::string_view digits = unit.seconds == 0 ? text : text.substr(0, text.size() - 1);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) {
    return bad("is not a duration nor a count");
  }
  const std::uint64_t max =
      unit.seconds == 0 ? window_slices::max_length : window_slices::max_length / unit.seconds;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc{} || end != digits.data() + digits.size() || value < 1 || value > max) {
    return bad("is not in 1.." + std::to_string(max) + " " + std::string(unit.name));
  }
  if (unit.seconds == 0) return window_length{value, window_unit::inserts};
  return window_length{value * unit.seconds, window_unit::seconds};
}

}  // namespace bloomkit
