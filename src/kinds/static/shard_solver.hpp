#pragma once
// Internal: solving one shard of a static filter from its distinct hashes, seed after seed, for
// the static builder; and the statistical size of a shard.

#include <cmath>
#include <cstdint>
#include <optional>
#include <span>

#include <string>

#include "bloomkit/error.hpp"
#include "bloomkit/static_filter.hpp"

namespace bloomkit::detail {

// The shard built from `hashes` (distinct) with the first seed that solves it, the seeds being
// those of static_filter::build (first_seed(shard), then next_seed of the last), so that the same
// set gives the same bytes; the first `failing_seeds` are skipped as if they had failed (tests).
// `failed` counts the seeds that did.
inline static_shard solve_shard(std::span<std::uint64_t> hashes, std::uint32_t fingerprint_bits,
                                std::uint64_t shard, unsigned failing_seeds,
                                std::uint64_t& failed) {
  std::uint64_t seed = static_filter::first_seed(static_cast<std::uint32_t>(shard));
  for (int attempt = 0; attempt < static_shard::max_attempts;
       ++attempt, seed = static_shard::next_seed(seed)) {
    if (attempt < static_cast<int>(failing_seeds)) {
      ++failed;
      continue;
    }
    std::optional<static_shard> solved = static_shard::try_build(hashes, fingerprint_bits, seed);
    if (solved) return std::move(*solved);
    ++failed;
  }
  throw error(errc::invalid_argument, "static build: shard " + std::to_string(shard) + " (" +
                                          std::to_string(hashes.size()) +
                                          " distinct keys) was not solved by any of " +
                                          std::to_string(static_shard::max_attempts) + " seeds");
}

// The most keys one of 2^bits parts of n uniform hashes holds, but for a probability below
// 1e-9: the mean plus 6 standard deviations.
inline std::uint64_t max_keys_per_part(std::uint64_t n, unsigned bits) {
  const double mean = std::ldexp(static_cast<double>(n), -static_cast<int>(bits));
  return static_cast<std::uint64_t>(mean + 6 * std::sqrt(mean) + 16);
}

}  // namespace bloomkit::detail
