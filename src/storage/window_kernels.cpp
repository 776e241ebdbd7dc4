// The portable batch paths of the grouped window filter and the run-time choice between them and
// the AVX2 ones (window_kernels_avx2.cpp).

#include "window_kernels.hpp"

#include <array>
#include <cstring>

#include "word_mask.hpp"

namespace bloomkit::detail {
namespace {

// Words of Lanes 64-bit lanes, read and written with memcpy (words sit at any byte offset).
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

constexpr window_kernels portable_table = window_paths<portable_words>::table("portable");

}  // namespace

const window_kernels& portable_window_kernels() noexcept {
  return portable_table;
}

const window_kernels* avx2_window_kernels_if_supported() noexcept {
  static const window_kernels* const kernels =
      __builtin_cpu_supports("avx2") ? avx2_window_kernels() : nullptr;
  return kernels;
}

}  // namespace bloomkit::detail
