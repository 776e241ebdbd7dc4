#pragma once
// Deterministic key sets for tests: URL-like keys of about 64 bytes, disjoint by prefix, and
// 64-bit hashes of imaginary keys.

#include <cstdint>
#include <random>
#include <span>
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

// `n` pseudo-random 64-bit hashes, the same for the same seed.
inline std::vector<std::uint64_t> random_hashes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> hashes(n);
  for (auto& h : hashes) h = rng();
  return hashes;
}

inline std::vector<std::string_view> views(const std::vector<std::string>& keys) {
  return {keys.begin(), keys.end()};
}

// A key's bytes, as the byte-level decoders take them.
inline std::span<const unsigned char> bytes_of(std::string_view s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

}  // namespace bloomkit::test
