#pragma once
// The counting Bloom filter: m 4-bit counters instead of m bits, so keys can be removed.
//
//   auto f = bloomkit::counting_bloom_filter::for_capacity(1'000'000, 0.01);
//   f.insert("session-42");
//   f.remove("session-42");              // true: its counters were decremented
//   f.remove("never-inserted");          // false (almost always): definitely absent, no change
//
// A key's k counters sit at exactly the positions where a classic bloom_filter with the same m
// and k sets its bits (native scheme, hashing.hpp), so to_bloom_filter() yields the classic
// filter of the same keys, bit for bit; that filter is 4 times smaller and can be saved, mapped
// or merged with classic filters.
//
// Saturation: a counter stops at 15. Past that its true count is unknown (it may stand for 15
// keys or for 40), so a saturated counter is never decremented: decrementing it could bring it
// to 0 while keys that incremented it are still present, a false negative. Sticky saturation
// costs only some accuracy (those counters never return to 0). A counter's load is about
// Poisson with mean kn/m, so at the classic optimum (kn/m = ln 2) it would pass 15 with
// probability 7e-17: saturation takes heavy repeats of keys or a badly overfilled filter.
//
// remove() must only be called for keys that were inserted (and not yet removed as often).
// Removing a key that was never inserted but tests positive (a false positive) decrements other
// keys' counters and can cause false negatives: that is inherent to counting filters. A key
// that is definitely absent is refused: remove() returns false and changes nothing.
//
// Storage: counter i is bits [4i, 4i + 4) of a bit_array of 4m bits (the low nibble of byte
// i / 2 for even i, the high nibble for odd i), so it shares the classic filter's 64-byte
// alignment, huge pages and zero-copy mapping of files.
//
// This header names the alias; the class is basic_filter (filter.hpp).

#include "bloomkit/filter.hpp"
