#include "cli_error.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <new>

#include <fmt/core.h>

#include "bloomkit/error.hpp"
#include "output.hpp"

namespace bloomkit::cli {

void print_error(std::string_view message) {
  std::fflush(stdout);  // keep whatever was printed before the error in order
  fmt::print(stderr, "bloomkit: error: {}\n", one_line(message));
}

void print_warning(std::string_view message) {
  std::fflush(stdout);
  fmt::print(stderr, "bloomkit: warning: {}\n", one_line(message));
}

void warn_past_capacity(std::string_view what, std::uint64_t held, std::uint64_t capacity,
                        double fpp_now, double target) {
  print_warning(fmt::format(
      "{} holds about {} keys, past its capacity {}: its false-positive rate is now about {:.3g} "
      "(target {})",
      what, held, capacity, fpp_now, target));
}

std::uint64_t keys_held(std::uint64_t inserted, double estimated_count) {
  if (estimated_count > static_cast<double>(inserted) && estimated_count < 0x1p63) {
    return static_cast<std::uint64_t>(std::llround(estimated_count));
  }
  return inserted;
}

std::uint64_t slice_share(std::uint64_t capacity, std::uint64_t slices) {
  return capacity / slices + (capacity % slices != 0 ? 1 : 0);
}

void warn_slice_past_share(std::string_view what, std::uint64_t capacity, std::uint64_t slices,
                           std::uint64_t held, double fpp_now, double target) {
  warn_past_capacity(fmt::format("{} (a window of capacity {}) has a slice that", what, capacity),
                     held, slice_share(capacity, slices), fpp_now, target);
}

bool estimate_past(double m, double k, double n, std::uint64_t capacity) {
  const double load = k * std::min(n, m * 40 / k) / m;
  const double error = std::sqrt(m * (std::expm1(load) - load)) / k;
  return n - 3 * error > static_cast<double>(capacity);
}

void print_usage_error(std::string_view message, std::string_view command) {
  print_error(message);
  if (command.empty()) {
    fmt::print(stderr, "Run 'bloomkit --help' for usage.\n");
  } else {
    fmt::print(stderr, "Run 'bloomkit {} --help' for usage.\n", command);
  }
}

int run_guarded(std::string_view command, const std::function<void()>& body) {
  try {
    body();
    flush_stdout();
    return exit_success;
  } catch (const usage_error& e) {
    print_usage_error(e.what(), command);
    return exit_usage;
  } catch (const error& e) {
    print_error(e.what());
    return exit_failure;
  } catch (const std::bad_alloc&) {
    print_error("out of memory");
    return exit_failure;
  } catch (const std::exception& e) {
    print_error(e.what());
    return exit_failure;
  }
}

}  // namespace bloomkit::cli
