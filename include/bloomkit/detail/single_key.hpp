#pragma once
// Internal: the single-key paths basic_filter (filter.hpp) compiles into the caller: the key
// hashed, located and tested in the caller's code, without an indirect kernel call or a call
// into the library (measured at 1e8 keys of 35 bytes: docs/PERFORMANCE.md, "Loads and the
// single-key path"). A kind without one (the primary template), or a filter this one does not
// handle (handles() false: the blocked filter's layouts of 512-bit lines), takes the library's
// out-of-line path, which answers the same.
//
// A block is tested and set by the kernels' own code, needing no -mavx2 in the caller's build:
// on a CPU with AVX2 a direct call (not through the kernel table) to the AVX2 kernel's functions
// (detail/split_block_avx2.hpp), else the portable kernel's code inlined
// (detail/split_block.hpp). Both set and test the same bits.

#include <cstdint>
#include <string_view>

#include "bloomkit/detail/split_block.hpp"
#include "bloomkit/detail/split_block_avx2.hpp"
#include "bloomkit/hashing.hpp"
#if defined(__OPTIMIZE__)
#include "bloomkit/detail/xxh3_inline.hpp"
#endif
#include "bloomkit/sizing.hpp"
#include "bloomkit/storage.hpp"

namespace bloomkit::detail {

template <class Probe, class Storage>
struct single_key {
  using digest_type = typename Probe::digest_type;
  static digest_type hash(std::string_view key) noexcept { return Probe::hash(key); }
  static constexpr bool handles(std::uint32_t) noexcept { return false; }
  // Never called unless handles().
  static bool contains(const std::uint64_t*, std::uint64_t, const digest_type&) noexcept {
    return false;
  }
  static bool insert(std::uint64_t*, std::uint64_t, const digest_type&) noexcept { return false; }
};

// The blocked filter's split blocks (k = 8). An insert here counts when it set a bit, as for
// every bit storage (basic_filter adds it to inserted()).
template <>
struct single_key<xxh3_split_block_policy, split_block_storage> {
  using digest_type = std::uint64_t;
  // XXH3 inlined where the caller is optimized. Unoptimized (-O0: debug builds, the sanitized
  // builds' tests) the inlined copy would run unoptimized and cost each translation unit
  // xxhash.h's parse, so the same function comes from the (optimized) library.
  [[gnu::always_inline]] static digest_type hash(std::string_view key) noexcept {
#if defined(__OPTIMIZE__)
    return xxh3_64_inline(key);
#else
    return xxh3_64(key);
#endif
  }
  static constexpr bool handles(std::uint32_t hashes) noexcept {
    return hashes == blocked_hashes;
  }
  [[gnu::always_inline]] static bool contains(const std::uint64_t* words, std::uint64_t cells,
                                              digest_type h) noexcept {
    const std::uint64_t* block =
        split_block_of(const_cast<std::uint64_t*>(words), cells / blocked_block_bits, h);
#if BLOOMKIT_SPLIT_BLOCK_AVX2
    if (split_block_avx2_available()) {
      return split_block_holds_avx2(block, static_cast<std::uint32_t>(h));
    }
#endif
    return split_block_holds(block, static_cast<std::uint32_t>(h));
  }
  [[gnu::always_inline]] static bool insert(std::uint64_t* words, std::uint64_t cells,
                                            digest_type h) noexcept {
    std::uint64_t* block = split_block_of(words, cells / blocked_block_bits, h);
#if BLOOMKIT_SPLIT_BLOCK_AVX2
    if (split_block_avx2_available())
      return split_block_set_avx2(block, static_cast<std::uint32_t>(h));
#endif
    return split_block_set(block, static_cast<std::uint32_t>(h));
  }
};

}  // namespace bloomkit::detail
