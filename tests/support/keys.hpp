#pragma once
// Deterministic key sets for tests: URL-like keys of about 64 bytes, disjoint by prefix.

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace bloomkit::test {

// `count` distinct keys; different `set` values never produce the same key.
inline std::vector<std::string> make_keys(std::size_t count, std::uint64_t set,
                                          std::uint64_t seed = 42) {
  std::mt19937_64 rng(seed * 1000003 + set);
  static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::vector<std::string> keys;
  keys.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    std::string key = "https://s" + std::to_string(set) + ".example.com/";
    const std::uint64_t r = rng();
    for (int c = 0; c < 24; ++c) key += alphabet[(r >> (c * 2)) % 36];
    key += "/item/" + std::to_string(i);
    keys.push_back(std::move(key));
  }
  return keys;
}

inline std::vector<std::string_view> views(const std::vector<std::string>& keys) {
  return {keys.begin(), keys.end()};
}

}  // namespace bloomkit::test
