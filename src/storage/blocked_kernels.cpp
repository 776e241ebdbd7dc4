// The portable hot paths of the split-block storage and the run-time choice between them and the
// AVX2 ones (blocked_kernels_avx2.cpp).

#include "blocked_kernels.hpp"

namespace bloomkit::detail {
namespace {

// The portable path: the same masks, built one 32-bit word at a time.
struct portable_isa {
  static void masks(std::uint32_t h32, std::uint64_t out[4]) noexcept {
    for (int j = 0; j < 4; ++j) {
      const std::uint32_t low = (h32 * blocked_salts[2 * j]) >> 27;
      const std::uint32_t high = (h32 * blocked_salts[2 * j + 1]) >> 27;
      out[j] = (std::uint64_t{1} << low) | (std::uint64_t{1} << (high + 32));
    }
  }
  static bool insert(std::uint64_t* block, std::uint32_t h32) noexcept {
    std::uint64_t m[4];
    masks(h32, m);
    bool changed = false;
    for (int j = 0; j < 4; ++j) {
      changed |= (block[j] & m[j]) != m[j];
      block[j] |= m[j];
    }
    return changed;
  }
  static bool contains(const std::uint64_t* block, std::uint32_t h32) noexcept {
    std::uint64_t m[4];
    masks(h32, m);
    std::uint64_t missing = 0;
    for (int j = 0; j < 4; ++j) missing |= m[j] & ~load_relaxed(block + j);
    return missing == 0;
  }
};

constexpr blocked_kernels portable_table = blocked_paths<portable_isa>::table("portable");

}  // namespace

const blocked_kernels& portable_blocked_kernels() noexcept {
  return portable_table;
}

const blocked_kernels* avx2_blocked_kernels_if_supported() noexcept {
  static const blocked_kernels* const kernels =
      __builtin_cpu_supports("avx2") ? avx2_blocked_kernels() : nullptr;
  return kernels;
}

const blocked_kernels& default_blocked_kernels() noexcept {
  const blocked_kernels* avx2 = avx2_blocked_kernels_if_supported();
  return avx2 != nullptr ? *avx2 : portable_table;
}

}  // namespace bloomkit::detail
