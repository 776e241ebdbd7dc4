#pragma once
// Options shared by several subcommands (and by the future `bloomkit redis ...` ones):
// --capacity, --fpp, --threads, and their validation.
//
// Values CLI11 cannot parse are usage errors from CLI11 itself. Values that parse but are out of
// range (--capacity 0, --fpp 0, --fpp 1.5, a filter too large to exist) are checked with the
// library's own validators, and their bloomkit::error becomes a usage_error: exit 2 with the
// library's message.

#include <cstdint>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "bloomkit/sizing.hpp"

namespace bloomkit::cli {

// --capacity N: the number of keys the filter is sized for. Taken as text and parsed by
// parse_count(), which accepts "1000000" and "1e6" but not "-1", "0x10" or "1.5".
CLI::Option* add_capacity_option(CLI::App& command, std::string& text);
// --fpp P: the target false-positive probability, 0 < P < 1.
CLI::Option* add_fpp_option(CLI::App& command, double& fpp);
// --threads T: worker threads, 1 to 1024 (default: every core).
CLI::Option* add_threads_option(CLI::App& command, unsigned& threads);

// A whole number given on the command line: decimal digits, or a decimal in scientific
// notation that denotes a whole number ("1e6", "2.5e6"). Throws usage_error naming `option`.
std::uint64_t parse_count(std::string_view text, std::string_view option);

// Checks a (capacity, fpp) pair with the library and returns the filter's m and k. Throws
// usage_error with the library's message when either is out of range or the filter would be
// too large.
filter_params validate_sizing(std::uint64_t capacity, double fpp);
// Checks --fpp alone (for when the capacity is not known yet).
void validate_fpp_option(double fpp);

// Every core the machine has (at least 1).
unsigned default_threads();

}  // namespace bloomkit::cli
