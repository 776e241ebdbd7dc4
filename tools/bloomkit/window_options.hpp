#pragma once
// The window filter's options (docs/CLI.md, "Window filters"): --window DURATION|COUNT and
// --slices S of `create` / `build --kind window` and `redis create --window`, and --now
// UNIX_SECONDS, the clock of every command on a window filter (tests and replays never wait).

#include <cstdint>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "bloomkit/window_filter.hpp"
#include "filter_kinds.hpp"

namespace bloomkit::cli {

// "90s", "15m", "24h", "7d": a duration in seconds; "1000": a count of inserts. Throws
// usage_error naming `option` and the problem otherwise (0, an unknown unit, an overflow).
window_length parse_window(std::string_view text, std::string_view option);

// --now UNIX_SECONDS: the clock of a window filter for this command; --clock-moved: a --now
// more than window_slices::max_clock_skew ahead of the system clock is meant (the window moves
// there, forgetting what it passes).
struct now_option {
  std::uint64_t seconds = 0;
  bool clock_moved = false;
  CLI::Option* option = nullptr;
  bool given() const { return option != nullptr && option->count() > 0; }
};
void add_now_option(CLI::App& command, now_option& now);

// Sets a window filter's clock to --now when it was given (and --clock-moved). --now on a file
// that holds another kind is a usage error naming the file.
void apply_now(any_filter& filter, const now_option& now, std::string_view file);

}  // namespace bloomkit::cli
