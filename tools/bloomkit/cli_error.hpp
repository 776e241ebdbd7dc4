#pragma once
// Exit codes and error reporting of the bloomkit tool.
//
//   0  success
//   1  an error while doing what was asked (I/O, missing or corrupt file, incompatible filters)
//   2  a usage error: the command line itself is wrong (unknown flag, missing or malformed
//      option, an out-of-range --capacity / --fpp / --threads, ...)
//
// Every error is one line on stderr: "bloomkit: error: <message>"; usage errors add a second
// line pointing at --help. A warning is one line "bloomkit: warning: <message>". Control bytes in
// a message (a name given with a newline) are escaped so that the line stays one line
// (names.hpp).

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "bloomkit/error.hpp"
#include "names.hpp"  // quoted_name() and the other name helpers, for every message

namespace bloomkit::cli {

inline constexpr int exit_success = 0;
inline constexpr int exit_failure = 1;
inline constexpr int exit_usage = 2;

// A command line that is wrong in a way CLI11 cannot see (a value out of range, an option that
// is required only in some situations). Exit code 2.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "bloomkit: error: <message>" on stderr.
void print_error(std::string_view message);
// "bloomkit: warning: <message>" on stderr (the command goes on and exits 0).
void print_warning(std::string_view message);
// The warning of a filter past its capacity, one line:
//   bloomkit: warning: <what> holds about <held> keys, past its capacity <capacity>: its
//   false-positive rate is now about <fpp_now> (target <target>)
// `what` names the filter ('ids.bf', redis filter 'ids').
void warn_past_capacity(std::string_view what, std::uint64_t held, std::uint64_t capacity,
                        double fpp_now, double target);
// The keys a filter holds by its count of inserts that changed it (`inserted`), or by the count
// estimated from its bits when that is larger (inserted stops growing as a filter saturates).
std::uint64_t keys_held(std::uint64_t inserted, double estimated_count);
// The keys a window's slice is sized for: ceil(capacity / slices).
std::uint64_t slice_share(std::uint64_t capacity, std::uint64_t slices);
// warn_past_capacity for a window (`what` names it) whose fullest live slice holds `held` keys,
// past its share of `capacity` over `slices`:
//   <what> (a window of capacity <capacity>) has a slice that holds about <held> keys, past its
//   capacity <share>: ...
void warn_slice_past_share(std::string_view what, std::uint64_t capacity, std::uint64_t slices,
                           std::uint64_t held, double fpp_now, double target);
// Whether n keys estimated from the set cells of m cells and k probes (-m/k ln(1 - X/m)) are past
// `capacity` by more than 3 standard errors of that estimate (variance m (e^(kn/m) - 1 - kn/m) /
// k^2): an estimate's noise at capacity never warns.
bool estimate_past(double m, double k, double n, std::uint64_t capacity);
// Returns check(), turning the library's out-of-range errors (errc::invalid_argument, too_large)
// into usage errors with its message: a value the user typed that the library refuses is a
// wrong command line (exit 2). Other errors pass unchanged.
template <class Check>
auto as_usage_error(Check&& check) {
  try {
    return check();
  } catch (const error& e) {
    if (e.code() == errc::invalid_argument || e.code() == errc::too_large) {
      throw usage_error(e.what());
    }
    throw;
  }
}

// print_error() plus "Run 'bloomkit <command> --help' for usage."
void print_usage_error(std::string_view message, std::string_view command);

// Runs a subcommand and maps what it throws to an exit code: usage_error -> 2,
// bloomkit::error and any other std::exception -> 1. Flushes stdout and reports a failure to
// write it (a full disk, a closed pipe with SIGPIPE ignored) as an error too.
int run_guarded(std::string_view command, const std::function<void()>& body);

}  // namespace bloomkit::cli
