#include "peer_sizing.hpp"

#include <algorithm>
#include <string>

#include "bloomkit/error.hpp"
#include "codec.hpp"

namespace bloomkit::compat::detail {

filter_params textbook_params_for_bits(std::uint64_t n, double p, std::uint64_t bits,
                                       std::uint32_t max_hashes, const std::string& what) {
  if (bits == 0) {
    throw error(errc::invalid_argument, "capacity " + std::to_string(n) + " at fpp " +
                                            exact_double(p) + " sizes " + what +
                                            " of 0 bits (its offsets would divide by zero)");
  }
  const double k = textbook_hashes_before_max(bits, n);
  if (k > max_hashes) {
    throw error(errc::too_large, "fpp " + exact_double(p) + " calls for " + exact_double(k) +
                                     " hashes, more than the maximum of " +
                                     std::to_string(max_hashes));
  }
  return {bits, std::max<std::uint32_t>(1, static_cast<std::uint32_t>(k))};
}

void check_one_to(std::uint64_t value, std::uint64_t max, const std::string& before,
                  const std::string& after) {
  if (value < 1 || value > max) {
    throw error(errc::invalid_argument,
                before + std::to_string(max) + after + " (got " + std::to_string(value) + ")");
  }
}

}  // namespace bloomkit::compat::detail
