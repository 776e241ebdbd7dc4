#include "storage_rules.hpp"

#include <bit>
#include <string>

#include "bloomkit/error.hpp"

namespace bloomkit::detail {

void check_bit_config(std::uint64_t cells, std::uint32_t hashes) {
  validate_params(cells, hashes);
}

void check_counter_config(std::uint64_t cells, std::uint32_t hashes) {
  validate_params(cells, hashes);
  if (cells > counter_storage::max_cells) {
    throw error(errc::too_large, "counters " + std::to_string(cells) + " exceed the maximum of " +
                                     std::to_string(counter_storage::max_cells) +
                                     " (4 bits each, 8 TiB)");
  }
}

void check_blocked_config(std::uint64_t bits, std::uint32_t hashes) {
  if (bits == 0 || bits % blocked_block_bits != 0) {
    throw error(errc::invalid_argument, "bits of a blocked filter must be a positive multiple of " +
                                            std::to_string(blocked_block_bits) + " (got " +
                                            std::to_string(bits) + ")");
  }
  validate_blocks(bits / blocked_block_bits);
  if (hashes != blocked_hashes) {
    throw error(errc::invalid_argument, "hashes of a blocked filter must be " +
                                            std::to_string(blocked_hashes) + " (got " +
                                            std::to_string(hashes) + ")");
  }
}

std::uint64_t blocks_for_bits(std::uint64_t bits) {
  if (bits == 0) throw error(errc::invalid_argument, "bits must be at least 1 (got 0)");
  return bits / blocked_block_bits + (bits % blocked_block_bits != 0);
}

filter_config blocked_config_for_blocks(std::uint64_t blocks) {
  validate_blocks(blocks);
  const std::uint64_t n = blocked_natural_capacity(blocks);
  return {blocks * blocked_block_bits, blocked_hashes, n, blocked_expected_fpp(blocks, n)};
}

double blocked_fpp_of(std::span<const std::uint64_t> words) noexcept {
  // A stranger's block is uniform and its bit in each 32-bit word of it too, so it is a false
  // positive with probability mean over blocks of prod over words (set bits / 32).
  double sum = 0;
  for (std::size_t b = 0; b + 4 <= words.size(); b += 4) {
    double block = 1;
    for (std::size_t w = b; w < b + 4; ++w) {
      block *= std::popcount(static_cast<std::uint32_t>(words[w])) / 32.0;
      block *= std::popcount(static_cast<std::uint32_t>(words[w] >> 32)) / 32.0;
    }
    sum += block;
  }
  return sum / static_cast<double>(words.size() / 4);
}

}  // namespace bloomkit::detail
