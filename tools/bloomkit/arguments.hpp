#pragma once
// Options shared by several subcommands (and by the `bloomkit redis ...` ones): --capacity,
// --fpp, --threads, numeric options in general, and their validation.
//
// Every numeric value is read by numbers.hpp (one grammar, one message style; docs/CLI.md,
// "Numbers"). The options declared here parse their value while CLI11 parses the command line,
// so a malformed value is a usage error like any other. Values that parse but are out of the
// library's range (--capacity 0, --fpp 0, --fpp 1.5, a filter too large to exist) are checked
// with the library's own validators, and their bloomkit::error becomes a usage_error: exit 2
// with the library's message.

#include <concepts>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "bloomkit/sizing.hpp"
#include "numbers.hpp"

namespace bloomkit::cli {

// A positional argument, shown as `name` alone in --help; add_required_argument for one that
// must be given.
template <class T>
CLI::Option* add_argument(CLI::App& command, const std::string& name, T& value,
                          const std::string& description) {
  return command.add_option(name, value, description)->type_name("");
}
template <class T>
CLI::Option* add_required_argument(CLI::App& command, const std::string& name, T& value,
                                   const std::string& description) {
  return add_argument(command, name, value, description)->required();
}
// KEY...: the keys to `verb` ("add", "look up"); without any, the lines of stdin.
CLI::Option* add_keys_argument(CLI::App& command, std::vector<std::string>& keys,
                               const std::string& verb);

// A numeric option whose value is parsed when the command line is: `store` gets the number;
// malformed text is a CLI11 error carrying parse_count's / parse_real's message (exit 2).
CLI::Option* add_whole_number_option(CLI::App& command, const std::string& name, std::uint64_t min,
                                     std::uint64_t max, std::function<void(std::uint64_t)> store,
                                     const std::string& description);
CLI::Option* add_real_option(CLI::App& command, const std::string& name, double& value,
                             const std::string& description);
// add_whole_number_option into an unsigned variable, in [min, max] (which must fit T).
template <std::unsigned_integral T>
CLI::Option* add_whole_number_option(CLI::App& command, const std::string& name, T& value, T min,
                                     T max, const std::string& description) {
  return add_whole_number_option(
      command, name, min, max, [&value](std::uint64_t v) { value = static_cast<T>(v); },
      description);
}

// --capacity N: the number of keys the filter is sized for. Taken as text and parsed with
// parse_count() when the command runs (build needs to know whether it was given).
CLI::Option* add_capacity_option(CLI::App& command, std::string& text);
// --fpp P: the target false-positive probability, 0 < P < 1 (checked by validate_sizing or
// validate_fpp_option).
CLI::Option* add_fpp_option(CLI::App& command, double& fpp);
// --threads T: worker threads, 1 to 1024 (default: every core).
CLI::Option* add_threads_option(CLI::App& command, unsigned& threads);

// Checks a (capacity, fpp) pair with the library and returns the filter's m and k. Throws
// usage_error with the library's message when either is out of range or the filter would be
// too large.
filter_params validate_sizing(std::uint64_t capacity, double fpp);
// Checks --fpp alone (for when the capacity is not known yet).
void validate_fpp_option(double fpp);

// Every core the machine has (at least 1).
unsigned default_threads();

}  // namespace bloomkit::cli
