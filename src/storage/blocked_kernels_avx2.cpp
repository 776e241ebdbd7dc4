// The AVX2 hot paths of the split-block storage (the blocked filter) (compiled with -mavx2; used
// only when the CPU has AVX2). A key's eight word masks are one 256-bit register: one multiply, one
// shift, one variable shift; a test is one vptest against the block.

#include "blocked_kernels.hpp"

#if defined(__AVX2__)

#include <immintrin.h>

namespace bloomkit::detail {
namespace {

struct avx2_isa {
  static __m256i mask(std::uint32_t h32) noexcept {
    const __m256i salts =
        _mm256_setr_epi32(static_cast<int>(blocked_salts[0]), static_cast<int>(blocked_salts[1]),
                          static_cast<int>(blocked_salts[2]), static_cast<int>(blocked_salts[3]),
                          static_cast<int>(blocked_salts[4]), static_cast<int>(blocked_salts[5]),
                          static_cast<int>(blocked_salts[6]), static_cast<int>(blocked_salts[7]));
    const __m256i products = _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(h32)), salts);
    return _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(products, 27));
  }
  static void masks(std::uint32_t h32, std::uint64_t out[4]) noexcept {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), mask(h32));
  }
  static bool insert(std::uint64_t* block, std::uint32_t h32) noexcept {
    auto* p = reinterpret_cast<__m256i*>(block);
    const __m256i bits = _mm256_load_si256(p);
    const __m256i m = mask(h32);
    _mm256_store_si256(p, _mm256_or_si256(bits, m));
    return !_mm256_testc_si256(bits, m);
  }
  static bool contains(const std::uint64_t* block, std::uint32_t h32) noexcept {
    // Four relaxed atomic loads, not one vector load: lookups may race with atomic inserts.
    const __m256i bits = _mm256_setr_epi64x(static_cast<long long>(load_relaxed(block)),
                                            static_cast<long long>(load_relaxed(block + 1)),
                                            static_cast<long long>(load_relaxed(block + 2)),
                                            static_cast<long long>(load_relaxed(block + 3)));
    return _mm256_testc_si256(bits, mask(h32));
  }
};

constexpr blocked_kernels avx2_table = blocked_paths<avx2_isa>::table("avx2");

}  // namespace

const blocked_kernels* avx2_blocked_kernels() noexcept {
  return &avx2_table;
}

}  // namespace bloomkit::detail

#else

namespace bloomkit::detail {
const blocked_kernels* avx2_blocked_kernels() noexcept {
  return nullptr;
}
}  // namespace bloomkit::detail

#endif
