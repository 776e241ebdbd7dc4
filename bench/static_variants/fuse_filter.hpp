#pragma once
// A binary fuse filter (Graf & Lemire, "Binary Fuse Filters: Fast and Smaller Than Xor Filters",
// 2022), 3-wise or 4-wise, with b-bit packed fingerprints; written for the bench from the paper's
// description. A key's remixed hash x picks one segment and its Arity - 1 successors, one
// position in each; construction peels positions hit by a single key and assigns fingerprints in
// reverse peeling order so that the XOR of a key's Arity values is its fingerprint.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "bloomkit/hashing.hpp"
#include "packed_fingerprints.hpp"
#include "sorted_hashes.hpp"

namespace bloomkit::bench::static_variants {

template <unsigned Arity>
class fuse_filter {
  static_assert(Arity == 3 || Arity == 4);

 public:
  static constexpr const char* name = Arity == 3 ? "fuse3" : "fuse4";

  // Builds from key hashes; retries with the next seed until peeling succeeds.
  fuse_filter(std::span<const std::uint64_t> hashes, unsigned bits, std::uint64_t first_seed = 0,
              std::uint64_t max_seeds = 64)
      : bits_(bits), first_seed_(first_seed) {
    size_for(hashes.size());
    for (seed_ = first_seed;; ++seed_) {
      if (seed_ - first_seed == max_seeds)
        throw std::runtime_error(std::string(name) + ": no seed of " + std::to_string(max_seeds) +
                                 " solved the set");
      const auto xs = sorted_remixed(hashes, seed_);
      if (try_build(xs)) break;
    }
  }

  bool contains(std::uint64_t hash) const noexcept {
    const std::uint64_t x = remix(hash, seed_);
    const auto p = positions(x);
    std::uint64_t v = fingerprint(x);
    for (const auto i : p) v ^= table_.get(i);
    return v == 0;
  }
  // Lookups of a batch, prefetching the Arity lines of the key `ahead` places on.
  std::size_t count_present(std::span<const std::uint64_t> hashes) const noexcept {
    constexpr std::size_t ahead = 16;
    std::size_t present = 0;
    for (std::size_t k = 0; k < hashes.size(); ++k) {
      if (k + ahead < hashes.size()) {
        for (const auto i : positions(remix(hashes[k + ahead], seed_))) {
          __builtin_prefetch(table_.address(i));
        }
      }
      present += contains(hashes[k]);
    }
    return present;
  }

  std::size_t byte_size() const noexcept { return table_.byte_size(); }
  std::uint64_t seeds_tried() const noexcept { return seed_ - first_seed_ + 1; }
  // Bytes of the construction's own arrays per slot (count, XOR of hashes) and per key (the
  // peeling stack), besides the sorted input's 8 bytes per key.
  static constexpr double work_bytes_per_slot = 9, work_bytes_per_key = 12;
  std::size_t slots() const noexcept { return array_length_; }

 private:
  void size_for(std::size_t n) {
    const double ln = std::log(static_cast<double>(std::max<std::size_t>(n, 2)));
    // The paper's segment length and size factor for 3- and 4-wise filters.
    const double seg_exp =
        Arity == 3 ? std::floor(ln / std::log(3.33) + 2.25) : std::floor(ln / std::log(2.91) - 0.5);
    segment_length_ = std::uint64_t{1} << static_cast<unsigned>(std::clamp(seg_exp, 1.0, 18.0));
    const double factor = Arity == 3 ? std::max(1.125, 0.875 + 0.25 * std::log(1e6) / ln)
                                     : std::max(1.075, 0.77 + 0.305 * std::log(6e5) / ln);
    const auto capacity = static_cast<std::uint64_t>(std::llround(static_cast<double>(n) * factor));
    std::uint64_t segments = (capacity + segment_length_ - 1) / segment_length_;
    segments = segments > Arity - 1 ? segments - (Arity - 1) : 1;
    segment_count_length_ = segments * segment_length_;
    array_length_ = (segments + Arity - 1) * segment_length_;
  }

  std::array<std::uint64_t, Arity> positions(std::uint64_t x) const noexcept {
    const std::uint64_t mask = segment_length_ - 1;
    const std::uint64_t first = reduce_range(x, segment_count_length_);
    std::array<std::uint64_t, Arity> p;
    p[0] = first;
    // Each further position: the next segment, at an offset taken from other bits of x.
    for (unsigned j = 1; j < Arity; ++j) {
      p[j] = (first + j * segment_length_) ^ ((x >> (18 * (j - 1))) & mask);
    }
    return p;
  }
  std::uint64_t fingerprint(std::uint64_t x) const noexcept {
    // The top bits of an odd multiple: every bit of x counts, unlike the positions' offsets.
    return (x * 0x9e3779b97f4a7c15ULL) >> (64 - bits_);
  }

  bool try_build(std::span<const std::uint64_t> xs) {
    const std::size_t n = xs.size();
    std::vector<std::uint8_t> count(array_length_, 0);
    std::vector<std::uint64_t> xor_of(array_length_, 0);
    for (const auto x : xs) {
      for (const auto i : positions(x)) {
        ++count[i];
        xor_of[i] ^= x;
      }
    }
    // Peel: a position hit by one key fixes that key; depth-first keeps the work local.
    std::vector<std::uint64_t> stack_x;
    std::vector<std::uint32_t> stack_pos;
    stack_x.reserve(n);
    stack_pos.reserve(n);
    std::vector<std::uint32_t> ready;
    for (std::size_t i = 0; i < array_length_; ++i) {
      if (count[i] != 1) continue;
      ready.push_back(static_cast<std::uint32_t>(i));
      while (!ready.empty()) {
        const std::uint32_t at = ready.back();
        ready.pop_back();
        if (count[at] != 1) continue;
        const std::uint64_t x = xor_of[at];
        stack_x.push_back(x);
        stack_pos.push_back(at);
        for (const auto j : positions(x)) {
          xor_of[j] ^= x;
          if (--count[j] == 1) ready.push_back(static_cast<std::uint32_t>(j));
        }
      }
    }
    if (stack_x.size() != n) return false;
    table_ = packed_fingerprints(array_length_, bits_);
    for (std::size_t k = n; k-- > 0;) {
      const std::uint64_t x = stack_x[k];
      std::uint64_t v = fingerprint(x);
      for (const auto j : positions(x)) {
        if (j != stack_pos[k]) v ^= table_.get(j);
      }
      table_.set(stack_pos[k], v);
    }
    return true;
  }

  unsigned bits_;
  std::uint64_t first_seed_, seed_ = 0;
  std::uint64_t segment_length_ = 0, segment_count_length_ = 0, array_length_ = 0;
  packed_fingerprints table_;
};

}  // namespace bloomkit::bench::static_variants
