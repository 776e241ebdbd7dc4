// A chain as a filter of the kind registry (redisbloom.hpp, "the registry's common surface"):
// insert / contains over add() and contains(), and the figures `bloomkit info` shows.

#include <bit>
#include <cmath>
#include <cstring>

#include "bloomkit/sizing.hpp"
#include "redisbloom_slot.hpp"

namespace bloomkit::redisbloom {

namespace {

std::uint64_t set_bits(std::span<const unsigned char> bytes) noexcept {
  std::uint64_t n = 0;
  for (unsigned char b : bytes) n += static_cast<std::uint64_t>(std::popcount(b));
  return n;
}

}  // namespace

bool chain::insert(std::string_view key) {
  switch (add(key)) {
    case add_result::added:
      return true;
    case add_result::present:
      return false;
    case add_result::full:
      throw error(errc::too_large, "RedisBloom filter: non scaling filter is full");
    default:
      throw error(errc::too_large, "RedisBloom filter: cannot add another link (growth " +
                                       std::to_string(growth()) + ")");
  }
}

std::size_t chain::insert_many(std::span<const std::string_view> keys) {
  std::size_t added = 0;
  for (std::string_view key : keys) added += insert(key) ? 1 : 0;
  return added;
}

std::size_t chain::contains_many(std::span<const std::string_view> keys,
                                 std::span<bool> results) const {
  std::vector<std::uint8_t> answers(keys.size());
  contains_many(keys, std::span<std::uint8_t>(answers));
  std::size_t present = 0;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    results[i] = answers[i] != 0;
    present += answers[i];
  }
  return present;
}

void chain::merge(const chain&) {
  throw error(errc::incompatible,
              "RedisBloom filters cannot be merged (their links' item counts would be wrong)");
}

void chain::intersect(const chain&) {
  throw error(errc::incompatible, "RedisBloom filters cannot be intersected");
}

void chain::clear() {
  for (std::size_t i = 0; i < filters(); ++i) {
    const auto bits = mutable_link_bits(i);
    std::memset(bits.data(), 0, bits.size());
    links_[i].size = 0;
  }
  size_ = 0;
}

std::uint64_t chain::cells() const noexcept {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < filters(); ++i) total += links_[i].bits();
  return total;
}

std::uint32_t chain::hashes() const noexcept {
  return links_[0].hashes();
}

double chain::target_fpp() const noexcept {
  return links_[0].error;
}

double chain::fill_ratio() const noexcept {
  std::uint64_t set = 0;
  for (std::size_t i = 0; i < filters(); ++i) set += set_bits(link_bits(i));
  return static_cast<double>(set) / static_cast<double>(bit_bytes() * 8);
}

double chain::estimated_count() const noexcept {
  double total = 0;
  for (std::size_t i = 0; i < filters(); ++i) {
    const link_slot& s = links_[i];
    if (s.hashes() == 0) continue;
    total += estimate_count(s.bytes() * 8, s.hashes(), set_bits(link_bits(i)));
  }
  return total;
}

double chain::estimated_fpp() const noexcept {
  double all_negative = 1;
  for (std::size_t i = 0; i < filters(); ++i) {
    const link_slot& s = links_[i];
    const double fill =
        static_cast<double>(set_bits(link_bits(i))) / static_cast<double>(s.bytes() * 8);
    all_negative *= 1 - independent_probes_fpp_at_fill(s.bytes() * 8, s.hashes(), fill);
  }
  return 1 - all_negative;
}

}  // namespace bloomkit::redisbloom
