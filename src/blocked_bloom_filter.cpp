#include "bloomkit/blocked_bloom_filter.hpp"

#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "blocked_kernels.hpp"
#include "bloomkit/detail/result_slots.hpp"
#include "bloomkit/error.hpp"

namespace bloomkit {
namespace detail {
namespace {

// The portable path: the same masks, built one 32-bit word at a time.
struct portable_isa {
  static void masks(std::uint32_t h32, std::uint64_t out[4]) noexcept {
    for (int j = 0; j < 4; ++j) {
      const std::uint32_t low = (h32 * blocked_salts[2 * j]) >> 27;
      const std::uint32_t high = (h32 * blocked_salts[2 * j + 1]) >> 27;
      out[j] = (std::uint64_t{1} << low) | (std::uint64_t{1} << (high + 32));
    }
  }
  static bool insert(std::uint64_t* block, std::uint32_t h32) noexcept {
    std::uint64_t m[4];
    masks(h32, m);
    bool changed = false;
    for (int j = 0; j < 4; ++j) {
      changed |= (block[j] & m[j]) != m[j];
      block[j] |= m[j];
    }
    return changed;
  }
  static bool contains(const std::uint64_t* block, std::uint32_t h32) noexcept {
    std::uint64_t m[4];
    masks(h32, m);
    std::uint64_t missing = 0;
    for (int j = 0; j < 4; ++j) missing |= m[j] & ~load_relaxed(block + j);
    return missing == 0;
  }
};

constexpr blocked_kernels portable_table = blocked_paths<portable_isa>::table("portable");

}  // namespace

const blocked_kernels& portable_blocked_kernels() noexcept {
  return portable_table;
}

}  // namespace detail

namespace {

const detail::blocked_kernels* avx2_if_supported() noexcept {
  static const detail::blocked_kernels* const kernels =
      __builtin_cpu_supports("avx2") ? detail::avx2_blocked_kernels() : nullptr;
  return kernels;
}

const detail::blocked_kernels* default_kernels() noexcept {
  const detail::blocked_kernels* avx2 = avx2_if_supported();
  return avx2 != nullptr ? avx2 : &detail::portable_blocked_kernels();
}

void validate_blocked_bits(std::uint64_t bits) {
  if (bits == 0 || bits % blocked_block_bits != 0) {
    throw error(errc::invalid_argument, "bits of a blocked filter must be a positive multiple of " +
                                            std::to_string(blocked_block_bits) + " (got " +
                                            std::to_string(bits) + ")");
  }
  validate_blocks(bits / blocked_block_bits);
}

// Whole blocks holding at least `bits` bits.
std::uint64_t blocks_for_bits(std::uint64_t bits) {
  if (bits == 0) throw error(errc::invalid_argument, "bits must be at least 1 (got 0)");
  return bits / blocked_block_bits + (bits % blocked_block_bits != 0);
}

filter_config config_for_blocks(std::uint64_t blocks) {
  validate_blocks(blocks);
  const std::uint64_t n = blocked_natural_capacity(blocks);
  return {blocks * blocked_block_bits, blocked_hashes, n, blocked_expected_fpp(blocks, n)};
}

}  // namespace

blocked_bloom_filter blocked_bloom_filter::for_capacity(std::uint64_t n, double p) {
  const std::uint64_t blocks = blocked_optimal_blocks(n, p);
  return {filter_config{blocks * block_bits, hashes_per_key, n, p}, bit_array(blocks * block_bits),
          0};
}

blocked_bloom_filter blocked_bloom_filter::with_blocks(std::uint64_t blocks) {
  const filter_config config = config_for_blocks(blocks);
  return {config, bit_array(config.bits), 0};
}

blocked_bloom_filter::blocked_bloom_filter(std::uint64_t bits)
    : blocked_bloom_filter(with_blocks(blocks_for_bits(bits))) {}

blocked_bloom_filter::blocked_bloom_filter(const filter_config& config, bit_array storage,
                                           std::uint64_t inserted)
    : config_(config), bits_(std::move(storage)), inserted_(inserted), kernels_(default_kernels()) {
  validate_blocked_bits(config.bits);
  if (config.hashes != hashes_per_key) {
    throw error(errc::invalid_argument, "hashes of a blocked filter must be " +
                                            std::to_string(hashes_per_key) + " (got " +
                                            std::to_string(config.hashes) + ")");
  }
  if (bits_.size() != config.bits) {
    throw error(errc::invalid_argument, "filter storage holds " + std::to_string(bits_.size()) +
                                            " bits, expected " + std::to_string(config.bits));
  }
}

std::uint64_t* blocked_bloom_filter::writable_words() {
  if (bits_.read_only()) {
    throw error(errc::read_only, "filter is read-only (it maps a file); load it to modify it");
  }
  return bits_.mutable_words().data();
}

void blocked_bloom_filter::add_inserted(std::uint64_t n, bool atomic) noexcept {
  if (atomic) {
    if (n != 0) __atomic_fetch_add(&inserted_, n, __ATOMIC_RELAXED);
  } else {
    inserted_ += n;
  }
}

bool blocked_bloom_filter::insert(std::string_view key) {
  const bool fresh = kernels_->insert(writable_words(), blocks(), key);
  add_inserted(fresh, false);
  return fresh;
}

bool blocked_bloom_filter::insert_concurrent(std::string_view key) {
  const bool fresh = kernels_->insert_atomic(writable_words(), blocks(), key);
  add_inserted(fresh, true);
  return fresh;
}

bool blocked_bloom_filter::contains(std::string_view key) const {
  const bool present = kernels_->contains(bits_.data(), blocks(), key);
  bits_.check_source();
  return present;
}

std::size_t blocked_bloom_filter::insert_many(std::span<const std::string_view> keys) {
  const std::size_t fresh = kernels_->insert_many(writable_words(), blocks(), keys);
  add_inserted(fresh, false);
  return fresh;
}

std::size_t blocked_bloom_filter::insert_many_concurrent(std::span<const std::string_view> keys) {
  const std::size_t fresh = kernels_->insert_many_atomic(writable_words(), blocks(), keys);
  add_inserted(fresh, true);
  return fresh;
}

std::size_t blocked_bloom_filter::contains_many(std::span<const std::string_view> keys,
                                                std::span<bool> results) const {
  detail::require_result_slots(keys.size(), results.size());
  const std::size_t present = kernels_->contains_many(bits_.data(), blocks(), keys, results.data());
  bits_.check_source();
  return present;
}

void blocked_bloom_filter::require_compatible(const blocked_bloom_filter& other,
                                              const char* operation) const {
  if (config_.bits != other.config_.bits) {
    throw error(errc::incompatible, std::string("cannot ") + operation +
                                        " blocked filters: bits differ (" +
                                        std::to_string(config_.bits) + " vs " +
                                        std::to_string(other.config_.bits) + ")");
  }
}

void blocked_bloom_filter::merge(const blocked_bloom_filter& other) {
  require_compatible(other, "merge");
  writable_words();
  auto mine = bits_.mutable_words();
  auto theirs = other.bits_.words();
  for (std::size_t i = 0; i < mine.size(); ++i) mine[i] |= theirs[i];
  other.bits_.check_source();
  inserted_ = estimated_inserted();
}

void blocked_bloom_filter::intersect(const blocked_bloom_filter& other) {
  require_compatible(other, "intersect");
  writable_words();
  auto mine = bits_.mutable_words();
  auto theirs = other.bits_.words();
  for (std::size_t i = 0; i < mine.size(); ++i) mine[i] &= theirs[i];
  other.bits_.check_source();
  inserted_ = estimated_inserted();
}

void blocked_bloom_filter::clear() {
  bits_.clear();
  inserted_ = 0;
}

double blocked_bloom_filter::estimated_count() const noexcept {
  const double m = static_cast<double>(bits());
  const double set = static_cast<double>(bits_.count());
  if (set >= m) return std::numeric_limits<double>::infinity();
  return -m / hashes_per_key * std::log1p(-set / m);
}

std::uint64_t blocked_bloom_filter::estimated_inserted() const noexcept {
  const double estimate = estimated_count();
  // A saturated filter (every bit set) says nothing about its count; report m.
  if (!(estimate < static_cast<double>(bits()))) return bits();
  return static_cast<std::uint64_t>(std::llround(estimate));
}

double blocked_bloom_filter::estimated_fpp() const noexcept {
  // A stranger's block is uniform and its bit in each 32-bit word of it too, so it is a false
  // positive with probability mean over blocks of prod over words (set bits / 32).
  const std::span<const std::uint64_t> words = bits_.words();
  double sum = 0;
  for (std::size_t b = 0; b + 4 <= words.size(); b += 4) {
    double block = 1;
    for (std::size_t w = b; w < b + 4; ++w) {
      block *= std::popcount(static_cast<std::uint32_t>(words[w])) / 32.0;
      block *= std::popcount(static_cast<std::uint32_t>(words[w] >> 32)) / 32.0;
    }
    sum += block;
  }
  return sum / static_cast<double>(blocks());
}

bool blocked_bloom_filter::simd_supported() noexcept {
  return avx2_if_supported() != nullptr;
}

bool blocked_bloom_filter::simd() const noexcept {
  return kernels_ != &detail::portable_blocked_kernels();
}

bool blocked_bloom_filter::set_simd(bool enable) noexcept {
  const detail::blocked_kernels* avx2 = avx2_if_supported();
  kernels_ = enable && avx2 != nullptr ? avx2 : &detail::portable_blocked_kernels();
  return simd();
}

}  // namespace bloomkit
