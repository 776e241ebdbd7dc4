// RedisBloom's hashing (redisbloom.hpp): Austin Appleby's MurmurHash2 family, written from the
// algorithm's description. Both read the key in little-endian words, as RedisBloom does on the
// little-endian machines it runs on, so answers match whatever machine reads the bits.

#include "bloomkit/compat/redisbloom.hpp"

namespace bloomkit::redisbloom {

namespace {

std::uint64_t load_le64(const unsigned char* p) noexcept {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

std::uint32_t load_le32(const unsigned char* p) noexcept {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

constexpr std::uint64_t seed64 = 0xc6a4a7935bd1e995ULL;
constexpr std::uint32_t seed32 = 0x9747b28cU;

}  // namespace

std::uint64_t murmur_hash64a(const void* data, std::size_t len, std::uint64_t seed) noexcept {
  constexpr std::uint64_t m = 0xc6a4a7935bd1e995ULL;
  constexpr int r = 47;
  const auto* p = static_cast<const unsigned char*>(data);
  // RedisBloom passes the length as an int; keys are Redis strings (< 512 MB), so it is exact.
  std::uint64_t h = seed ^ (static_cast<std::uint64_t>(len) * m);
  const std::size_t blocks = len / 8;
  for (std::size_t i = 0; i < blocks; ++i, p += 8) {
    std::uint64_t k = load_le64(p);
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  const std::size_t tail = len & 7;
  if (tail != 0) {
    for (std::size_t i = tail; i-- > 0;) h ^= static_cast<std::uint64_t>(p[i]) << (8 * i);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

std::uint32_t murmur_hash2(const void* data, std::size_t len, std::uint32_t seed) noexcept {
  constexpr std::uint32_t m = 0x5bd1e995U;
  constexpr int r = 24;
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint32_t h = seed ^ static_cast<std::uint32_t>(len);
  std::size_t n = len;
  for (; n >= 4; n -= 4, p += 4) {
    std::uint32_t k = load_le32(p);
    k *= m;
    k ^= k >> r;
    k *= m;
    h *= m;
    h ^= k;
  }
  if (n != 0) {
    for (std::size_t i = n; i-- > 0;) h ^= static_cast<std::uint32_t>(p[i]) << (8 * i);
    h *= m;
  }
  h ^= h >> 13;
  h *= m;
  h ^= h >> 15;
  return h;
}

hash_pair hash64(std::string_view key) noexcept {
  const std::uint64_t a = murmur_hash64a(key.data(), key.size(), seed64);
  return {a, murmur_hash64a(key.data(), key.size(), a)};
}

hash_pair hash_xxh3(std::string_view key) noexcept {
  const digest128 d = xxh3_128(key);
  return {d.low, d.high | 1};
}

hash_pair hash32(std::string_view key) noexcept {
  const std::uint32_t a = murmur_hash2(key.data(), key.size(), seed32);
  return {a, murmur_hash2(key.data(), key.size(), a)};
}

}  // namespace bloomkit::redisbloom
