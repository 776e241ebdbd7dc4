#pragma once
// The classic Bloom filter: m bits, k probes per key.
//
//   auto f = bloomkit::bloom_filter::for_capacity(1'000'000, 0.01);
//   f.insert("https://example.com/a");      // true: the key was new
//   f.contains("https://example.com/a");    // true: maybe present
//   f.contains("https://example.com/b");    // false: definitely absent (or, rarely, true)
//
// basic_bloom_filter is one template over a probe policy (hashing.hpp): the native policy is
// XXH3-128 with enhanced double hashing; interop schemes supply their own policies and reuse
// everything else.
//
// This header names the alias; the class is basic_filter (filter.hpp).

#include "bloomkit/filter.hpp"
