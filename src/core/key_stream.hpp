#pragma once
// Internal: how the batched pipelines (filter_pipeline.hpp) read a batch's keys. A batch reads
// its keys once, in order. Read with plain loads they pass through the last-level cache and
// evict the filter's lines from it: 10^7 integer keys are 80 MB streamed past a 13 MB filter,
// whose random reads then go to DRAM. So the pipelines read the keys ahead with prefetchnta,
// which keeps a line near the core without making it resident in the outer caches
// (docs/PERFORMANCE.md, "The key stream": at n = 1e7 integer lookups took 4.3 ns per key with it
// against 7.7 in the same loop without it).
//
// Keys already in cache are not evicted by the hint, and a prefetch never faults; the cost is one
// prefetch per 64-byte line of keys (and, for string keys, one per key for its bytes). What it
// gives up: a large batch's keys are not in the outer caches afterwards, so only batches read
// once and larger than L2 are streamed (key_reads, key_stream_min_bytes below).

#include <cstddef>
#include <span>
#include <string_view>
#include <type_traits>

#include "filter_pipeline.hpp"

namespace bloomkit::detail {

// How far ahead of the key being hashed the stream is read: bytes of the key array, and the
// string key whose bytes are read, in keys ahead (its view's line was prefetched long before).
// A line prefetched non-temporally stays in L1 only, so the distance is about 1-2 us of the
// pipeline's work: far enough for DRAM, near enough that the line is still in L1 when the key is
// hashed. So it depends on how long a pipeline spends on a key (docs/PERFORMANCE.md has the sweep).
struct key_stream_distance {
  std::size_t array_bytes;
  std::size_t string_keys;
};
// One line per key (blocked filters, cuckoo buckets): 4-15 ns per key at n = 1e7.
inline constexpr key_stream_distance one_line_per_key{2048, 32};
// Several lines per key (classic, counting, a window's slots): 25-60 ns per key, whose lines
// evict the stream's from L1 before use at the distance above (counting lookups up to 1.5x
// slower than with plain loads; docs/PERFORMANCE.md, "The key stream").
inline constexpr key_stream_distance lines_per_key{512, 8};
// Batches of fewer key bytes (the array's) are read plainly: they stay in L2 beside the filter,
// where a caller that reads them again (contains_many, then insert_many of the misses) finds them.
inline constexpr std::size_t key_stream_min_bytes = std::size_t{1} << 20;

[[gnu::always_inline]] inline void prefetch_stream(const void* p) noexcept {
  __builtin_prefetch(p, 0, 0);  // prefetchnta
}

// Prefetches the keys ahead of key i (the pipelines hash in order i = 0, 1, ...), up to key
// `end` (0: none).
template <key_stream_distance Distance, class Key>
[[gnu::always_inline]] inline void prefetch_key_stream(const Key* keys, std::size_t i,
                                                       std::size_t end) noexcept {
  // One prefetch per line: elements per_line apart are at most 64 bytes apart, so every line of
  // the array gets one, aligned or not (for larger keys, the first line of each).
  constexpr std::size_t per_line = sizeof(Key) < 64 ? 64 / sizeof(Key) : 1;
  constexpr std::size_t ahead = Distance.array_bytes / sizeof(Key) + 1;
  if (i % per_line == 0 && i + ahead < end) prefetch_stream(keys + i + ahead);
  if constexpr (std::is_same_v<Key, std::string_view>) {
    if (i + Distance.string_keys < end) prefetch_stream(keys[i + Distance.string_keys].data());
  }
}

// Whether a batch reads its keys once, so that they may be streamed past the caches.
enum class key_reads : bool {
  again,  // ready digests (the caller hashed once to query many filters), or a batch that
          // passes over its keys several times (a cuckoo filter's chain)
  once,
};

// A pipeline's digest_at: digest_of(keys[i]); a batch read once and of at least
// key_stream_min_bytes is read ahead of i as a stream. digest_of may return a reference (ready
// digests pass through as they are). Its `work` tells the pipeline's distance that only string
// keys are hashed at length (filter_pipeline.hpp).
template <key_stream_distance Distance, class Key, class DigestOf>
class key_stream {
 public:
  static constexpr key_work work =
      std::is_same_v<Key, std::string_view> ? key_work::hashed : key_work::cheap;

  key_stream(std::span<const Key> keys, DigestOf digest_of, key_reads reads) noexcept
      : keys_(keys.data()),
        end_(reads == key_reads::once && keys.size_bytes() >= key_stream_min_bytes ? keys.size()
                                                                                   : 0),
        digest_of_(digest_of) {}

  [[gnu::always_inline]] decltype(auto) operator()(std::size_t i) const noexcept {
    prefetch_key_stream<Distance>(keys_, i, end_);
    return digest_of_(keys_[i]);
  }

 private:
  const Key* keys_;
  std::size_t end_;
  DigestOf digest_of_;
};

template <key_stream_distance Distance, class Key, class DigestOf>
[[gnu::always_inline]] inline auto streamed_digests(std::span<const Key> keys, DigestOf digest_of,
                                                    key_reads reads = key_reads::once) noexcept {
  return key_stream<Distance, Key, DigestOf>(keys, digest_of, reads);
}

}  // namespace bloomkit::detail
