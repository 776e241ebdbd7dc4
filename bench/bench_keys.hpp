#pragma once
// Deterministic URL-like benchmark keys, generated before any timing.
//
// A key looks like
//   https://cdn.orchid-market.net/static/2021/3f9a0c5e7b21d468.html?q=k2ZxQ0aP
// and is 56..80 bytes long (about 67 on average: the 48..80 target length, or the prefix when
// that is longer). Key `id` embeds the 16-hex-digit token
// mix64(id ^ key_salt) right after the sixth '/'; mix64 is a bijection, so distinct ids give
// distinct keys. The inserted keys are ids 0..n-1 and the miss keys ids miss_base + j, so the
// two sets are disjoint by construction, not by chance.
//
// Storage is one contiguous byte buffer plus a std::string_view per key, so a batch is a
// std::span<const std::string_view> and the keys of a query set are read sequentially, in
// query order: reading a key costs a streamed load, not a random DRAM access of its own.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace bloomkit::bench {

// splitmix64 (Steele, Lea & Flood, 2014): a fast, well-mixed deterministic PRNG.
struct splitmix64 {
  std::uint64_t state;
  explicit splitmix64(std::uint64_t seed) : state(seed) {}
  std::uint64_t operator()() noexcept {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, bound) by multiply-high.
  std::uint64_t below(std::uint64_t bound) noexcept {
    __extension__ using u128 = unsigned __int128;
    return static_cast<std::uint64_t>((static_cast<u128>((*this)()) * bound) >> 64);
  }
};

// A bijection of 64-bit integers (the splitmix64 finalizer): distinct ids give distinct tokens.
constexpr std::uint64_t mix64(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

inline constexpr std::uint64_t key_salt = 0x626c6f6f6d6b6974ULL;    // "bloomkit"
inline constexpr std::uint64_t miss_base = std::uint64_t{1} << 40;  // above every inserted id

inline constexpr std::size_t min_key_length = 48;
inline constexpr std::size_t max_key_length = 80;

// Writes key `id` to out (room for at least max_key_length bytes); returns its length.
inline std::size_t make_url_key(std::uint64_t id, char* out) noexcept {
  static constexpr std::array<std::string_view, 8> subdomains = {"www", "cdn",    "api",  "m",
                                                                 "img", "static", "shop", "blog"};
  static constexpr std::array<std::string_view, 16> words = {
      "orchid", "market",  "falcon", "river", "quartz", "nimbus", "harbor", "cobalt",
      "meadow", "lantern", "vertex", "amber", "summit", "pixel",  "tundra", "willow"};
  static constexpr std::array<std::string_view, 8> tlds = {"com", "net", "org", "io",
                                                           "de",  "co",  "dev", "info"};
  static constexpr std::array<std::string_view, 8> sections = {"static", "media", "news", "item",
                                                               "user",   "docs",  "shop", "blog"};
  static constexpr char hex[] = "0123456789abcdef";
  static constexpr char url_safe[] =  // 64 characters: 6 random bits each
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_";

  const std::uint64_t token = mix64(id ^ key_salt);
  splitmix64 rng(token ^ 0x5bd1e9955bd1e995ULL);
  const std::uint64_t r = rng();
  const std::size_t target =
      min_key_length + static_cast<std::size_t>(rng.below(max_key_length - min_key_length + 1));

  char* p = out;
  auto put = [&p](std::string_view s) {
    std::copy(s.begin(), s.end(), p);
    p += s.size();
  };
  put("https://");
  put(subdomains[r & 7]);
  put(".");
  put(words[(r >> 3) & 15]);
  put("-");
  put(words[(r >> 7) & 15]);
  put(".");
  put(tlds[(r >> 11) & 7]);
  put("/");
  put(sections[(r >> 14) & 7]);
  put("/");
  const unsigned year = 2000 + static_cast<unsigned>((r >> 17) % 26);
  *p++ = static_cast<char>('0' + year / 1000);
  *p++ = static_cast<char>('0' + year / 100 % 10);
  *p++ = static_cast<char>('0' + year / 10 % 10);
  *p++ = static_cast<char>('0' + year % 10);
  *p++ = '/';
  for (int shift = 60; shift >= 0; shift -= 4) *p++ = hex[(token >> shift) & 15];
  put(".html");
  // The longest prefix is 8 + 6 + 1 + 7 + 1 + 7 + 1 + 4 + 1 + 6 + 1 + 5 + 16 + 5 = 69 bytes.
  auto length = static_cast<std::size_t>(p - out);
  if (length + 4 <= target) {
    put("?q=");
    std::uint64_t bits = rng();
    for (int left = 10; static_cast<std::size_t>(p - out) < target; --left, bits >>= 6) {
      if (left == 0) {
        bits = rng();
        left = 10;
      }
      *p++ = url_safe[bits & 63];
    }
    length = static_cast<std::size_t>(p - out);
  }
  return length;
}

// A set of keys in one contiguous buffer, in the order they are used.
class key_set {
 public:
  key_set() = default;

  // Keys id_of(0), id_of(1), ..., id_of(count - 1), in that order.
  template <class IdFn>
  static key_set generate(std::size_t count, IdFn id_of) {
    key_set s;
    // Reserve the worst case; untouched pages of the tail are never backed by memory.
    s.bytes_.reset(new char[count * max_key_length + max_key_length]);
    s.views_.resize(count);
    char* p = s.bytes_.get();
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t length = make_url_key(id_of(i), p);
      s.views_[i] = std::string_view(p, length);
      s.total_bytes_ += length;
      p += length;
    }
    return s;
  }

  std::size_t size() const noexcept { return views_.size(); }
  std::size_t total_bytes() const noexcept { return total_bytes_; }
  double mean_length() const noexcept {
    return views_.empty() ? 0.0
                          : static_cast<double>(total_bytes_) / static_cast<double>(views_.size());
  }
  std::span<const std::string_view> keys() const noexcept { return views_; }
  std::string_view operator[](std::size_t i) const noexcept { return views_[i]; }

 private:
  std::unique_ptr<char[]> bytes_;
  std::vector<std::string_view> views_;
  std::size_t total_bytes_ = 0;
};

// The inserted keys: ids 0..n-1, in insertion order.
inline key_set make_insert_keys(std::size_t n) {
  return key_set::generate(n, [](std::size_t i) { return std::uint64_t{i}; });
}

// `count` distinct inserted keys (ids drawn without replacement from 0..n-1) in random order,
// copied contiguously in that order.
inline key_set make_hit_queries(std::size_t n, std::size_t count, std::uint64_t seed) {
  count = std::min(count, n);
  std::vector<std::uint32_t> ids(n);  // n < 2^32 for every size we measure
  for (std::size_t i = 0; i < n; ++i) ids[i] = static_cast<std::uint32_t>(i);
  splitmix64 rng(seed);
  for (std::size_t i = 0; i < count; ++i) {  // partial Fisher-Yates: ids[0..count) is the sample
    std::swap(ids[i], ids[i + rng.below(n - i)]);
  }
  return key_set::generate(count, [&ids](std::size_t i) { return std::uint64_t{ids[i]}; });
}

// `count` keys that were never inserted (ids miss_base + 0, 1, ...).
inline key_set make_miss_queries(std::size_t count) {
  return key_set::generate(count, [](std::size_t i) { return miss_base + i; });
}

}  // namespace bloomkit::bench
