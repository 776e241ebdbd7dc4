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
  std::string problem;
  if (const std::optional<window_length> w = parse_window_length(text, &problem)) return *w;
  throw usage_error(fmt::format(
      "{}: '{}' {}; give a duration (90s, 15m, 24h, 7d) or a count of inserts (1000000)", option,
      text, problem));
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
