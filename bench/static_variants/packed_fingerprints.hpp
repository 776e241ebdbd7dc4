#pragma once
// An array of b-bit values packed back to back (b <= 56), read and written through one unaligned
// 64-bit load at the value's first byte: the fuse filter's fingerprint table (bench only).

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace bloomkit::bench::static_variants {

class packed_fingerprints {
 public:
  packed_fingerprints() = default;
  // 8 bytes of padding so the last value's 64-bit load stays inside the buffer.
  packed_fingerprints(std::size_t count, unsigned bits)
      : bytes_((count * bits + 7) / 8 + 8, 0), bits_(bits), mask_((std::uint64_t{1} << bits) - 1) {}

  std::uint64_t get(std::size_t i) const noexcept {
    const std::size_t bit = i * bits_;
    return (load(bit >> 3) >> (bit & 7)) & mask_;
  }
  void set(std::size_t i, std::uint64_t value) noexcept {
    const std::size_t bit = i * bits_;
    const unsigned shift = bit & 7;
    std::uint64_t word = load(bit >> 3);
    word = (word & ~(mask_ << shift)) | ((value & mask_) << shift);
    std::memcpy(bytes_.data() + (bit >> 3), &word, sizeof word);
  }
  // The address of value i's first byte, for prefetching.
  const unsigned char* address(std::size_t i) const noexcept {
    return bytes_.data() + ((i * bits_) >> 3);
  }
  std::size_t byte_size() const noexcept { return bytes_.size() - 8; }
  std::uint64_t mask() const noexcept { return mask_; }

 private:
  std::uint64_t load(std::size_t byte) const noexcept {
    std::uint64_t word;
    std::memcpy(&word, bytes_.data() + byte, sizeof word);
    return word;
  }
  std::vector<unsigned char> bytes_;
  unsigned bits_ = 0;
  std::uint64_t mask_ = 0;
};

}  // namespace bloomkit::bench::static_variants
