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
// An AVX2 path (mask and test in one 256-bit register) and a portable path set identical bits;
// the AVX2 path is chosen at run time when the CPU has it (set_simd picks one explicitly).
//
// Thread safety as for bloom_filter: contains / contains_many / insert_concurrent /
// insert_many_concurrent may run concurrently with each other on one filter (lock-free: relaxed
// atomic loads and atomic fetch-or on 64-bit words). insert / insert_many are the faster
// single-writer path and must not run concurrently with anything else on the same filter; nor
// may merge, intersect, clear or set_simd.
//
// A filter that maps a file throws errc::io_error from its lookups once the file was truncated or
// overwritten in place, as bloom_filter does (bloom_filter.hpp).

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

#include "bloomkit/bit_array.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/hashing.hpp"
#include "bloomkit/sizing.hpp"

namespace bloomkit {

namespace detail {
struct blocked_kernels;
}

class blocked_bloom_filter {
 public:
  static constexpr std::uint64_t block_bits = blocked_block_bits;  // 256
  static constexpr std::uint32_t hashes_per_key = blocked_hashes;  // 8

  // A filter sized for n keys at false-positive probability p by the blocked formula.
  static blocked_bloom_filter for_capacity(std::uint64_t n, double p);
  // A filter of `blocks` blocks. Its capacity is the n at which 8 bits per key is optimal
  // (blocked_natural_capacity) and its target FPP the expected FPP at that n.
  static blocked_bloom_filter with_blocks(std::uint64_t blocks);
  // A filter of at least `bits` bits, rounded up to whole 256-bit blocks (bits() tells).
  explicit blocked_bloom_filter(std::uint64_t bits);
  // A filter over existing storage (used by loaders). Throws errc::invalid_argument unless
  // config.bits is a positive multiple of 256 within max_bits, config.hashes is 8 and the
  // storage holds config.bits bits.
  blocked_bloom_filter(const filter_config& config, bit_array storage, std::uint64_t inserted);

  // Adds a key; returns whether it was new (at least one of its bits was 0).
  bool insert(std::string_view key);
  // insert() that may run concurrently with other concurrent inserts and lookups.
  bool insert_concurrent(std::string_view key);
  // false: the key was never inserted. true: it probably was.
  bool contains(std::string_view key) const;

  // Integral keys hash their little-endian bytes.
  template <std::integral T>
  bool insert(T key) {
    const auto bytes = le_bytes(key);
    return insert(std::string_view(bytes.data(), bytes.size()));
  }
  template <std::integral T>
  bool contains(T key) const {
    const auto bytes = le_bytes(key);
    return contains(std::string_view(bytes.data(), bytes.size()));
  }

  // Batched paths: a software pipeline hashes each key and prefetches its block well before
  // touching it, so the memory accesses of many keys overlap. Return the number of new /
  // present keys.
  std::size_t insert_many(std::span<const std::string_view> keys);
  std::size_t insert_many_concurrent(std::span<const std::string_view> keys);
  // results[i] is set to contains(keys[i]); results.size() must equal keys.size().
  std::size_t contains_many(std::span<const std::string_view> keys, std::span<bool> results) const;

  // Union / intersection of the bits. Throws errc::incompatible unless both have the same size.
  void merge(const blocked_bloom_filter& other);
  void intersect(const blocked_bloom_filter& other);
  void clear();

  // Distinct keys estimated from the fraction X/m of set bits: -m/8 ln(1 - X/m) (each key sets
  // one bit in 8 of the filter's 32-bit words, so the classic estimator holds with k = 8).
  double estimated_count() const noexcept;
  // The false-positive probability the bits give now: the mean over blocks of the product over
  // its eight words of (set bits / 32). Follows the bits, not inserted(): 1 when every bit is
  // set; blocked_expected_fpp(blocks(), n) on average after n keys.
  double estimated_fpp() const noexcept;
  double fill_ratio() const noexcept {
    return static_cast<double>(bits_.count()) / static_cast<double>(bits());
  }

  std::uint64_t bits() const noexcept { return config_.bits; }
  std::uint64_t blocks() const noexcept { return config_.bits / block_bits; }
  std::uint32_t hashes() const noexcept { return hashes_per_key; }
  std::uint64_t capacity() const noexcept { return config_.capacity; }
  double target_fpp() const noexcept { return config_.target_fpp; }
  // Inserts that changed at least one bit. After merge / intersect, estimated_count().
  std::uint64_t inserted() const noexcept { return __atomic_load_n(&inserted_, __ATOMIC_RELAXED); }
  static constexpr hash_scheme scheme() noexcept { return hash_scheme::xxh3_64_split_block; }
  const filter_config& config() const noexcept { return config_; }
  const bit_array& storage() const noexcept { return bits_; }
  std::size_t byte_size() const noexcept { return bits_.byte_size(); }
  bool read_only() const noexcept { return bits_.read_only(); }

  // Whether this CPU (and build) has the AVX2 path.
  static bool simd_supported() noexcept;
  // Whether this filter uses it.
  bool simd() const noexcept;
  // Uses the AVX2 path (when supported) or the portable one; both set and test the same bits.
  // Returns simd(). For tests and benchmarks; not thread-safe.
  bool set_simd(bool enable) noexcept;

  // Same size and bits (the inserted count is not compared).
  friend bool operator==(const blocked_bloom_filter& a, const blocked_bloom_filter& b) noexcept {
    return a.config_.bits == b.config_.bits && a.bits_ == b.bits_;
  }

 private:
  template <std::integral T>
  static std::array<char, sizeof(T)> le_bytes(T key) noexcept {
    std::array<char, sizeof(T)> out{};
    auto v = static_cast<std::make_unsigned_t<T>>(key);
    for (auto& c : out) {
      c = static_cast<char>(v & 0xff);
      v = static_cast<decltype(v)>(v >> 8);
    }
    return out;
  }

  std::uint64_t* writable_words();
  void require_compatible(const blocked_bloom_filter& other, const char* operation) const;
  void add_inserted(std::uint64_t n, bool atomic) noexcept;
  std::uint64_t estimated_inserted() const noexcept;

  filter_config config_;
  bit_array bits_;
  std::uint64_t inserted_ = 0;
  const detail::blocked_kernels* kernels_;
};

}  // namespace bloomkit
