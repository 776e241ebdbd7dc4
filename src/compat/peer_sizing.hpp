#pragma once
// Internal: the sizing the peers copy from Guava's BloomFilter (optimalNumOfBits and
// optimalNumOfHashFunctions), evaluated in their floating-point order so that bloomkit gets
// their exact integers (docs/INTEROP.md): Guava's own filter, the Guava-based Redis helper and
// go-zero's NewFilter(store, key, expectedInsertions, falseProbability). Each peer truncates the
// bits to its own integer type and applies its own limits.

#include <cmath>
#include <cstdint>
#include <string>

#include "bloomkit/sizing.hpp"

namespace bloomkit::compat::detail {

// -n * ln(p) / (ln(2) * ln(2)), before the peer truncates it: Java (long) / (int), Go uint().
inline double textbook_bits_before_truncation(std::uint64_t n, double p) noexcept {
  const double ln2 = std::log(2.0);
  return -static_cast<double>(n) * std::log(p) / (ln2 * ln2);
}

// round((double) bits / n * ln(2)) (Java Math.round, Go math.Round: the same for positive
// values), before the peer's max(1, k).
inline double textbook_hashes_before_max(std::uint64_t bits, std::uint64_t n) noexcept {
  return std::round(static_cast<double>(bits) / static_cast<double>(n) * std::log(2.0));
}

// {bits, max(1, k)} for the bits a peer truncated; throws errc::invalid_argument for 0 bits and
// errc::too_large for k > max_hashes, naming `what` ("a helper bitSize", "a go-zero filter").
filter_params textbook_params_for_bits(std::uint64_t n, double p, std::uint64_t bits,
                                       std::uint32_t max_hashes, const std::string& what);

// Throws errc::invalid_argument "<before><max><after> (got <value>)" unless 1 <= value <= max:
// the limits of a peer's filter parameters.
void check_one_to(std::uint64_t value, std::uint64_t max, const std::string& before,
                  const std::string& after);

}  // namespace bloomkit::compat::detail
