#pragma once
// Internal: the one run-time choice of instruction set for every kernel family: split blocks
// (blocked_kernels.hpp) and window groups (window_kernels.hpp). Each family is written once over
// an ISA policy; isa_kernels.cpp compiles every family for the baseline ISA and holds the CPU
// detection, isa_kernels_avx2.cpp compiles them with -mavx2. A filter keeps a pointer to its
// family's table in the set chosen here.

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

}  // namespace bloomkit::detail
