#pragma once
// The machine's limits for issue 32's rows, measured in the same process as the filter, over an
// array of the filter's size taken from the filter's own allocator (bloomkit::bit_array: in
// process, 2 MiB-aligned anonymous memory with MADV_HUGEPAGE, so the same page size as the
// filter's bits). The array is filled with random words first: untouched anonymous memory reads
// the shared zero page, which would stay in cache.
//
//   hash_and_read         hash every key, prefetch its random 64-byte line `Distance` keys ahead,
//                         read one word of it: the bound of a batched one-line lookup
//   hash_and_update       the same with a prefetch for writing and an OR into the line (inserts)
//   hash_then_chase       hash a key seeded with the previous read, then read its line: one
//                         dependent random read plus the hash, the bound of a single-key lookup
//                         that waits for its read
//   hash_then_read        hash and read each key's line without a prefetch, keys independent:
//                         the bound of a loop of single-key lookups the core overlaps
// The hash is inlined XXH3-64 (the filter's own) or a multiply-xorshift mixer for integers.

#ifndef XXH_INLINE_ALL  // a library header may have inlined xxhash.h already
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

#include "bench_keys.hpp"
#include "bloomkit/bit_array.hpp"

namespace bloomkit::bench::issue32 {

// hash(k): the unseeded hash the filters use; seeded(k, s): the same cost, made to depend on s.
// (The seeded XXH3 is a separate entry point: one call site of it must not stop the compiler from
// inlining the unseeded one.)
struct xxh3_of_string {
  static std::uint64_t hash(std::string_view k) noexcept { return XXH3_64bits(k.data(), k.size()); }
  static std::uint64_t seeded(std::string_view k, std::uint64_t s) noexcept {
    return XXH3_64bits_withSeed(k.data(), k.size(), s);
  }
};
struct xxh3_of_int {  // XXH3-64 of the integer's 8 bytes
  static std::uint64_t hash(std::uint64_t k) noexcept { return XXH3_64bits(&k, sizeof k); }
  static std::uint64_t seeded(std::uint64_t k, std::uint64_t s) noexcept {
    return XXH3_64bits_withSeed(&k, sizeof k, s);
  }
};
struct mixer_of_int {  // a multiply-xorshift mixer (the splitmix64 finalizer)
  static std::uint64_t hash(std::uint64_t k) noexcept { return mix64(k); }
  static std::uint64_t seeded(std::uint64_t k, std::uint64_t s) noexcept { return mix64(k ^ s); }
};

class limit_array {
 public:
  explicit limit_array(std::uint64_t bytes) : bits_(bytes * 8) {
    splitmix64 rng(0x6c696d6974);
    for (auto& w : bits_.mutable_words()) w = rng();
    lines_ = bits_.word_count() / 8;
  }
  const std::uint64_t* words() const noexcept { return bits_.data(); }
  std::uint64_t* mutable_words() { return bits_.mutable_words().data(); }
  std::uint64_t lines() const noexcept { return lines_; }

 private:
  bloomkit::bit_array bits_;
  std::uint64_t lines_ = 0;
};

inline std::uint64_t line_of(std::uint64_t h, std::uint64_t lines) noexcept {
  __extension__ using u128 = unsigned __int128;
  return static_cast<std::uint64_t>((static_cast<u128>(h) * lines) >> 64);
}

// Reads the keys 2 KiB ahead with prefetchnta (and a string key's bytes 32 keys ahead), as the
// library's pipelines do (src/core/key_stream.hpp): the key stream then does not evict the array
// from the last-level cache.
template <class Key>
inline void stream_keys_ahead(std::span<const Key> keys, std::size_t j) noexcept {
  constexpr std::size_t per_line = 64 / sizeof(Key), ahead = 2048 / sizeof(Key);
  if (j % per_line == 0 && ahead < keys.size() - j) __builtin_prefetch(&keys[j + ahead], 0, 0);
  if constexpr (std::is_same_v<Key, std::string_view>) {
    if (32 < keys.size() - j) __builtin_prefetch(keys[j + 32].data(), 0, 0);
  }
}

// Reads (Write = false) or ORs a bit into (Write = true) one word of each key's line; Locality is
// __builtin_prefetch's (3: into L1, 2: into L2); Stream: the keys are read ahead non-temporally.
// Returns a sum that keeps the reads alive.
// flatten: the hash is inlined into the loop (with many instantiations GCC would call it).
template <class Hash, int Locality, std::size_t Distance, bool Write, bool Stream, class Key>
__attribute__((flatten)) std::uint64_t hash_and_access(std::uint64_t* words, std::uint64_t lines,
                                                       std::span<const Key> keys) noexcept {
  std::array<std::uint64_t, Distance> ring{};  // hash digests of the keys in flight
  const std::size_t n = keys.size();
  for (std::size_t j = 0; j < Distance && j < n; ++j) {
    ring[j] = Hash::hash(keys[j]);
    __builtin_prefetch(words + line_of(ring[j], lines) * 8, Write ? 1 : 0, Locality);
  }
  std::uint64_t sum = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint64_t h = ring[j % Distance];
    if (j + Distance < n) {
      if constexpr (Stream) stream_keys_ahead(keys, j + Distance);
      const std::uint64_t next = Hash::hash(keys[j + Distance]);
      __builtin_prefetch(words + line_of(next, lines) * 8, Write ? 1 : 0, Locality);
      ring[j % Distance] = next;
    }
    std::uint64_t* w = words + line_of(h, lines) * 8 + (h & 7);
    if constexpr (Write) {
      *w |= std::uint64_t{1} << (h >> 58);
    } else {
      sum += *w;
    }
  }
  return sum;
}

// Hash + one random line read per key with no prefetch: the reads of different keys are
// independent, so the core overlaps as many as its window holds (what a loop of single-key
// lookups can do at best).
template <class Hash, class Key>
__attribute__((flatten)) std::uint64_t hash_then_read(const std::uint64_t* words,
                                                      std::uint64_t lines,
                                                      std::span<const Key> keys) noexcept {
  std::uint64_t sum = 0;
  for (const Key& k : keys) {
    const std::uint64_t h = Hash::hash(k);
    sum += words[line_of(h, lines) * 8 + (h & 7)];
  }
  return sum;
}

// One dependent random read per key: the key's hash is seeded with the previous read's word, so
// neither the hash nor the read of a key can start before the previous read has returned.
template <class Hash, class Key>
__attribute__((flatten)) std::uint64_t hash_then_chase(const std::uint64_t* words,
                                                       std::uint64_t lines,
                                                       std::span<const Key> keys) noexcept {
  std::uint64_t v = 0;
  for (const Key& k : keys) {
    const std::uint64_t h = Hash::seeded(k, v);
    v = words[line_of(h, lines) * 8 + (h & 7)];
  }
  return v;
}

}  // namespace bloomkit::bench::issue32
