#include "arguments.hpp"

#include <algorithm>
#include <thread>

#include <fmt/core.h>

#include "bloomkit/error.hpp"
#include "cli_error.hpp"

namespace bloomkit::cli {

namespace {

// Runs a parse of numbers.hpp inside CLI11's parse: its usage_error becomes a CLI11 error with
// the same message, which main() reports as a usage error.
template <class Parse>
auto parsing(Parse&& parse) {
  try {
    return parse();
  } catch (const usage_error& e) {
    throw CLI::ValidationError(e.what());
  }
}

}  // namespace

CLI::Option* add_whole_number_option(CLI::App& command, const std::string& name, std::uint64_t min,
                                     std::uint64_t max, std::function<void(std::uint64_t)> store,
                                     const std::string& description) {
  return command.add_option_function<std::string>(
      name,
      [name, min, max, store = std::move(store)](const std::string& text) {
        store(parsing([&] { return parse_count(text, name, min, max); }));
      },
      description);
}

CLI::Option* add_real_option(CLI::App& command, const std::string& name, double& value,
                             const std::string& description) {
  return command.add_option_function<std::string>(
      name,
      [name, &value](const std::string& text) {
        value = parsing([&] { return parse_real(text, name); });
      },
      description);
}

CLI::Option* add_capacity_option(CLI::App& command, std::string& text) {
  return command.add_option("--capacity", text, "Number of keys the filter is sized for")
      ->type_name("N");
}

CLI::Option* add_fpp_option(CLI::App& command, double& fpp) {
  return add_real_option(command, "--fpp", fpp,
                         "Target false-positive probability at capacity (0 < P < 1)")
      ->type_name("P");
}

CLI::Option* add_threads_option(CLI::App& command, unsigned& threads) {
  return add_whole_number_option(command, "--threads", threads, 1u, 1024u,
                                 "Worker threads, 1 to 1024 (default: every core)")
      ->type_name("T");
}

filter_params validate_sizing(std::uint64_t capacity, double fpp) {
  return as_usage_error([&] { return optimal_params(capacity, fpp); });
}

void validate_fpp_option(double fpp) {
  as_usage_error([&] { validate_fpp(fpp); });
}

unsigned default_threads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

CLI::Option* add_keys_argument(CLI::App& command, std::vector<std::string>& keys,
                               const std::string& verb) {
  return add_argument(command, "KEY", keys,
                      "Keys to " + verb + " (default: lines of stdin; '-' means stdin)");
}

}  // namespace bloomkit::cli
