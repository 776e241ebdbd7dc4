#pragma once
// Internal: a split block's AVX2 code (the eight masks in one register: one multiply, one shift,
// one variable shift; a test is one vptest against one whole-block load), compiled once, in the
// library's AVX2 translation unit (src/storage/isa_kernels_avx2.cpp, -mavx2), where the AVX2
// kernels use it, and called from there by the single-key path (single_key.hpp) when the CPU has
// AVX2, whatever the caller's build flags. Declared here without <immintrin.h>, which would add
// 0.35 s to every translation unit that includes a filter. Measured at n = 1e8, one key at a
// time, the portable code inlined instead cost 80-90 ns per key where this costs 60: its 8
// scalar multiplies and 4 loads per key leave fewer keys' misses in flight (docs/PERFORMANCE.md,
// "Loads and the single-key path").

#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BLOOMKIT_SPLIT_BLOCK_AVX2 1

namespace bloomkit::detail {

// Whether the block holds every bit of h32 (may race with insert_concurrent: one whole-block
// load, isa_kernels_avx2.cpp says why no key is missed).
bool split_block_holds_avx2(const std::uint64_t* block, std::uint32_t h32) noexcept;
// Sets the bits of h32 (single writer); true if one of them was 0.
bool split_block_set_avx2(std::uint64_t* block, std::uint32_t h32) noexcept;

// Whether this CPU has AVX2 (the compiler's runtime caches it). A library built without its
// AVX2 translation unit defines the functions above with the portable code.
inline bool split_block_avx2_available() noexcept {
  return __builtin_cpu_supports("avx2");
}

}  // namespace bloomkit::detail

#endif
