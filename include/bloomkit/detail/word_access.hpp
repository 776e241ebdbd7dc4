#pragma once
// Access to the 64-bit words of a filter's cells: relaxed atomic loads and fetch-or
// (std::atomic_ref, so concurrent inserts and lookups are lock-free and race-free), and
// prefetches into L2 (prefetcht1), not L1: an L1 prefetch holds one of the core's few L1 miss
// buffers until the line arrives, an L2 prefetch lets about twice as many random reads be in
// flight (bench/RESULTS.md: 4.4 vs 7.5-8 ns per independent line read into a 114 MiB buffer).

#include <atomic>
#include <cstdint>

namespace bloomkit::detail {

// Words are only ever read through this on const paths; atomic_ref needs a non-const object.
inline std::uint64_t load_relaxed(const std::uint64_t* word) noexcept {
  return std::atomic_ref<std::uint64_t>(*const_cast<std::uint64_t*>(word))
      .load(std::memory_order_relaxed);
}

// Sets the bits of `mask`; returns the bits that were set before. Skips the locked instruction
// when every bit is set already (the common case in a full filter).
inline std::uint64_t fetch_or_relaxed(std::uint64_t* word, std::uint64_t mask) noexcept {
  const std::uint64_t before = load_relaxed(word);
  if ((before & mask) == mask) return before;
  return std::atomic_ref<std::uint64_t>(*word).fetch_or(mask, std::memory_order_relaxed);
}

[[gnu::always_inline]] inline void prefetch_read(const void* p) noexcept {
  __builtin_prefetch(p, 0, 2);
}
[[gnu::always_inline]] inline void prefetch_write(const void* p) noexcept {
  __builtin_prefetch(p, 1, 2);
}
template <bool Write>
[[gnu::always_inline]] inline void prefetch(const void* p) noexcept {
  __builtin_prefetch(p, Write ? 1 : 0, 2);
}

}  // namespace bloomkit::detail
