#pragma once
// The keys of issue 32's rows: 35-byte strings and 64-bit integers, deterministic and generated
// before any timing. A string key is "user/" + 16 hex digits of mix64(id ^ salt) + "/" + 13
// URL-safe characters drawn from the same token: mix64 is a bijection, so distinct ids give
// distinct keys. Inserted keys are ids 0..n-1, misses ids miss_base + j (disjoint by
// construction). Integer keys are mix64(id ^ int_salt) of the same ids.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "bench_keys.hpp"

namespace bloomkit::bench::issue32 {

inline constexpr std::size_t key_length = 35;
inline constexpr std::uint64_t int_salt = 0x696e746b657973ULL;  // "intkeys"

inline void make_key35(std::uint64_t id, char* out) noexcept {
  static constexpr char hex[] = "0123456789abcdef";
  static constexpr char url_safe[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";
  const std::uint64_t token = mix64(id ^ key_salt);
  char* p = out;
  for (char c : std::string_view("user/")) *p++ = c;
  for (int shift = 60; shift >= 0; shift -= 4) *p++ = hex[(token >> shift) & 15];
  *p++ = '/';
  std::uint64_t bits = mix64(token);
  for (int i = 0; i < 13; ++i, bits >>= 6) {
    if (i == 10) bits = mix64(bits ^ token);
    *p++ = url_safe[bits & 63];
  }
}

// Fixed-length keys in one buffer, with a string_view per key (a batch is a span of them).
class keys35 {
 public:
  template <class IdFn>
  static keys35 generate(std::size_t count, IdFn id_of) {
    keys35 s;
    s.bytes_.reset(new char[count * key_length]);
    s.views_.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      char* p = s.bytes_.get() + i * key_length;
      make_key35(id_of(i), p);
      s.views_[i] = std::string_view(p, key_length);
    }
    return s;
  }
  std::span<const std::string_view> keys() const noexcept { return views_; }
  std::size_t size() const noexcept { return views_.size(); }

 private:
  std::unique_ptr<char[]> bytes_;
  std::vector<std::string_view> views_;
};

// Inserted ids first..first+count-1.
inline keys35 insert_keys(std::uint64_t first, std::size_t count) {
  return keys35::generate(count, [first](std::size_t i) { return first + i; });
}
// `count` inserted ids drawn at random below n (with replacement), in random order.
inline keys35 hit_keys(std::uint64_t n, std::size_t count, std::uint64_t seed) {
  splitmix64 rng(seed);
  return keys35::generate(count, [&rng, n](std::size_t) { return rng.below(n); });
}
inline keys35 miss_keys(std::size_t count) {
  return keys35::generate(count, [](std::size_t i) { return miss_base + i; });
}

inline std::uint64_t int_key(std::uint64_t id) noexcept {
  return mix64(id ^ int_salt);
}

inline std::vector<std::uint64_t> int_insert_keys(std::uint64_t n) {
  std::vector<std::uint64_t> v(n);
  for (std::uint64_t i = 0; i < n; ++i) v[i] = int_key(i);
  return v;
}
inline std::vector<std::uint64_t> int_hit_keys(std::uint64_t n, std::size_t count,
                                               std::uint64_t seed) {
  splitmix64 rng(seed);
  std::vector<std::uint64_t> v(count);
  for (auto& k : v) k = int_key(rng.below(n));
  return v;
}
inline std::vector<std::uint64_t> int_miss_keys(std::size_t count) {
  std::vector<std::uint64_t> v(count);
  for (std::size_t i = 0; i < count; ++i) v[i] = int_key(miss_base + i);
  return v;
}

// The 8 bytes of each integer as a string key (what a caller without an integer API does).
inline std::vector<std::string_view> as_byte_strings(std::span<const std::uint64_t> ints) {
  std::vector<std::string_view> v(ints.size());
  for (std::size_t i = 0; i < ints.size(); ++i) {
    v[i] = std::string_view(reinterpret_cast<const char*>(ints.data() + i), sizeof(std::uint64_t));
  }
  return v;
}

}  // namespace bloomkit::bench::issue32
