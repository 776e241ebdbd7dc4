#pragma once
// The numbers of the command line (docs/CLI.md, "Numbers"): one grammar and one message style
// for every numeric option and argument (--capacity, --fpp, --threads, --growth, --tightening,
// --max-memory, --shard-bits, --bits, SECONDS).
//
// The grammar: an optional sign, decimal digits with an optional decimal point (at least one
// digit), an optional exponent: [+-]? (D+ (. D*)? | . D+) ([eE] [+-]? D+)?. Nothing else: no
// spaces, no hex, no digit separators, no inf or nan. A whole-number value is any such number
// that is a whole number ("1e6", "2.5e6", "4.0"); a real value is the double nearest to it.
//
// Every error is a usage_error (exit 2) naming the option and the text as given:
//   --fpp: 'abc' is not a number
//   --threads: '1.5' is not a whole number
//   --threads: '0' is out of range (1 to 1024)
//   --fpp: '1e400' is out of range (not representable as a double)

#include <cstdint>
#include <limits>
#include <string_view>

namespace bloomkit::cli {

// A whole number from `min` to `max`, exactly (no rounding through a double).
std::uint64_t parse_count(std::string_view text, std::string_view option, std::uint64_t min = 0,
                          std::uint64_t max = std::numeric_limits<std::uint64_t>::max());

// A finite double (negative values and 0 included: the option's own range is checked by whoever
// knows it, such as the library's validate_fpp). A value a double cannot hold (its magnitude
// rounds to infinity, or a nonzero value rounds to 0) is out of range.
double parse_real(std::string_view text, std::string_view option);

}  // namespace bloomkit::cli
