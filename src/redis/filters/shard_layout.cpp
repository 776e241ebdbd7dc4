#include "bloomkit/redis/shard_layout.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "../../core/ceil_div.hpp"
#include "bloomkit/error.hpp"

namespace bloomkit::redis {

namespace {

constexpr std::array<unsigned char, 256> make_reversed_bytes() {
  std::array<unsigned char, 256> table{};
  for (unsigned b = 0; b < 256; ++b) {
    unsigned r = 0;
    for (unsigned i = 0; i < 8; ++i) r |= ((b >> i) & 1u) << (7 - i);
    table[b] = static_cast<unsigned char>(r);
  }
  return table;
}
constexpr auto reversed_bytes = make_reversed_bytes();

}  // namespace

shard_layout shard_layout::for_bits(std::uint64_t bits, std::uint32_t hashes,
                                    unsigned max_bits_log2) {
  if (max_bits_log2 < min_shard_bits_log2 || max_bits_log2 > max_shard_bits_log2) {
    throw error(errc::invalid_argument,
                "shard bits must be in [" + std::to_string(min_shard_bits_log2) + ", " +
                    std::to_string(max_shard_bits_log2) + "] (shards of 2^B bits), got " +
                    std::to_string(max_bits_log2));
  }
  validate_params(bits, hashes);
  const std::uint64_t max_shard = std::uint64_t{1} << max_bits_log2;
  if (bits <= max_shard) return {bits, 1, hashes};
  const std::uint64_t count = bloomkit::detail::ceil_div(bits, max_shard);
  // ceil(bits / count) <= max_shard, and max_shard is a multiple of 64, so rounding up to
  // whole words keeps every shard within the limit.
  const std::uint64_t per_shard =
      bloomkit::detail::ceil_div(bloomkit::detail::ceil_div(bits, count), 64) * 64;
  return {per_shard, count, hashes};
}

shard_layout shard_layout::for_capacity(std::uint64_t capacity, double fpp,
                                        unsigned max_bits_log2) {
  const filter_params params = optimal_params(capacity, fpp);
  const shard_layout layout = for_bits(params.bits, params.hashes, max_bits_log2);
  if (layout.shard_count == 1) return layout;
  // Keys spread over the shards binomially, and a fuller shard answers more strangers
  // positive: the layout stands when its exact figure is within the slack optimal_params
  // allows (large shards: the loads vary by a fraction of a percent), else the bits grow
  // until it holds fpp.
  const auto sharded_fpp = [&](const shard_layout& l) {
    return exact_fpp_in_parts(l.shard_bits, l.hashes, l.shard_count, capacity);
  };
  const double promised = std::max(fpp, expected_fpp(params.bits, params.hashes, capacity));
  if (sharded_fpp(layout) <= textbook_slack * promised) return layout;
  std::uint64_t lo = params.bits;  // fails
  std::uint64_t hi = params.bits;
  shard_layout grown = layout;
  while (!(sharded_fpp(grown) <= fpp)) {
    if (hi >= max_bits) {
      throw error(errc::too_large, "capacity " + std::to_string(capacity) + " in shards of 2^" +
                                       std::to_string(max_bits_log2) +
                                       " bits needs more than the maximum of " +
                                       std::to_string(max_bits) + " bits");
    }
    lo = hi;
    hi = std::min(max_bits, hi + hi / 8);
    grown = for_bits(hi, params.hashes, max_bits_log2);
  }
  while (hi - lo > 64) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    const shard_layout candidate = for_bits(mid, params.hashes, max_bits_log2);
    if (sharded_fpp(candidate) <= fpp) {
      hi = mid;
      grown = candidate;
    } else {
      lo = mid;
    }
  }
  return grown;
}

std::string shard_layout::inconsistency() const {
  if (shard_count < 1) return "shard count is 0";
  if (shard_bits < 1) return "bits per shard is 0";
  if (shard_bits > (std::uint64_t{1} << max_shard_bits_log2)) {
    return "bits per shard " + std::to_string(shard_bits) + " exceed a Redis string (2^32 bits)";
  }
  if (shard_count > 1 && shard_bits % 64 != 0) {
    return "bits per shard " + std::to_string(shard_bits) + " is not a multiple of 64";
  }
  if (shard_count > max_bits / shard_bits) return "the filter exceeds 2^46 bits";
  if (hashes < 1 || hashes > max_hashes) {
    return "hashes " + std::to_string(hashes) + " out of [1, " + std::to_string(max_hashes) + "]";
  }
  return {};
}

void reverse_bits_in_bytes(std::span<unsigned char> bytes) noexcept {
  for (unsigned char& b : bytes) b = reversed_bytes[b];
}

}  // namespace bloomkit::redis
