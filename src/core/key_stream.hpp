#pragma once
// Internal: how the batched pipelines (filter_pipeline.hpp) read a batch's keys. A batch reads
// its keys once, in order. Read with plain loads they pass through the last-level cache and
// evict the filter's lines from it: 10^7 integer keys are 80 MB streamed past a 13 MB filter,
// whose random reads then go to DRAM. So the pipelines read the keys ahead with prefetchnta,
// which keeps a line near the core without making it resident in the outer caches
// (docs/PERFORMANCE.md, "The key stream": at n = 1e7 integer lookups took 7.7 against 4.3 ns
// per key in the same loop without it).
//
// Keys already in cache are not evicted by the hint, and a prefetch never faults; the cost is one
// prefetch per 64-byte line of keys (and, for string keys, one per key for its bytes).

#include <cstddef>
#include <span>
#include <string_view>
#include <type_traits>

namespace bloomkit::detail {

// How far ahead of the key being hashed the stream is read: 2 KiB of the key array (256 integer
// keys, 128 string views), and the bytes of the string key this many keys ahead (its view was
// read by the prefetch of its line long before).
inline constexpr std::size_t key_stream_ahead_bytes = 2048;
inline constexpr std::size_t key_bytes_ahead = 32;

[[gnu::always_inline]] inline void prefetch_stream(const void* p) noexcept {
  __builtin_prefetch(p, 0, 0);  // prefetchnta
}

// Prefetches the keys ahead of key i, which the pipelines hash in order i = 0, 1, ...
template <class Key>
[[gnu::always_inline]] inline void prefetch_key_stream(std::span<const Key> keys,
                                                       std::size_t i) noexcept {
  // One prefetch per line: elements per_line apart are at most 64 bytes apart, so every line of
  // the array gets one, aligned or not (every line of a key's first 64 bytes, for larger keys).
  constexpr std::size_t per_line = sizeof(Key) < 64 ? 64 / sizeof(Key) : 1;
  constexpr std::size_t ahead = key_stream_ahead_bytes / sizeof(Key) + 1;
  if (i % per_line == 0 && ahead < keys.size() - i) prefetch_stream(keys.data() + i + ahead);
  if constexpr (std::is_same_v<Key, std::string_view>) {
    if (key_bytes_ahead < keys.size() - i) prefetch_stream(keys[i + key_bytes_ahead].data());
  }
}

// A pipeline's digest_at: digest_of(keys[i]), the stream read ahead of i. digest_of may return a
// reference (ready digests pass through as they are).
template <class Key, class DigestOf>
[[gnu::always_inline]] inline auto streamed_digests(std::span<const Key> keys,
                                                    DigestOf digest_of) noexcept {
  return [keys, digest_of](std::size_t i) noexcept -> decltype(auto) {
    prefetch_key_stream(keys, i);
    return digest_of(keys[i]);
  };
}

}  // namespace bloomkit::detail
