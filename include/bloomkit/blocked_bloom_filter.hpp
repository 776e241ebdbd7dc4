#pragma once
// The blocked (split-block) Bloom filter: every key lives in one 256-bit block, so an insert or a
// lookup touches one cache line however large the filter is.
//
//   auto f = bloomkit::blocked_bloom_filter::for_capacity(10'000'000, 0.01);
//   f.insert("https://example.com/a");      // true: the key was new
//   f.contains("https://example.com/a");    // true: maybe present
//
// Layout and hashing (hash_scheme::xxh3_64_split_block, docs/FORMAT.md): the bits are an array of
// 256-bit blocks, each eight little-endian 32-bit words. A key's digest h is XXH3-64 of its
// bytes; its block is the multiply-high (h * blocks) >> 64, which takes the upper bits of h; in
// word i of that block it sets bit (h32 * salt[i]) >> 27, where h32 is the low 32 bits of h and
// salt[i] one of eight fixed odd multipliers. So every key sets exactly 8 bits, one per word.
// Up to 2^32 blocks (a 128 GiB filter) the block index is set by the upper 32 bits of h (h32 can
// only carry one into it); larger filters also draw on log2(blocks) - 32 of h32's bits (at most
// 6).
//
// The price of one line per key is a higher FPP at equal memory than the classic filter (the
// block loads are uneven): for_capacity sizes from the blocked filter's own formula
// (blocked_expected_fpp, sizing.hpp), so its target p holds. See docs/VARIANTS.md.
//
// That is the layout of k = 8, the only one before issue 30. Where it would cost more than 1.15x
// the classic filter's bits (p above about 0.045 or below about 1.5e-3), for_capacity picks a
// layout of 512-bit lines instead (blocked_params, sizing.hpp): k = 1..7 bits in one line, or
// k = 16 in two lines (8 in each, both prefetched). k records the layout in files; the kernels
// of lines (src/storage/line_kernels.hpp) hash from the same XXH3-64 digest. with_blocks and the
// constructor from bits make the split block.
//
// An AVX2 path (mask and test in one 256-bit register) and a portable path set identical bits;
// the AVX2 path is chosen at run time when the CPU has it (set_simd picks one explicitly). A
// single key of the split block is hashed and tested in the caller's own code (portable, XXH3
// inlined), whatever set_simd chose: the same bits.
//
// This header names the alias; the class is basic_filter (filter.hpp).

#include "bloomkit/filter.hpp"
