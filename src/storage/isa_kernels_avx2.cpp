// The AVX2 kernels of every family (compiled with -mavx2; used only when the CPU has AVX2,
// isa_kernels.cpp).
//
// Split blocks: a key's eight word masks are one 256-bit register: one multiply, one shift, one
// variable shift; a test is one vptest against the block.
//
// Window groups: a key's k field positions are 16-bit lanes of one register (one multiply-high by
// the field width, one add of the fields' first bits), and each 64-bit lane of the word ORs
// 1 << (position - 64 lane) over them with variable shifts, which give 0 for the positions in
// other lanes. A word is tested with one vptest.

#include "isa_kernels.hpp"

#if defined(__AVX2__)

#include <immintrin.h>

#include "bloomkit/detail/split_block_avx2.hpp"
#include "bloomkit/sizing.hpp"
#include "word_mask.hpp"

namespace bloomkit::detail {
namespace {

[[gnu::always_inline]] inline __m256i split_block_mask_avx2(std::uint32_t h32) noexcept {
  const __m256i salts =
      _mm256_setr_epi32(static_cast<int>(blocked_salts[0]), static_cast<int>(blocked_salts[1]),
                        static_cast<int>(blocked_salts[2]), static_cast<int>(blocked_salts[3]),
                        static_cast<int>(blocked_salts[4]), static_cast<int>(blocked_salts[5]),
                        static_cast<int>(blocked_salts[6]), static_cast<int>(blocked_salts[7]));
  const __m256i products = _mm256_mullo_epi32(_mm256_set1_epi32(static_cast<int>(h32)), salts);
  return _mm256_sllv_epi32(_mm256_set1_epi32(1), _mm256_srli_epi32(products, 27));
}

// The block in one aligned 256-bit load (vmovdqa), where four relaxed atomic loads cost 0.5-1
// ns per key in the batches, and no false negative beside insert_concurrent:
// - Bits only ever go from 0 to 1. If a key's insert happens-before this lookup (the caller
//   learned of it through release/acquire), each byte of the block holds the key's bits in
//   every value it takes from then on, and x86-TSO gives this load no older value of any byte
//   (loads see the latest store in the global order visible to the core; a locked or is in it
//   once done). So however the hardware splits the load (per x86, each aligned 8-byte part is
//   single-copy atomic; a 32-byte aligned load lies in one cache line), any mix of the words'
//   values it sees holds the key's bits: no false negative. A key inserted concurrently may
//   be seen as absent, as with atomic loads: its insert has not finished.
// - In C++ a plain load racing the inserts' atomic fetch-or is a data race (undefined; TSan
//   reports it). The load is inline assembly instead: the compiler sees no C++ access, only
//   that the asm reads these 32 bytes (the "m" operand), so it keeps it after the caller's
//   acquire like any other read and cannot assume the bytes unchanged by other threads.
[[gnu::always_inline]] inline __m256i split_block_load_avx2(const std::uint64_t* block) noexcept {
  __m256i bits;
  asm("vmovdqa %1, %0"
      : "=x"(bits)
      : "m"(*reinterpret_cast<const std::uint64_t(*)[split_block_words]>(block)));
  return bits;
}

// The block tests of the kernels and of the single-key path's calls (split_block_avx2.hpp),
// inlined into the kernels' pipelines: an out-of-line call per key there cost the batched
// lookups 1.3-1.4x at n = 1e7 (bench/issue32).
[[gnu::always_inline]] inline bool block_holds(const std::uint64_t* block,
                                               std::uint32_t h32) noexcept {
  return _mm256_testc_si256(split_block_load_avx2(block), split_block_mask_avx2(h32));
}
[[gnu::always_inline]] inline bool block_set(std::uint64_t* block, std::uint32_t h32) noexcept {
  auto* p = reinterpret_cast<__m256i*>(block);
  const __m256i bits = _mm256_load_si256(p);
  const __m256i m = split_block_mask_avx2(h32);
  _mm256_store_si256(p, _mm256_or_si256(bits, m));
  return !_mm256_testc_si256(bits, m);
}

struct avx2_isa {
  static void masks(std::uint32_t h32, std::uint64_t out[4]) noexcept {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), split_block_mask_avx2(h32));
  }
  static bool insert(std::uint64_t* block, std::uint32_t h32) noexcept {
    return block_set(block, h32);
  }
  // One whole-block load: split_block_load_avx2 above says why no key is missed.
  static bool contains(const std::uint64_t* block, std::uint32_t h32) noexcept {
    return block_holds(block, h32);
  }
};

// Up to four 64-bit draws of four 16-bit chunks each: fields j < 16, every k a word filter has.
constexpr std::uint32_t max_fields = 16;
static_assert(max_fields >= max_word_hashes);

// A word's lanes, in the low 64-bit elements of a register (the rest 0).
template <unsigned Lanes>
struct vector_of {
  using type = __m256i;
};
template <>
struct vector_of<2> {
  using type = __m128i;
};

template <unsigned Lanes>
struct avx2_words {
  using vector = typename vector_of<Lanes>::type;
  using mask = vector;

  class shape {
   public:
    shape(std::uint32_t field, std::uint32_t k) noexcept
        : draws_((k + 3) / 4), field_(_mm256_set1_epi16(static_cast<short>(field))) {
      alignas(32) std::uint16_t first[max_fields];
      // A field past k starts at 0xFFFF: the saturating add keeps it there, past every lane.
      for (std::uint32_t j = 0; j < max_fields; ++j) {
        first[j] = j < k ? static_cast<std::uint16_t>(j * field) : std::uint16_t{0xFFFF};
      }
      first_ = _mm256_load_si256(reinterpret_cast<const __m256i*>(first));
    }

    mask of(std::uint64_t seed) const noexcept {
      // In registers: four stores and one 256-bit load of them would stall store forwarding.
      const std::uint64_t v1 = draws_ > 1 ? word_mask_next(seed) : 0;
      const std::uint64_t v2 = draws_ > 2 ? word_mask_next(v1) : 0;
      const std::uint64_t v3 = draws_ > 3 ? word_mask_next(v2) : 0;
      const __m256i chunks =
          _mm256_set_epi64x(static_cast<long long>(v3), static_cast<long long>(v2),
                            static_cast<long long>(v1), static_cast<long long>(seed));
      // Field j's bit: j F + floor(chunk_j F / 2^16).
      const __m256i at = _mm256_adds_epu16(_mm256_mulhi_epu16(chunks, field_), first_);
      const __m128i low = _mm256_castsi256_si128(at);
      const __m128i high = _mm256_extracti128_si256(at, 1);
      const __m128i quads[4] = {low, _mm_unpackhi_epi64(low, low), high,
                                _mm_unpackhi_epi64(high, high)};
      __m256i lanes[Lanes];
      for (unsigned l = 0; l < Lanes; ++l) lanes[l] = _mm256_setzero_si256();
      const __m256i one = _mm256_set1_epi64x(1);
      for (std::uint32_t q = 0; q < draws_; ++q) {
        const __m256i positions = _mm256_cvtepu16_epi64(quads[q]);
        for (unsigned l = 0; l < Lanes; ++l) {
          // Below the lane the count wraps to a huge one, past it it is >= 64: both shift to 0.
          const __m256i count = _mm256_sub_epi64(positions, _mm256_set1_epi64x(64 * l));
          lanes[l] = _mm256_or_si256(lanes[l], _mm256_sllv_epi64(one, count));
        }
      }
      __m256i bits = _mm256_setzero_si256();
      const __m256i element = _mm256_setr_epi64x(0, 1, 2, 3);
      for (unsigned l = 0; l < Lanes; ++l) {
        // Every element the OR of the four; kept in element l (a compare, not a blend, whose
        // immediate clang wants constant before the loop is unrolled).
        __m256i v = _mm256_or_si256(lanes[l], _mm256_permute4x64_epi64(lanes[l], 0x4E));
        v = _mm256_or_si256(v, _mm256_shuffle_epi32(v, 0x4E));
        const __m256i keep = _mm256_cmpeq_epi64(element, _mm256_set1_epi64x(l));
        bits = _mm256_or_si256(bits, _mm256_and_si256(v, keep));
      }
      if constexpr (Lanes == 2) {
        return _mm256_castsi256_si128(bits);
      } else {
        return bits;
      }
    }

   private:
    std::uint32_t draws_;
    __m256i field_;
    __m256i first_;
  };

  static vector load(const unsigned char* word) noexcept {
    if constexpr (Lanes == 2) {
      return _mm_loadu_si128(reinterpret_cast<const __m128i*>(word));
    } else {
      return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(word));
    }
  }
  // testc(v, m): no bit of m is 0 in v.
  static bool covers(vector v, vector m) noexcept {
    if constexpr (Lanes == 2) {
      return _mm_testc_si128(v, m) != 0;
    } else {
      return _mm256_testc_si256(v, m) != 0;
    }
  }
  static bool holds(const unsigned char* word, const mask& m) noexcept {
    return covers(load(word), m);
  }
  static bool set(unsigned char* word, const mask& m) noexcept {
    const vector v = load(word);
    if (covers(v, m)) return false;
    if constexpr (Lanes == 2) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(word), _mm_or_si128(v, m));
    } else {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(word), _mm256_or_si256(v, m));
    }
    return true;
  }
};

constexpr isa_kernels avx2_table{"avx2", blocked_paths<avx2_isa>::table("avx2"),
                                 window_paths<avx2_words>::table("avx2")};

}  // namespace

const isa_kernels* avx2_kernels() noexcept {
  return &avx2_table;
}

// Whether the block holds every bit of h32 (may race with insert_concurrent).
bool split_block_holds_avx2(const std::uint64_t* block, std::uint32_t h32) noexcept {
  return block_holds(block, h32);
}

// Sets the bits of h32 (single writer); true if one of them was 0.
bool split_block_set_avx2(std::uint64_t* block, std::uint32_t h32) noexcept {
  return block_set(block, h32);
}

}  // namespace bloomkit::detail

#else

#include "bloomkit/detail/split_block.hpp"
#include "bloomkit/detail/split_block_avx2.hpp"

namespace bloomkit::detail {
const isa_kernels* avx2_kernels() noexcept {
  return nullptr;
}
#if BLOOMKIT_SPLIT_BLOCK_AVX2
// A build without AVX2 code: the single-key path's calls get the portable code.
bool split_block_holds_avx2(const std::uint64_t* block, std::uint32_t h32) noexcept {
  return split_block_holds(block, h32);
}
bool split_block_set_avx2(std::uint64_t* block, std::uint32_t h32) noexcept {
  return split_block_set(block, h32);
}
#endif
}  // namespace bloomkit::detail

#endif
