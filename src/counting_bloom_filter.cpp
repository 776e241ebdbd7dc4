#include "bloomkit/counting_bloom_filter.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "bloomkit/detail/result_slots.hpp"
#include "bloomkit/error.hpp"

namespace bloomkit {
namespace {

constexpr std::uint64_t nibble_low_bits = 0x1111111111111111ull;
constexpr std::uint64_t byte_low_nibbles = 0x0F0F0F0F0F0F0F0Full;

void validate_counters(std::uint64_t m, std::uint32_t k) {
  validate_params(m, k);
  if (m > counting_bloom_filter::max_counters) {
    throw error(errc::too_large, "counters " + std::to_string(m) + " exceed the maximum of " +
                                     std::to_string(counting_bloom_filter::max_counters) +
                                     " (4 bits each, 8 TiB)");
  }
}

// Bit 4i of the result is set when nibble i of w is non-zero.
constexpr std::uint64_t nonzero_nibbles(std::uint64_t w) noexcept {
  return (w | (w >> 1) | (w >> 2) | (w >> 3)) & nibble_low_bits;
}

// Bytewise min(15, a + b) for bytes that each hold one counter (0..15) in their low nibble.
constexpr std::uint64_t saturating_add_low_nibbles(std::uint64_t a, std::uint64_t b) noexcept {
  const std::uint64_t sum = a + b;  // each byte <= 30: no carry into the next byte
  // Byte >= 16 <=> byte + 0x70 >= 0x80; spread that top bit over the byte.
  const std::uint64_t over = ((sum + 0x7070707070707070ull) & 0x8080808080808080ull) >> 7;
  return (sum | (over * 0xFF)) & byte_low_nibbles;
}

constexpr std::uint64_t saturating_add_nibbles(std::uint64_t a, std::uint64_t b) noexcept {
  const std::uint64_t even = saturating_add_low_nibbles(a & byte_low_nibbles, b & byte_low_nibbles);
  const std::uint64_t odd =
      saturating_add_low_nibbles((a >> 4) & byte_low_nibbles, (b >> 4) & byte_low_nibbles);
  return even | (odd << 4);
}

}  // namespace

counting_bloom_filter counting_bloom_filter::for_capacity(std::uint64_t n, double p) {
  const filter_params params = optimal_params(n, p);
  validate_counters(params.bits, params.hashes);
  return counting_bloom_filter(filter_config{params.bits, params.hashes, n, p},
                               bit_array(params.bits * 4), 0);
}

counting_bloom_filter::counting_bloom_filter(std::uint64_t counters, std::uint32_t hashes) {
  validate_counters(counters, hashes);
  const std::uint64_t n = natural_capacity(counters, hashes);
  config_ = filter_config{counters, hashes, n, exact_fpp(counters, hashes, n)};
  counters_ = bit_array(counters * 4);
}

counting_bloom_filter::counting_bloom_filter(const filter_config& config, bit_array storage,
                                             std::uint64_t inserted)
    : config_(config), counters_(std::move(storage)), inserted_(inserted) {
  validate_counters(config.bits, config.hashes);
  if (counters_.size() != config.bits * 4) {
    throw error(errc::invalid_argument, "counter storage holds " +
                                            std::to_string(counters_.size()) + " bits, expected " +
                                            std::to_string(config.bits * 4) + " (4 per counter)");
  }
}

std::uint64_t* counting_bloom_filter::writable_words() {
  if (read_only()) {
    throw error(errc::read_only,
                "counting filter is read-only (it maps a file); load it to modify it");
  }
  return counters_.mutable_words().data();
}

bool counting_bloom_filter::increment(std::uint64_t* words, probe_sequence probes,
                                      std::uint32_t k) noexcept {
  bool fresh = false;
  for (std::uint32_t i = 0; i < k; ++i) {
    const std::uint64_t index = probes.next();
    std::uint64_t& w = words[index >> 4];
    const unsigned shift = static_cast<unsigned>(index & 15) * 4;
    const std::uint64_t c = (w >> shift) & 15;
    fresh |= c == 0;
    if (c != max_count) w += std::uint64_t{1} << shift;
  }
  return fresh;
}

bool counting_bloom_filter::test(probe_sequence probes) const noexcept {
  for (std::uint32_t i = 0; i < config_.hashes; ++i) {
    if (count_at(probes.next()) == 0) return false;
  }
  return true;
}

bool counting_bloom_filter::insert(std::string_view key) {
  std::uint64_t* words = writable_words();
  const bool fresh =
      increment(words, policy_type::probes(policy_type::hash(key), bits()), hashes());
  ++inserted_;
  return fresh;
}

bool counting_bloom_filter::contains(std::string_view key) const {
  const bool present = test(policy_type::probes(policy_type::hash(key), bits()));
  counters_.check_source();
  return present;
}

bool counting_bloom_filter::remove(std::string_view key) {
  std::uint64_t* words = writable_words();
  // Two probes of one key may land on the same counter; the key then added 2 to it. Sorting
  // the positions groups such probes, so each counter is checked against what the key
  // contributed before anything changes.
  std::array<std::uint64_t, max_hashes> pos;
  const std::uint32_t k = hashes();
  auto probes = policy_type::probes(policy_type::hash(key), bits());
  for (std::uint32_t i = 0; i < k; ++i) pos[i] = probes.next();
  std::sort(pos.begin(), pos.begin() + k);
  for (std::uint32_t i = 0; i < k;) {
    std::uint32_t run = 1;
    while (i + run < k && pos[i + run] == pos[i]) ++run;
    const std::uint32_t c = count_at(pos[i]);
    if (c != max_count && c < run) return false;  // definitely absent
    i += run;
  }
  for (std::uint32_t i = 0; i < k; ++i) {
    std::uint64_t& w = words[pos[i] >> 4];
    const unsigned shift = static_cast<unsigned>(pos[i] & 15) * 4;
    if (((w >> shift) & 15) != max_count) w -= std::uint64_t{1} << shift;
  }
  if (inserted_ > 0) --inserted_;
  return true;
}

std::size_t counting_bloom_filter::insert_many(std::span<const std::string_view> keys) {
  std::uint64_t* words = writable_words();
  const std::uint64_t m = bits();
  const std::uint32_t k = hashes();
  std::size_t fresh = 0;
  probe_sequence sequences[block_size];
  for (std::size_t base = 0; base < keys.size(); base += block_size) {
    const std::size_t n = std::min(block_size, keys.size() - base);
    // Stage 1: hash the block and ask for every line its keys will write.
    for (std::size_t j = 0; j < n; ++j) {
      sequences[j] = policy_type::probes(policy_type::hash(keys[base + j]), m);
      auto ahead = sequences[j];
      for (std::uint32_t i = 0; i < k; ++i) prefetch_for_write(ahead.next());
    }
    // Stage 2: increment; by now most lines are in cache or on their way.
    for (std::size_t j = 0; j < n; ++j) fresh += increment(words, sequences[j], k);
  }
  inserted_ += keys.size();
  return fresh;
}

std::size_t counting_bloom_filter::contains_many(std::span<const std::string_view> keys,
                                                 std::span<bool> results) const {
  detail::require_result_slots(keys.size(), results.size());
  const std::uint64_t m = bits();
  const std::uint32_t k = hashes();
  std::size_t present = 0;
  probe_sequence sequences[block_size];
  for (std::size_t base = 0; base < keys.size(); base += block_size) {
    const std::size_t n = std::min(block_size, keys.size() - base);
    for (std::size_t j = 0; j < n; ++j) {
      sequences[j] = policy_type::probes(policy_type::hash(keys[base + j]), m);
      auto ahead = sequences[j];
      for (std::uint32_t i = 0; i < k; ++i) prefetch(ahead.next());
    }
    for (std::size_t j = 0; j < n; ++j) {
      const bool hit = test(sequences[j]);
      results[base + j] = hit;
      present += hit;
    }
  }
  counters_.check_source();
  return present;
}

void counting_bloom_filter::merge(const counting_bloom_filter& other) {
  if (bits() != other.bits() || hashes() != other.hashes()) {
    throw error(errc::incompatible, "cannot merge counting filters: counters/hashes differ (" +
                                        std::to_string(bits()) + "/" + std::to_string(hashes()) +
                                        " vs " + std::to_string(other.bits()) + "/" +
                                        std::to_string(other.hashes()) + ")");
  }
  std::uint64_t* mine = writable_words();
  const std::uint64_t* theirs = other.counters_.data();
  const std::size_t words = counters_.word_count();
  for (std::size_t i = 0; i < words; ++i) mine[i] = saturating_add_nibbles(mine[i], theirs[i]);
  other.counters_.check_source();
  inserted_ = other.inserted_ > std::numeric_limits<std::uint64_t>::max() - inserted_
                  ? std::numeric_limits<std::uint64_t>::max()
                  : inserted_ + other.inserted_;
}

void counting_bloom_filter::clear() {
  writable_words();
  counters_.clear();
  inserted_ = 0;
}

bloom_filter counting_bloom_filter::to_bloom_filter() const {
  bit_array out(bits());
  const std::uint64_t* words = counters_.data();
  const std::size_t count = counters_.word_count();
  for (std::size_t i = 0; i < count; ++i) {
    for (std::uint64_t nz = nonzero_nibbles(words[i]); nz != 0; nz &= nz - 1) {
      out.set(i * 16 + static_cast<std::uint64_t>(std::countr_zero(nz)) / 4);
    }
  }
  counters_.check_source();
  return bloom_filter(config_, std::move(out), inserted_);
}

std::uint32_t counting_bloom_filter::counter(std::uint64_t index) const noexcept {
  return count_at(index);
}

std::uint64_t counting_bloom_filter::nonzero_counters() const noexcept {
  std::uint64_t total = 0;
  for (const std::uint64_t w : counters_.words()) total += std::popcount(nonzero_nibbles(w));
  return total;
}

std::uint64_t counting_bloom_filter::saturated_counters() const noexcept {
  std::uint64_t total = 0;
  for (const std::uint64_t w : counters_.words()) {
    total += std::popcount(w & (w >> 1) & (w >> 2) & (w >> 3) & nibble_low_bits);
  }
  return total;
}

double counting_bloom_filter::estimated_count() const noexcept {
  const double m = static_cast<double>(bits());
  const double set = static_cast<double>(nonzero_counters());
  if (set >= m) return std::numeric_limits<double>::infinity();
  return -m / hashes() * std::log1p(-set / m);
}

}  // namespace bloomkit
