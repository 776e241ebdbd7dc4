#pragma once
// A Ribbon filter (Dillinger & Walzer, "Ribbon filter: practically smaller than Bloom and Xor",
// 2021) with w = 64 coefficient columns and b result bits; written for the bench from the
// paper's description. A key's remixed hash x gives a start s, a 64-bit coefficient row c (bit 0
// set: the row covers solution rows s..s+63) and a b-bit result r; construction finds a solution
// Z (m rows of b bits) with c . Z[s..s+63] = r for every key:
//   - banding on the fly: each key's row is reduced against the rows already stored until it
//     lands in an empty slot (its leading column); a row that reduces to zero was redundant
//     (r also zero: a duplicate) or makes the system unsolvable (retry with the next seed);
//   - back substitution from the last row up, writing Z interleaved column-major: per block of
//     64 rows, b words, word j holding result bit j of those rows.
// A lookup reads the b words of the key's block and of the next one (contiguous memory).
// Homogeneous (the paper's Homogeneous Ribbon): every r is 0, so banding never fails; free rows
// get random values and a lookup checks c . Z == 0; its FPP sits a little above 2^-b.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "bench_keys.hpp"
#include "bloomkit/hashing.hpp"
#include "sorted_hashes.hpp"

namespace bloomkit::bench::static_variants {

template <bool Homogeneous>
class ribbon_filter {
 public:
  static constexpr const char* name = Homogeneous ? "ribbon-homog" : "ribbon";
  static constexpr unsigned w = 64;

  // 2^shard_bits independent band systems (shard = top bits of the key hash, as the library's
  // static_filter shards), each of M = (n / 2^shard_bits) (1 + overhead) slots rounded up to whole
  // blocks of 64, each retried alone with the next seed when its banding fails.
  ribbon_filter(std::span<const std::uint64_t> hashes, unsigned bits, double overhead,
                unsigned shard_bits = 0, std::uint64_t first_seed = 0, std::uint64_t max_seeds = 64)
      : bits_(bits), mask_((std::uint64_t{1} << bits) - 1), shard_bits_(shard_bits) {
    const std::uint64_t shards = std::uint64_t{1} << shard_bits;
    const double want = std::ceil(static_cast<double>(hashes.size()) / static_cast<double>(shards) *
                                  (1 + overhead));
    shard_blocks_ = std::max<std::uint64_t>(2, (static_cast<std::uint64_t>(want) + w - 1) / w);
    blocks_ = shard_blocks_ * shards;
    starts_ = shard_blocks_ * w - (w - 1);
    seeds_.assign(shards, first_seed);
    std::vector<std::uint64_t> rows(blocks_ * w, 0);
    std::vector<std::uint32_t> results(Homogeneous ? 0 : blocks_ * w, 0);
    const auto parts = by_shard(hashes);
    std::vector<std::uint64_t> xs;
    for (std::uint64_t i = 0; i < shards; ++i) {
      const std::span<const std::uint64_t> keys(parts.first.data() + parts.second[i],
                                                parts.second[i + 1] - parts.second[i]);
      for (;; ++seeds_[i]) {
        if (seeds_[i] - first_seed == max_seeds) {
          throw std::runtime_error(std::string(name) + ": no seed of " + std::to_string(max_seeds) +
                                   " solved shard " + std::to_string(i));
        }
        // Large shards are sorted by start, so banding walks its rows almost in order.
        xs = keys.size() > (1u << 16) ? sorted_remixed(keys, seeds_[i]) : remixed(keys, seeds_[i]);
        if (band(xs, i * shard_blocks_ * w, rows, results)) break;
        std::fill_n(rows.begin() + static_cast<std::ptrdiff_t>(i * shard_blocks_ * w),
                    shard_blocks_ * w, 0);
      }
      max_tries_ = std::max(max_tries_, seeds_[i] - first_seed + 1);
    }
    back_substitute(rows, results);
  }

  bool contains(std::uint64_t hash) const noexcept {
    const std::uint64_t shard = shard_of(hash);
    const std::uint64_t x = remix(hash, seeds_[shard]);
    const std::uint64_t s = shard * shard_blocks_ * w + start(x);
    const std::uint64_t c = coefficients(x);
    const std::uint64_t* lo = solution_.data() + (s / w) * bits_;
    const std::uint64_t* hi = lo + bits_;
    const unsigned off = s % w;
    const std::uint64_t want = result(x);
    for (unsigned j = 0; j < bits_; ++j) {
      // Rows s..s+63 of column j: the tail of this block's word and the head of the next one's
      // (shifted in two steps, so off = 0 takes none of it). A key not in the set differs in
      // the first bit with probability 1/2: most misses stop after one or two columns.
      const std::uint64_t rows = (lo[j] >> off) | ((hi[j] << 1) << (w - 1 - off));
      if (parity(rows & c) != ((want >> j) & 1)) return false;
    }
    return true;
  }
  // Lookups of a batch, prefetching the lines of the two blocks of the key `ahead` places on.
  std::size_t count_present(std::span<const std::uint64_t> hashes) const noexcept {
    constexpr std::size_t ahead = 16;
    const std::size_t span_bytes = 2 * bits_ * sizeof(std::uint64_t);
    std::size_t present = 0;
    for (std::size_t k = 0; k < hashes.size(); ++k) {
      if (k + ahead < hashes.size()) {
        const std::uint64_t h = hashes[k + ahead], shard = shard_of(h);
        const auto* p = reinterpret_cast<const char*>(
            solution_.data() +
            ((shard * shard_blocks_ * w + start(remix(h, seeds_[shard]))) / w) * bits_);
        for (std::size_t line = 0; line < span_bytes + 63; line += 64) {
          __builtin_prefetch(p + line);
        }
      }
      present += contains(hashes[k]);
    }
    return present;
  }

  // The solution's blocks (the extra block after the last lets a lookup read "the next block").
  // The solution and, when sharded, a 4-byte seed per shard.
  std::size_t byte_size() const noexcept {
    return blocks_ * bits_ * sizeof(std::uint64_t) + (shard_bits_ ? seeds_.size() * 4 : 0);
  }
  // The most seeds one shard needed.
  std::uint64_t seeds_tried() const noexcept { return max_tries_; }
  std::size_t slots() const noexcept { return blocks_ * w; }
  // Bytes of the banding arrays per slot (coefficients, and results unless homogeneous).
  static constexpr double work_bytes_per_slot = Homogeneous ? 8 : 12, work_bytes_per_key = 0;

 private:
  // Parity without POPCNT (the library targets baseline x86-64): XOR folding and the parity
  // flag, a handful of instructions.
  static std::uint64_t parity(std::uint64_t v) noexcept {
    return static_cast<std::uint64_t>(__builtin_parityll(v));
  }
  std::uint64_t start(std::uint64_t x) const noexcept { return reduce_range(x, starts_); }
  static std::uint64_t coefficients(std::uint64_t x) noexcept {
    return (x * 0xc2b2ae3d27d4eb4fULL) | 1;
  }
  std::uint64_t result(std::uint64_t x) const noexcept {
    if constexpr (Homogeneous) return 0;
    return mix64(x) & mask_;
  }

  std::uint64_t shard_of(std::uint64_t hash) const noexcept {
    return shard_bits_ == 0 ? 0 : hash >> (64 - shard_bits_);
  }
  // The hashes grouped by shard (counting sort on the top bits), and where each shard starts.
  std::pair<std::vector<std::uint64_t>, std::vector<std::size_t>> by_shard(
      std::span<const std::uint64_t> hashes) const {
    std::vector<std::size_t> begin((std::size_t{1} << shard_bits_) + 1, 0);
    for (const auto h : hashes) ++begin[shard_of(h) + 1];
    for (std::size_t i = 1; i < begin.size(); ++i) begin[i] += begin[i - 1];
    std::vector<std::uint64_t> out(hashes.size());
    std::vector<std::size_t> fill(begin.begin(), begin.end() - 1);
    for (const auto h : hashes) out[fill[shard_of(h)]++] = h;
    return {std::move(out), std::move(begin)};
  }
  static std::vector<std::uint64_t> remixed(std::span<const std::uint64_t> keys,
                                            std::uint64_t seed) {
    std::vector<std::uint64_t> xs(keys.size());
    for (std::size_t k = 0; k < keys.size(); ++k) xs[k] = remix(keys[k], seed);
    return xs;
  }

  // Banding on the fly of one shard's keys into its rows (from slot `base`); false if the
  // system is inconsistent.
  bool band(std::span<const std::uint64_t> xs, std::uint64_t base, std::vector<std::uint64_t>& rows,
            std::vector<std::uint32_t>& results) const {
    for (const auto x : xs) {
      std::uint64_t s = base + start(x), c = coefficients(x), r = result(x);
      for (;;) {
        if (rows[s] == 0) {
          rows[s] = c;
          if constexpr (!Homogeneous) results[s] = static_cast<std::uint32_t>(r);
          break;
        }
        c ^= rows[s];
        if constexpr (!Homogeneous) r ^= results[s];
        if (c == 0) {
          if (r != 0) return false;  // inconsistent: this seed's system has no solution
          break;                     // redundant (a duplicate)
        }
        const unsigned skip = static_cast<unsigned>(std::countr_zero(c));
        s += skip;
        c >>= skip;
      }
    }
    return true;
  }

  void back_substitute(const std::vector<std::uint64_t>& rows,
                       const std::vector<std::uint32_t>& results) {
    solution_.assign((blocks_ + 1) * bits_, 0);
    std::vector<std::uint64_t> window(bits_, 0);  // bit k of window[j]: Z[i + k][j]
    splitmix64 free_bits(seeds_[0] ^ 0x5eedULL);
    std::uint64_t random = 0;
    for (std::size_t i = blocks_ * w; i-- > 0;) {
      const std::uint64_t c = rows[i];
      if (c == 0) random = free_bits();  // a free row: any value solves the system
      for (unsigned j = 0; j < bits_; ++j) {
        std::uint64_t z;
        if (c == 0) {
          z = (random >> j) & 1;
        } else {
          const std::uint64_t r = Homogeneous ? 0 : results[i];
          z = ((r >> j) & 1) ^ parity((window[j] << 1) & c);
        }
        window[j] = (window[j] << 1) | z;
      }
      if (i % w == 0) {
        std::copy(window.begin(), window.end(), solution_.begin() + (i / w) * bits_);
      }
    }
  }

  unsigned bits_;
  std::uint64_t mask_;
  unsigned shard_bits_;
  std::uint64_t shard_blocks_ = 0, blocks_ = 0, starts_ = 0, max_tries_ = 0;
  std::vector<std::uint64_t> seeds_;
  std::vector<std::uint64_t> solution_;
};

}  // namespace bloomkit::bench::static_variants
