#pragma once
// Internal: the one run-time choice of instruction set for every kernel family: split blocks
// (blocked_kernels.hpp) and window groups (window_kernels.hpp). Each family is written once over
// an ISA policy; isa_kernels.cpp compiles every family for the baseline ISA and holds the CPU
// detection, isa_kernels_avx2.cpp compiles them with -mavx2. A filter keeps a pointer to its
// family's table in the set chosen here.

#include <type_traits>

#include "blocked_kernels.hpp"
#include "window_kernels.hpp"

namespace bloomkit::detail {

// Every family's table for one instruction set.
struct isa_kernels {
  const char* name;
  blocked_kernels blocked;
  window_kernels window;
};

const isa_kernels& portable_kernels() noexcept;
// nullptr when the build has no AVX2 path (not x86-64, or a compiler without -mavx2).
const isa_kernels* avx2_kernels() noexcept;
// avx2_kernels() when this CPU has AVX2, else nullptr.
const isa_kernels* avx2_kernels_if_supported() noexcept;
// The AVX2 set when asked for and this CPU has it, else the portable one.
const isa_kernels& kernels_for(bool simd) noexcept;

// One family's table in the chosen set (Family: &isa_kernels::blocked or ::window), for its
// storage's ops: which a filter runs, and whether that is the AVX2 one.
template <auto Family>
struct isa_choice {
  using table = std::remove_cvref_t<decltype(portable_kernels().*Family)>;
  static const table* chosen(bool simd) noexcept { return &(kernels_for(simd).*Family); }
  static bool simd_supported() noexcept { return avx2_kernels_if_supported() != nullptr; }
  static bool simd(const table* t) noexcept { return t != &(portable_kernels().*Family); }
};

}  // namespace bloomkit::detail
