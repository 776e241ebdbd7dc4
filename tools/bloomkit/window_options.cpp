#include "window_options.hpp"

#include <limits>
#include <type_traits>

#include <fmt/core.h>

#include "arguments.hpp"
#include "cli_error.hpp"
#include "names.hpp"
#include "numbers.hpp"

namespace bloomkit::cli {

window_length parse_window(std::string_view text, std::string_view option) {
  const auto bad = [&](std::string_view why) {
    return usage_error(
        fmt::format("{}: '{}' {}; give a duration (90s, 15m, 24h, 7d) or a count "
                    "of inserts (1000000)",
                    option, text, why));
  };
  if (text.empty()) throw bad("is empty");
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
  const std::uint64_t unit_seconds = unit.seconds;
  const std::string_view unit_name = unit.name;
  const std::string_view digits = unit_seconds == 0 ? text : text.substr(0, text.size() - 1);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos) {
    throw bad("is not a duration nor a count");
  }
  const std::uint64_t max = window_slices::max_length;
  std::uint64_t value = 0;
  try {
    value = parse_count(digits, option, 1, max);
  } catch (const std::exception&) {
    throw bad(
        fmt::format("is not in 1..{} {}", unit_seconds == 0 ? max : max / unit_seconds, unit_name));
  }
  if (unit_seconds == 0) return {value, window_unit::inserts};
  if (value > max / unit_seconds) {
    throw bad(fmt::format("is not in 1..{} {}", max / unit_seconds, unit_name));
  }
  return {value * unit_seconds, window_unit::seconds};
}

void add_now_option(CLI::App& command, now_option& now) {
  now.option = add_whole_number_option(command, "--now", now.seconds, std::uint64_t{0},
                                       std::numeric_limits<std::uint64_t>::max() / 2,
                                       "Window filters: the time in unix seconds (default: the "
                                       "clock); for tests and replays")
                   ->type_name("UNIX_SECONDS");
  command
      .add_flag("--clock-moved", now.clock_moved,
                "Window filters: accept a --now more than 300 s ahead of the system clock (the "
                "window moves there, forgetting the slices it passes)")
      ->needs(now.option);
}

void apply_now(any_filter& filter, const now_option& now, std::string_view file) {
  if (!now.given()) return;
  std::visit(
      [&](auto& f) {
        if constexpr (requires { f.set_now(now.seconds); }) {
          f.set_now(now.seconds);
          f.set_clock_moved(now.clock_moved);
        } else {
          throw usage_error(fmt::format("--now applies only to window filters; {} holds {}",
                                        quoted_name(file), describe_kind(filter)));
        }
      },
      filter);
}

}  // namespace bloomkit::cli
