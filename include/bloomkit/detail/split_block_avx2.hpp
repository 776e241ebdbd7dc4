#pragma once
// Internal: a split block's AVX2 code (the eight masks in one register: one multiply, one shift,
// one variable shift; a test is one vptest against the block), written once for the AVX2
// kernels (src/storage/isa_kernels_avx2.cpp, compiled with -mavx2) and the single-key path
// (single_key.hpp), which calls split_block_holds_avx2 / split_block_set_avx2 when the CPU has
// AVX2 whatever the caller's build flags: functions of target "avx2", so their code is AVX2 in
// every translation unit. Measured at n = 1e8, one key at a time, the portable code inlined
// instead cost 80-90 ns per key where these cost 60: its 8 scalar multiplies and 4 loads per
// key leave fewer keys' misses in flight (docs/PERFORMANCE.md, "Loads and the single-key path").

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BLOOMKIT_SPLIT_BLOCK_AVX2 1

#include <immintrin.h>

#include <cstdint>

#include "bloomkit/detail/split_block.hpp"

namespace bloomkit::detail {

[[gnu::target("avx2"), gnu::always_inline]] inline __m256i split_block_mask_avx2(
    std::uint32_t h32) noexcept {
  const __m256i salts =
      _mm256_setr_epi32(static_cast<int>(blocked_salts[0]), static_cast<int>(blocked_salts[1]),
                        static_cast<int>(blocked_salts[2]), static_cast<int>(blocked_salts[3]),
                        static_cast<int>(blocked_salts[4]), static_cast<int>(blocked_salts[5]),
                        static_cast<int>(blocked_salts[6]), static_cast<int>(blocked_salts[7]));
  const __m256i products = _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(h32)), salts);
  return _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(products, 27));
}

// The block in one aligned 256-bit load (vmovdqa), where four relaxed atomic loads cost 0.5-1
// ns per key in the batches, and no false negative beside insert_concurrent:
// - Bits only ever go from 0 to 1. If a key's insert happens-before this lookup (the caller
//   learned of it through release/acquire), each byte of the block holds the key's bits in
//   every value it takes from then on, and x86-TSO gives this load no older value of any byte
//   (loads see the latest store in the global order visible to the core; a locked or is in it
//   once done). So however the hardware splits the load (per x86, each aligned 8-byte part is
//   single-copy atomic; a 32-byte aligned load lies in one cache line), any mix of the words'
//   values it sees holds the key's bits: no false negative. A key inserted concurrently may
//   be seen as absent, as with atomic loads: its insert has not finished.
// - In C++ a plain load racing the inserts' atomic fetch-or is a data race (undefined; TSan
//   reports it). The load is inline assembly instead: the compiler sees no C++ access, only
//   that the asm reads these 32 bytes (the "m" operand), so it keeps it after the caller's
//   acquire like any other read and cannot assume the bytes unchanged by other threads.
[[gnu::target("avx2"), gnu::always_inline]] inline __m256i split_block_load_avx2(
    const std::uint64_t* block) noexcept {
  __m256i bits;
  asm("vmovdqa %1, %0"
      : "=x"(bits)
      : "m"(*reinterpret_cast<const std::uint64_t(*)[split_block_words]>(block)));
  return bits;
}

// Whether the block holds every bit of h32 (may race with insert_concurrent).
[[gnu::target("avx2")]] inline bool split_block_holds_avx2(const std::uint64_t* block,
                                                           std::uint32_t h32) noexcept {
  return _mm256_testc_si256(split_block_load_avx2(block), split_block_mask_avx2(h32));
}

// Sets the bits of h32 (single writer); true if one of them was 0.
[[gnu::target("avx2")]] inline bool split_block_set_avx2(std::uint64_t* block,
                                                         std::uint32_t h32) noexcept {
  auto* p = reinterpret_cast<__m256i*>(block);
  const __m256i bits = _mm256_load_si256(p);
  const __m256i m = split_block_mask_avx2(h32);
  _mm256_store_si256(p, _mm256_or_si256(bits, m));
  return !_mm256_testc_si256(bits, m);
}

// Whether this CPU runs the functions above (cached by the compiler's runtime).
inline bool split_block_avx2_supported() noexcept {
  return __builtin_cpu_supports("avx2");
}

}  // namespace bloomkit::detail

#endif
