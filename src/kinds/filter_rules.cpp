#include "filter_rules.hpp"

#include <bit>
#include <limits>
#include <string>

#include "../core/exact_double.hpp"

namespace bloomkit::detail {

void require_writable(bool read_only) {
  if (read_only) {
    throw error(errc::read_only, "filter is read-only (it maps a file); load it to modify it");
  }
}

std::uint64_t count_from_estimate(double estimate, std::uint64_t cells) noexcept {
  if (!(estimate < static_cast<double>(cells))) return cells;
  return static_cast<std::uint64_t>(std::llround(estimate));
}

void require_same_geometry(std::string_view kind, std::string_view cell_name,
                           const filter_config& a, const filter_config& b, const char* operation) {
  auto mismatch = [&](std::string_view what, std::uint64_t mine, std::uint64_t theirs) {
    std::string message = std::string("cannot ") + operation + " ";
    if (!kind.empty()) message += std::string(kind) + " ";
    throw error(errc::incompatible, message + "filters: " + std::string(what) + " differ (" +
                                        std::to_string(mine) + " vs " + std::to_string(theirs) +
                                        ")");
  };
  if (a.cells != b.cells) mismatch(cell_name, a.cells, b.cells);
  if (a.hashes != b.hashes) mismatch("hashes", a.hashes, b.hashes);
}

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

void check_storage_size(const filter_config& c, std::uint64_t storage_bits,
                        std::uint32_t bits_per_cell) {
  const std::uint64_t expected = c.cells * bits_per_cell;
  if (storage_bits != expected) {
    throw error(
        errc::invalid_argument,
        "filter storage holds " + std::to_string(storage_bits) + " bits, expected " +
            std::to_string(expected) +
            (bits_per_cell == 1 ? "" : " (" + std::to_string(bits_per_cell) + " per cell)"));
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

std::string capacity_and_fpp_problem(const char* capacity_name, std::uint64_t n, double p) {
  if (n < 1) return std::string(capacity_name) + " must be at least 1 (got 0)";
  if (!in_open_unit_interval(p)) return "target fpp must be in (0, 1), got " + exact_double(p);
  return {};
}

std::string range_problem(const char* what, std::uint64_t v, std::uint64_t lo, std::uint64_t hi) {
  if (v >= lo && v <= hi) return {};
  return std::string(what) + " must be in " + std::to_string(lo) + ".." + std::to_string(hi) +
         ", got " + std::to_string(v);
}

}  // namespace bloomkit::detail
