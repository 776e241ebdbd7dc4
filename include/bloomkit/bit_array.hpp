#pragma once
// bit_array: the word storage behind every filter.
//
// Bits live in little-endian 64-bit words: bit i is bit (i % 64) of word i / 64. Storage is
// 64-byte aligned (one cache line) and either owned (zeroed memory from the storage allocator,
// storage_allocator.hpp: anonymous memory on huge pages in process, Redis's allocator in the
// module) or a read-only view over memory someone else owns, such as a mapped file. Bits past
// size() in the last word are always 0.
//
// A view over a mapped file (mapped_file.hpp) remembers it: check_source() after reading its bits
// throws errc::io_error naming the file when the file was truncated or overwritten while mapped.
//
// Reads use relaxed atomic loads and set_atomic() uses an atomic fetch-or, so set_atomic() may
// run concurrently with test() and other set_atomic() calls. set() is the plain path for
// single-threaded writers and must not race with anything.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "bloomkit/detail/word_access.hpp"
#include "bloomkit/mapped_file.hpp"
#include "bloomkit/storage_allocator.hpp"

namespace bloomkit {

class bit_array {
 public:
  bit_array() = default;
  // Owned, zeroed storage for `bits` bits from current_storage_allocator(). Throws errc::too_large
  // when it cannot be allocated (or the allocator refuses it).
  explicit bit_array(std::uint64_t bits);
  // A read-only view over word_count_for(bits) words at `words` (64-byte aligned); `owner`
  // keeps the memory alive for as long as the view (and its copies) exist.
  static bit_array view(const std::uint64_t* words, std::uint64_t bits,
                        std::shared_ptr<const void> owner);
  // A read-only view over words inside `file`, which it keeps alive and check_source() checks.
  static bit_array view(const std::uint64_t* words, std::uint64_t bits,
                        std::shared_ptr<const mapped_file> file);
  // A view over memory that outlives it (no owner).
  static bit_array view(const std::uint64_t* words, std::uint64_t bits, std::nullptr_t) {
    return view(words, bits, std::shared_ptr<const void>());
  }

  bit_array(const bit_array& other);  // deep copy of owned storage; views share the owner
  bit_array& operator=(const bit_array& other);
  bit_array(bit_array&& other) noexcept;
  bit_array& operator=(bit_array&& other) noexcept;
  ~bit_array();

  static constexpr std::size_t word_count_for(std::uint64_t bits) noexcept {
    return static_cast<std::size_t>((bits + 63) / 64);
  }

  std::uint64_t size() const noexcept { return bits_; }
  std::size_t word_count() const noexcept { return word_count_for(bits_); }
  std::size_t byte_size() const noexcept { return word_count() * 8; }
  bool read_only() const noexcept { return owner_ != nullptr; }
  // Bytes the owned storage holds, as its allocator counts them (0 for a view).
  std::size_t allocated_bytes() const noexcept { return block_.bytes; }
  // The mapped file a view reads, or nullptr.
  const mapped_file* source() const noexcept { return source_; }
  // Throws errc::io_error naming the file when this is a view over a mapped file that was
  // truncated or overwritten since it was mapped (mapped_file::check); nothing otherwise. Readers
  // call it after reading bits, before they answer from them.
  void check_source() const {
    if (source_ != nullptr) source_->check();
  }

  const std::uint64_t* data() const noexcept { return words_; }
  std::span<const std::uint64_t> words() const noexcept { return {words_, word_count()}; }
  // Throws errc::read_only on a view.
  std::span<std::uint64_t> mutable_words();

  bool test(std::uint64_t i) const noexcept {
    return (detail::load_relaxed(words_ + (i >> 6)) >> (i & 63)) & 1;
  }
  // Sets bit i; returns whether it was 0. Not thread-safe.
  bool set(std::uint64_t i) noexcept {
    std::uint64_t& w = words_[i >> 6];
    const std::uint64_t mask = std::uint64_t{1} << (i & 63);
    const bool was_clear = (w & mask) == 0;
    w |= mask;
    return was_clear;
  }
  // Sets bit i with an atomic fetch-or; returns whether it was 0. Thread-safe.
  bool set_atomic(std::uint64_t i) noexcept {
    const std::uint64_t mask = std::uint64_t{1} << (i & 63);
    return (detail::fetch_or_relaxed(words_ + (i >> 6), mask) & mask) == 0;
  }
  // Hints the CPU to fetch the line holding bit i into L2 (detail/word_access.hpp says why).
  void prefetch(std::uint64_t i) const noexcept { detail::prefetch_read(words_ + (i >> 6)); }
  void prefetch_for_write(std::uint64_t i) const noexcept {
    detail::prefetch_write(words_ + (i >> 6));
  }

  // Number of set bits.
  std::uint64_t count() const noexcept;
  // Zeroes every bit. Throws errc::read_only on a view.
  void clear();
  // Makes the array `bits` bits long in the words it has (word_count_for(bits) == word_count()),
  // for a reader that received the words before it knew their bit count. Throws
  // errc::invalid_argument otherwise, errc::read_only on a view.
  void resize_within_words(std::uint64_t bits);

  friend bool operator==(const bit_array& a, const bit_array& b) noexcept;

 private:
  // Owned storage of byte_size() bytes from current_storage_allocator().
  void allocate();
  void release() noexcept;

  std::uint64_t* words_ = nullptr;
  std::uint64_t bits_ = 0;
  storage_block block_;                     // owned storage (words_ == block_.words)
  storage_allocator* allocator_ = nullptr;  // owned storage: where block_ goes back
  std::shared_ptr<const void> owner_;       // views: whoever owns the words
  const mapped_file* source_ = nullptr;     // views of a mapped file: that file (owned by owner_)
};

}  // namespace bloomkit
