#include "storage_rules.hpp"

#include <algorithm>
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
  const blocked_shape shape = blocked_shape_of(hashes);  // names k when it is no layout
  if (bits == 0 || bits % shape.unit_bits != 0) {
    throw error(errc::invalid_argument, "bits of a blocked filter with " + std::to_string(hashes) +
                                            " hashes must be a positive multiple of " +
                                            std::to_string(shape.unit_bits) + " (got " +
                                            std::to_string(bits) + ")");
  }
  validate_blocks(bits / blocked_block_bits);
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

double blocked_fpp_of(std::span<const std::uint64_t> words, std::uint32_t hashes) noexcept {
  if (hashes == blocked_hashes) {
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
  // Lines: a stranger's line is uniform and its bit in each field of it too; its lines are
  // independent, so (mean over lines of prod over fields (set bits / F))^(lines per key).
  const std::uint32_t per_key = hashes == blocked_two_line_hashes ? 2 : 1;
  const std::uint32_t b = hashes / per_key;
  const std::uint64_t field = blocked_line_bits / b;
  const std::uint64_t line_words = blocked_line_bits / 64;
  double sum = 0;
  for (std::size_t l = 0; l + line_words <= words.size(); l += line_words) {
    double line = 1;
    for (std::uint64_t f = 0; f < b; ++f) {
      line *= static_cast<double>(count_bits(words.data() + l, f * field, field)) /
              static_cast<double>(field);
    }
    sum += line;
  }
  const double mean = sum / static_cast<double>(words.size() / line_words);
  return per_key == 1 ? mean : mean * mean;
}

std::uint64_t count_bits(const std::uint64_t* words, std::uint64_t first,
                         std::uint64_t count) noexcept {
  std::uint64_t set = 0;
  for (std::uint64_t bit = first; bit < first + count;) {
    const std::uint64_t offset = bit % 64;
    const std::uint64_t take = std::min<std::uint64_t>(64 - offset, first + count - bit);
    const std::uint64_t mask = take == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << take) - 1);
    set += static_cast<std::uint64_t>(std::popcount((words[bit / 64] >> offset) & mask));
    bit += take;
  }
  return set;
}

}  // namespace bloomkit::detail
