#include "arguments.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <thread>

#include <fmt/core.h>

#include "bloomkit/error.hpp"
#include "errors.hpp"

namespace bloomkit::cli {

CLI::Option* add_capacity_option(CLI::App& command, std::string& text) {
  return command.add_option("--capacity", text, "Number of keys the filter is sized for")
      ->type_name("N");
}

CLI::Option* add_fpp_option(CLI::App& command, double& fpp) {
  return command
      .add_option("--fpp", fpp, "Target false-positive probability at capacity (0 < P < 1)")
      ->type_name("P");
}

CLI::Option* add_threads_option(CLI::App& command, unsigned& threads) {
  return command.add_option("--threads", threads, "Worker threads (default: every core)")
      ->type_name("T")
      ->check(CLI::Range(1u, 1024u));
}

std::uint64_t parse_count(std::string_view text, std::string_view option) {
  const auto bad = [&] {
    return usage_error(
        fmt::format("{}: expected a whole number such as 1000000 or 1e6, got '{}'", option, text));
  };
  if (text.empty() || !(text.front() >= '0' && text.front() <= '9')) throw bad();
  const char* const first = text.data();
  const char* const last = first + text.size();
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(first, last, value);
  if (ec == std::errc() && end == last) return value;
  if (ec == std::errc::result_out_of_range) {
    throw usage_error(fmt::format("{}: {} is too large", option, text));
  }
  // Scientific notation: accept it when it denotes a whole number that fits.
  double real = 0;
  const auto [real_end, real_ec] = std::from_chars(first, last, real);
  if (real_ec != std::errc() || real_end != last || !std::isfinite(real) ||
      real != std::floor(real)) {
    throw bad();
  }
  if (real >= 18446744073709551616.0) {  // 2^64
    throw usage_error(fmt::format("{}: {} is too large", option, text));
  }
  return static_cast<std::uint64_t>(real);
}

namespace {

template <class F>
auto as_usage_error(F&& check) {
  try {
    return check();
  } catch (const error& e) {
    if (e.code() == errc::invalid_argument || e.code() == errc::too_large) {
      throw usage_error(e.what());
    }
    throw;
  }
}

}  // namespace

filter_params validate_sizing(std::uint64_t capacity, double fpp) {
  return as_usage_error([&] { return optimal_params(capacity, fpp); });
}

void validate_fpp_option(double fpp) {
  as_usage_error([&] { validate_fpp(fpp); });
}

unsigned default_threads() {
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace bloomkit::cli
