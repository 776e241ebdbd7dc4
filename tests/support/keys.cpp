// The tests' key sets (keys.hpp), compiled once at the build's optimization level: the test
// programs compile with less, and the property tests make millions of keys (under ASan, at -O0
// in the test programs, making them was 30-50% of the largest no-false-negative tests' time).

#include "support/keys.hpp"

#include <charconv>
#include <random>

namespace bloomkit::test {

std::vector<std::string> make_keys(std::size_t count, std::uint64_t set, std::uint64_t seed) {
  std::mt19937_64 rng(seed * 1000003 + set);
  static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  const std::string prefix = "https://s" + std::to_string(set) + ".example.com/";
  static constexpr std::string_view item = "/item/";
  std::vector<std::string> keys;
  keys.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    char digits[20];
    const char* end = std::to_chars(digits, digits + sizeof digits, i).ptr;
    std::string key;
    key.reserve(prefix.size() + 24 + item.size() + static_cast<std::size_t>(end - digits));
    key += prefix;
    const std::uint64_t r = rng();
    for (int c = 0; c < 24; ++c) key += alphabet[(r >> (c * 2)) % 36];
    key += item;
    key.append(digits, static_cast<std::size_t>(end - digits));
    keys.push_back(std::move(key));
  }
  return keys;
}

std::vector<std::uint64_t> random_hashes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> hashes(n);
  for (auto& h : hashes) h = rng();
  return hashes;
}

}  // namespace bloomkit::test
