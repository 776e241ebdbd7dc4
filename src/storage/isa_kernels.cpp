// The portable kernels of every family (split blocks, window groups) and the one run-time choice
// between them and the AVX2 ones (isa_kernels_avx2.cpp).

#include "isa_kernels.hpp"

#include <array>
#include <cstring>

#include "word_mask.hpp"

namespace bloomkit::detail {
namespace {

// Split blocks: the masks built one 32-bit word at a time and the block read as four relaxed
// atomic loads (detail/split_block.hpp, the code the single-key path inlines).
struct portable_isa {
  static void masks(std::uint32_t h32, std::uint64_t out[4]) noexcept {
    split_block_masks(h32, out);
  }
  static bool insert(std::uint64_t* block, std::uint32_t h32) noexcept {
    return split_block_set(block, h32);
  }
  static bool contains(const std::uint64_t* block, std::uint32_t h32) noexcept {
    return split_block_holds(block, h32);
  }
};

// Window words of Lanes 64-bit lanes, read and written with memcpy (words sit at any byte offset).
template <unsigned Lanes>
struct portable_words {
  using mask = std::array<std::uint64_t, Lanes>;
  class shape {
   public:
    shape(std::uint32_t field, std::uint32_t k) noexcept : field_(field), k_(k) {}
    mask of(std::uint64_t seed) const noexcept {
      mask m;
      word_mask_fields(seed, field_, k_, Lanes, m.data());
      return m;
    }

   private:
    std::uint32_t field_;
    std::uint32_t k_;
  };
  // Whether some bit of the mask is 0 in v.
  static bool lacks(const std::uint64_t (&v)[Lanes], const mask& m) noexcept {
    std::uint64_t missing = 0;
    for (unsigned i = 0; i < Lanes; ++i) missing |= m[i] & ~v[i];
    return missing != 0;
  }
  static bool holds(const unsigned char* word, const mask& m) noexcept {
    std::uint64_t v[Lanes];
    std::memcpy(v, word, sizeof v);
    return !lacks(v, m);
  }
  static bool set(unsigned char* word, const mask& m) noexcept {
    std::uint64_t v[Lanes];
    std::memcpy(v, word, sizeof v);
    if (!lacks(v, m)) return false;
    for (unsigned i = 0; i < Lanes; ++i) v[i] |= m[i];
    std::memcpy(word, v, sizeof v);
    return true;
  }
};

constexpr isa_kernels portable_table{"portable", blocked_paths<portable_isa>::table("portable"),
                                     window_paths<portable_words>::table("portable")};

}  // namespace

const isa_kernels& portable_kernels() noexcept {
  return portable_table;
}

const isa_kernels* avx2_kernels_if_supported() noexcept {
  static const isa_kernels* const kernels =
      __builtin_cpu_supports("avx2") ? avx2_kernels() : nullptr;
  return kernels;
}

const isa_kernels& kernels_for(bool simd) noexcept {
  const isa_kernels* avx2 = avx2_kernels_if_supported();
  return simd && avx2 != nullptr ? *avx2 : portable_table;
}

}  // namespace bloomkit::detail
