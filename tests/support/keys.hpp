#pragma once
// Deterministic key sets for tests: URL-like keys of about 64 bytes, disjoint by prefix, and
// 64-bit hashes of imaginary keys. Made in keys.cpp, at the build's optimization level
// (tests/support/CMakeLists.txt).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bloomkit::test {

// `count` distinct keys; different `set` values never produce the same key.
std::vector<std::string> make_keys(std::size_t count, std::uint64_t set, std::uint64_t seed = 42);

// `n` pseudo-random 64-bit hashes, the same for the same seed.
std::vector<std::uint64_t> random_hashes(std::size_t n, std::uint64_t seed);

inline std::vector<std::string_view> views(const std::vector<std::string>& keys) {
  return {keys.begin(), keys.end()};
}

// A key's bytes, as the byte-level decoders take them.
inline std::span<const unsigned char> bytes_of(std::string_view s) {
  return {reinterpret_cast<const unsigned char*>(s.data()), s.size()};
}

}  // namespace bloomkit::test
