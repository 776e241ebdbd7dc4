#pragma once
// A chain's link as it is held (64 bytes, as RedisBloom's SBLink, so that a chain's own memory
// stays at or below what RedisBloom's BF.INFO Size counts), and the probing of one link.
//
// The packed words: `held_hashes` is the allocator's block size (below 2^48: no address space
// holds more) with the hash count above it; `bytes_n2_gap` is the bit array's bytes (at most
// 2^43) with n2 and the gap between bytes * 8 and the probe range above them.

#include <cstdint>
#include <span>

#include "bloomkit/compat/redisbloom.hpp"
#include "bloomkit/detail/multiply_high.hpp"
#include "redisbloom_rules.hpp"

namespace bloomkit::redisbloom {

struct chain::link_slot {
  std::uint64_t* words = nullptr;  // the bits, RedisBloom's byte order on a little-endian word
  void* base = nullptr;            // the allocator's block
  std::uint64_t held_hashes = 0;
  std::uint64_t bytes_n2_gap = 0;
  std::uint64_t entries = 0;
  std::uint64_t size = 0;
  double error = 0;
  double bpe = 0;

  static constexpr std::uint64_t low48 = (std::uint64_t{1} << 48) - 1;

  std::uint64_t held() const noexcept { return held_hashes & low48; }
  std::uint32_t hashes() const noexcept { return static_cast<std::uint32_t>(held_hashes >> 48); }
  std::uint64_t bytes() const noexcept { return bytes_n2_gap & low48; }
  std::uint32_t n2() const noexcept {
    return static_cast<std::uint32_t>(bytes_n2_gap >> 48) & 0xff;
  }
  std::uint64_t gap() const noexcept { return bytes_n2_gap >> 56; }
  std::uint64_t bits() const noexcept { return bytes() * 8 - gap(); }
  // The probe range's reduction: a mask for power-of-two links, else the modulus.
  std::uint64_t mask() const noexcept { return n2() != 0 ? (std::uint64_t{1} << n2()) - 1 : 0; }
  unsigned char* data() const noexcept { return reinterpret_cast<unsigned char*>(words); }

  std::uint64_t position(const hash_pair& h, std::uint32_t i) const noexcept {
    const std::uint64_t x = h.a + static_cast<std::uint64_t>(i) * h.b;
    return n2() != 0 ? (x & mask()) : x % bits();
  }
  // What walk() reduces with: 2^64 mod bits() (what a + i*b passing 2^64 takes off its running
  // remainder) and, for a batch, floor((2^64 - 1) / bits()), which turns x mod bits() into two
  // multiplications and at most two subtractions (exact for every 64-bit x: the estimated
  // quotient is at most 2 short); without it (inverse 0) walk divides.
  struct reducer {
    std::uint64_t wrap = 0;
    std::uint64_t inverse = 0;
  };
  reducer reduction(bool batch) const noexcept {
    reducer r;
    if (n2() != 0) return r;
    const std::uint64_t m = bits();
    r.wrap = (0 - m) % m;
    if (batch) r.inverse = UINT64_MAX / m;
    return r;
  }
  static std::uint64_t reduce(std::uint64_t x, std::uint64_t m, const reducer& r) noexcept {
    if (r.inverse == 0) return x % m;
    std::uint64_t rest = x - bloomkit::detail::multiply_high(x, r.inverse) * m;
    // Branch-free: the estimate is short by 0, 1 or 2 about at random.
    rest -= m & (0 - static_cast<std::uint64_t>(rest >= m));
    rest -= m & (0 - static_cast<std::uint64_t>(rest >= m));
    return rest;
  }
  // Calls f(position(h, i)) for i = 0, 1, ... while f returns true. A batch's reducer (its
  // inverse) reduces each probe by multiplications; without it a modulo link keeps a running
  // remainder (a division for probe 0, one for the stride, none after; corrected when a + i*b
  // passes 2^64), so a key's k probes cost two divisions, not k.
  template <class F>
  void walk(const hash_pair& h, const reducer& red, F f) const noexcept {
    const std::uint32_t k = hashes();
    if (n2() != 0) {
      const std::uint64_t mk = mask();
      std::uint64_t x = h.a;
      for (std::uint32_t i = 0; i < k; ++i, x += h.b) {
        if (!f(x & mk)) return;
      }
      return;
    }
    if (k == 0) return;
    const std::uint64_t m = bits();
    if (red.inverse != 0) {
      // Each probe reduced on its own: independent multiplications, which overlap, where the
      // running remainder is one dependent chain.
      std::uint64_t x = h.a;
      for (std::uint32_t i = 0; i < k; ++i, x += h.b) {
        if (!f(reduce(x, m, red))) return;
      }
      return;
    }
    const std::uint64_t wrap = red.wrap;
    std::uint64_t x = h.a;
    std::uint64_t r = reduce(x, m, red);
    if (!f(r) || k == 1) return;
    const std::uint64_t step = reduce(h.b, m, red);
    for (std::uint32_t i = 1; i < k; ++i) {
      const std::uint64_t next = x + h.b;
      r += step;
      if (r >= m) r -= m;
      if (next < x) r = r >= wrap ? r - wrap : r + (m - wrap);  // a + i*b passed 2^64
      x = next;
      if (!f(r)) return;
    }
  }
  bool test(std::uint64_t x) const noexcept { return (data()[x >> 3] >> (x & 7)) & 1; }
  // Whether every probe of `h` is set (RedisBloom's check: stops at the first clear bit).
  bool contains(const hash_pair& h, const reducer& wrap) const noexcept {
    bool all = true;
    walk(h, wrap, [&](std::uint64_t x) { return all = test(x); });
    return all;
  }
  bool contains(const hash_pair& h) const noexcept { return contains(h, reduction(false)); }
  // Sets every probe of `h`; returns whether one was clear (a key with none clear was present,
  // and nothing changed).
  bool insert(const hash_pair& h, const reducer& wrap) noexcept {
    bool changed = false;
    unsigned char* d = data();
    walk(h, wrap, [&](std::uint64_t x) {
      const auto bit = static_cast<unsigned char>(1u << (x & 7));
      changed |= (d[x >> 3] & bit) == 0;
      d[x >> 3] |= bit;
      return true;
    });
    return changed;
  }
  bool insert(const hash_pair& h) noexcept { return insert(h, reduction(false)); }
  // The line of the first probe, or of every probe (all_probes).
  void prefetch(const hash_pair& h, const reducer& wrap, bool all_probes) const noexcept {
    const unsigned char* d = data();
    walk(h, wrap, [&](std::uint64_t x) {
      __builtin_prefetch(d + (x >> 3));
      return all_probes;
    });
  }
  void prefetch(const hash_pair& h) const noexcept { prefetch(h, reduction(false), false); }
};

struct chain_access {
  using slot_type = chain::link_slot;
  static_assert(sizeof(chain::link_slot) == 64, "a link as large as RedisBloom's SBLink");
  static_assert(sizeof(chain) == 32, "a chain as large as RedisBloom's SBChain");
  static chain empty(std::uint64_t size, std::uint32_t options, std::uint32_t growth) {
    chain c;
    c.size_ = size;
    c.count_options_ = options << 24;
    c.growth_ = growth;
    return c;
  }
  static void append(chain& c, const link_fields& f) { c.append_link(f); }
  static chain::link_slot& slot(chain& c, std::size_t i) noexcept { return c.links_[i]; }
  static const chain::link_slot& slot(const chain& c, std::size_t i) noexcept {
    return c.links_[i];
  }
  static void set_size(chain& c, std::uint64_t size) noexcept { c.size_ = size; }
};

}  // namespace bloomkit::redisbloom
