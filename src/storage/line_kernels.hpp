#pragma once
// Internal: the hot paths of the blocked filter's layouts of 512-bit lines (k = 1..7: one line
// per key; k = 16: two lines of 8 bits; sizing.hpp, "Blocked layouts at every p"). Compiled into
// both ISA tables (blocked_kernels.hpp) from this one source; the batches run the one pipeline
// (filter_pipeline.hpp) over split_line_ops, the slot pipelines too (windows of such filters).
//
// Where a key goes (docs/FORMAT.md), from its XXH3-64 digest h, with next = splitmix64's step
// (word_mask.hpp) and L the filter's lines:
//   line 0: a_0 = h;        its index multiply-high (a_0 L) >> 64, its bits word_mask(s_0)
//   line 1: a_1 = next(h);  (two-line layout only) likewise from a_1
// where s_t = next(a_t ^ line_seed_salt) and word_mask(s) sets one bit in each of the b fields
// of floor(512 / b) bits of the line's 512 bits (bit p of a line is bit p % 64 of its word
// p / 64). The index takes the high bits of a_t and the bits come through another mix of it, so
// they are independent of the line.

#include <cstddef>
#include <cstdint>

#include "../core/filter_pipeline.hpp"
#include "blocked_batch.hpp"
#include "bloomkit/detail/multiply_high.hpp"
#include "bloomkit/detail/word_access.hpp"
#include "word_mask.hpp"

namespace bloomkit::detail {

inline constexpr std::uint64_t line_words = 8;  // 64-bit words of a 512-bit line
inline constexpr std::uint64_t line_seed_salt = 0x5851F42D4C957F2DULL;

// A filter of lines, as its kernels see it.
struct line_geometry {
  std::uint64_t lines = 0;
  std::uint32_t per_key = 1;  // lines per key: 1 or 2
  std::uint32_t bits = 1;     // bits per line, b
  std::uint32_t field = 512;  // floor(512 / b)
};

// One table per instruction set (a part of blocked_kernels), as blocked_kernels' members.
struct line_kernels {
  bool (*insert)(std::uint64_t* words, line_geometry g, std::uint64_t digest, bool atomic) noexcept;
  bool (*contains)(const std::uint64_t* words, line_geometry g, std::uint64_t digest) noexcept;
  std::size_t (*insert_many)(std::uint64_t* words, line_geometry g, blocked_batch batch,
                             bool atomic, bool* added) noexcept;
  std::size_t (*contains_many)(const std::uint64_t* words, line_geometry g, blocked_batch batch,
                               bool* results) noexcept;
  std::size_t (*contains_many_in_slots)(std::uint64_t* const* slots, std::size_t count,
                                        line_geometry g, blocked_batch batch,
                                        bool* results) noexcept;
  slot_insert_counts (*insert_many_in_slots)(std::uint64_t* const* slots, std::size_t count,
                                             line_geometry g, blocked_batch batch,
                                             bool* added) noexcept;
};

// Internal linkage on purpose: each ISA's translation unit compiles its own copy.
namespace {

// The cell operations of lines for the pipeline.
struct split_line_ops {
  using digest_type = std::uint64_t;
  struct location {
    std::uint64_t line[2];  // indexes: the same in every filter of this geometry
    std::uint64_t seed[2];
  };
  static constexpr bool two_stage = false;

  std::uint64_t* words;  // lookups never write through it
  line_geometry g;

  void locate(std::uint64_t h, location& at) const noexcept {
    at.line[0] = multiply_high(h, g.lines);
    at.seed[0] = word_mask_next(h ^ line_seed_salt);
    if (g.per_key == 2) {
      const std::uint64_t a1 = word_mask_next(h);
      at.line[1] = multiply_high(a1, g.lines);
      at.seed[1] = word_mask_next(a1 ^ line_seed_salt);
    }
  }
  [[gnu::always_inline]] void prefetch_write(const location& at) const noexcept {
    for (std::uint32_t t = 0; t < g.per_key; ++t) detail::prefetch_write(line(at, t));
  }
  template <bool Atomic>
  bool insert(const location& at) const noexcept {
    bool changed = false;
    for (std::uint32_t t = 0; t < g.per_key; ++t) {
      std::uint64_t mask[line_words];
      masks(at.seed[t], mask);
      std::uint64_t* words_of_line = line(at, t);
      for (std::uint64_t j = 0; j < line_words; ++j) {
        if constexpr (Atomic) {
          if (mask[j] != 0) {
            changed |= (fetch_or_relaxed(words_of_line + j, mask[j]) & mask[j]) != mask[j];
          }
        } else {
          changed |= (words_of_line[j] & mask[j]) != mask[j];
          words_of_line[j] |= mask[j];
        }
      }
    }
    return changed;
  }
  [[gnu::always_inline]] void prefetch_first(const location& at) const noexcept {
    for (std::uint32_t t = 0; t < g.per_key; ++t) detail::prefetch_read(line(at, t));
  }
  bool test_first(const location& at) const noexcept {
    std::uint64_t missing = 0;
    for (std::uint32_t t = 0; t < g.per_key; ++t) {
      std::uint64_t mask[line_words];
      masks(at.seed[t], mask);
      const std::uint64_t* words_of_line = line(at, t);
      for (std::uint64_t j = 0; j < line_words; ++j) {
        missing |= mask[j] & ~load_relaxed(words_of_line + j);
      }
    }
    return missing == 0;
  }
  // The key's bits in one line: word_mask_fields (word_mask.hpp). With 8 fields each is a 64-bit
  // word and its bit the top 6 bits of its 16-bit chunk: the same bits without the loop's
  // multiplies and divisions.
  void masks(std::uint64_t seed, std::uint64_t* mask) const noexcept {
    if (g.field == 64) {
      const std::uint64_t draws[2] = {seed, word_mask_next(seed)};
      for (std::uint64_t j = 0; j < line_words; ++j) {
        mask[j] = std::uint64_t{1} << ((draws[j / 4] >> (16 * (j % 4) + 10)) & 63);
      }
    } else {
      word_mask_fields(seed, g.field, g.bits, line_words, mask);
    }
  }
  std::uint64_t* line(const location& at, std::uint32_t t) const noexcept {
    return words + at.line[t] * line_words;
  }
  touched_bytes touched() const noexcept {
    return {static_cast<std::size_t>(g.lines * line_words * 8)};
  }
};

struct line_paths {
  using ops = split_line_ops;

  static bool insert(std::uint64_t* words, line_geometry g, std::uint64_t digest,
                     bool atomic) noexcept {
    const ops o{words, g};
    ops::location at;
    o.locate(digest, at);
    return atomic ? o.insert<true>(at) : o.insert<false>(at);
  }
  static bool contains(const std::uint64_t* words, line_geometry g, std::uint64_t digest) noexcept {
    const ops o{const_cast<std::uint64_t*>(words), g};
    ops::location at;
    o.locate(digest, at);
    return o.test_first(at);
  }
  static std::size_t insert_many(std::uint64_t* words, line_geometry g, blocked_batch batch,
                                 bool atomic, bool* added) noexcept {
    const ops o{words, g};
    return over_batch(batch, [&](auto digest_at) {
      return atomic ? insert_pipeline<true>(o, batch.size, digest_at, o.touched(), added)
                    : insert_pipeline<false>(o, batch.size, digest_at, o.touched(), added);
    });
  }
  static std::size_t contains_many(const std::uint64_t* words, line_geometry g, blocked_batch batch,
                                   bool* results) noexcept {
    const ops o{const_cast<std::uint64_t*>(words), g};
    return over_batch(batch, [&](auto digest_at) {
      return lookup_pipeline(o, batch.size, digest_at, o.touched(), results);
    });
  }
  static std::size_t contains_many_in_slots(std::uint64_t* const* slots, std::size_t count,
                                            line_geometry g, blocked_batch batch,
                                            bool* results) noexcept {
    ops each[max_kernel_slots];
    for (std::size_t s = 0; s < count; ++s) each[s] = {slots[s], g};
    return over_batch<lines_per_key>(batch, [&](auto digest_at) {
      return lookup_slots_pipeline(slot_ops<ops>{each, count}, batch.size, digest_at,
                                   touched_bytes{each[0].touched().bytes * count}, results);
    });
  }
  static slot_insert_counts insert_many_in_slots(std::uint64_t* const* slots, std::size_t count,
                                                 line_geometry g, blocked_batch batch,
                                                 bool* added) noexcept {
    ops each[max_kernel_slots];
    for (std::size_t s = 0; s < count; ++s) each[s] = {slots[s], g};
    return over_batch<lines_per_key>(batch, [&](auto digest_at) {
      return insert_slots_pipeline(slot_ops<ops>{each, count}, batch.size, digest_at,
                                   touched_bytes{each[0].touched().bytes * count}, added);
    });
  }

  static constexpr line_kernels table() noexcept {
    return {&insert,
            &contains,
            &insert_many,
            &contains_many,
            &contains_many_in_slots,
            &insert_many_in_slots};
  }
};

}  // namespace
}  // namespace bloomkit::detail
