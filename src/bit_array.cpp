#include "bloomkit/bit_array.hpp"

#include <sys/mman.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "bloomkit/error.hpp"
#include "bloomkit/sizing.hpp"

namespace bloomkit {
namespace {

constexpr std::size_t huge_page = std::size_t{2} << 20;

// Anonymous mappings come zeroed and lazily backed, so a new filter costs nothing until its
// pages are touched. Large arrays are aligned to 2 MiB and marked for transparent huge pages:
// a random probe then costs a cache miss, not a cache miss plus a TLB miss.
std::uint64_t* allocate_zeroed(std::size_t bytes, std::size_t& mapped_bytes) {
  const bool huge = bytes >= huge_page;
  const std::size_t request = huge ? bytes + huge_page : bytes;
  void* p = ::mmap(nullptr, request, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    throw error(errc::too_large, "cannot allocate " + std::to_string(bytes) +
                                     " bytes for the filter's bits: " + std::strerror(errno));
  }
  auto* base = static_cast<unsigned char*>(p);
  if (!huge) {
    mapped_bytes = request;
    return reinterpret_cast<std::uint64_t*>(base);
  }
  // Trim the mapping to a 2 MiB-aligned window of `bytes` (rounded up to whole pages).
  const auto addr = reinterpret_cast<std::uintptr_t>(base);
  const std::uintptr_t aligned = (addr + huge_page - 1) & ~(std::uintptr_t{huge_page} - 1);
  const std::size_t head = aligned - addr;
  const std::size_t page = 4096;
  const std::size_t body = (bytes + page - 1) / page * page;
  if (head) ::munmap(base, head);
  const std::size_t tail = request - head - body;
  if (tail) ::munmap(base + head + body, tail);
  ::madvise(base + head, body, MADV_HUGEPAGE);
  mapped_bytes = body;
  return reinterpret_cast<std::uint64_t*>(base + head);
}

// Without the POPCNT instruction the compiler calls a slow library routine per word, so the
// loop is built twice and picked at run time. (Not target_clones: its ifunc resolver runs
// before sanitizer runtimes are initialised and crashes TSan builds.)
template <class Word>
std::uint64_t count_bits_generic(const Word* words, std::size_t n) noexcept {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    total += static_cast<std::uint64_t>(__builtin_popcountll(detail::load_relaxed(words + i)));
  }
  return total;
}

__attribute__((target("popcnt"))) std::uint64_t count_bits_popcnt(const std::uint64_t* words,
                                                                  std::size_t n) noexcept {
  return count_bits_generic(words, n);
}

std::uint64_t count_bits(const std::uint64_t* words, std::size_t n) noexcept {
  static const bool has_popcnt = __builtin_cpu_supports("popcnt");
  return has_popcnt ? count_bits_popcnt(words, n) : count_bits_generic(words, n);
}

}  // namespace

bit_array::bit_array(std::uint64_t bits) : bits_(bits) {
  if (bits > max_bits) {
    throw error(errc::too_large, "bit array of " + std::to_string(bits) +
                                     " bits exceeds the maximum of " + std::to_string(max_bits));
  }
  if (bits == 0) return;
  words_ = allocate_zeroed(byte_size(), mapped_bytes_);
}

bit_array bit_array::view(const std::uint64_t* words, std::uint64_t bits,
                          std::shared_ptr<const void> owner) {
  bit_array a;
  // The view never writes through this pointer: every mutating member checks read_only().
  a.words_ = const_cast<std::uint64_t*>(words);
  a.bits_ = bits;
  a.owner_ = owner ? std::move(owner) : std::shared_ptr<const void>(words, [](const void*) {});
  return a;
}

bit_array bit_array::view(const std::uint64_t* words, std::uint64_t bits,
                          std::shared_ptr<const mapped_file> file) {
  const mapped_file* source = file.get();
  bit_array a = view(words, bits, std::shared_ptr<const void>(std::move(file)));
  a.source_ = source;
  return a;
}

bit_array::bit_array(const bit_array& other)
    : bits_(other.bits_), owner_(other.owner_), source_(other.source_) {
  if (owner_ || other.words_ == nullptr) {
    words_ = other.words_;
    return;
  }
  words_ = allocate_zeroed(byte_size(), mapped_bytes_);
  std::memcpy(words_, other.words_, byte_size());
}

bit_array& bit_array::operator=(const bit_array& other) {
  if (this != &other) *this = bit_array(other);
  return *this;
}

bit_array::bit_array(bit_array&& other) noexcept
    : words_(std::exchange(other.words_, nullptr)),
      bits_(std::exchange(other.bits_, 0)),
      mapped_bytes_(std::exchange(other.mapped_bytes_, 0)),
      owner_(std::move(other.owner_)),
      source_(std::exchange(other.source_, nullptr)) {}

bit_array& bit_array::operator=(bit_array&& other) noexcept {
  if (this != &other) {
    release();
    words_ = std::exchange(other.words_, nullptr);
    bits_ = std::exchange(other.bits_, 0);
    mapped_bytes_ = std::exchange(other.mapped_bytes_, 0);
    owner_ = std::move(other.owner_);
    source_ = std::exchange(other.source_, nullptr);
  }
  return *this;
}

bit_array::~bit_array() {
  release();
}

void bit_array::release() noexcept {
  if (!owner_ && words_ != nullptr) ::munmap(words_, mapped_bytes_);
  owner_.reset();
  source_ = nullptr;
  words_ = nullptr;
  bits_ = 0;
  mapped_bytes_ = 0;
}

std::span<std::uint64_t> bit_array::mutable_words() {
  if (read_only()) throw error(errc::read_only, "bit array is a read-only view");
  return {words_, word_count()};
}

std::uint64_t bit_array::count() const noexcept {
  return count_bits(words_, word_count());
}

void bit_array::clear() {
  auto words = mutable_words();
  if (words.empty()) return;
  // Dropping the pages returns them to the kernel and reads back zero: cheaper than memset
  // for large arrays, and the memory is given back.
  if (::madvise(words_, mapped_bytes_, MADV_DONTNEED) != 0) {
    std::memset(words_, 0, byte_size());
  }
}

bool operator==(const bit_array& a, const bit_array& b) noexcept {
  if (a.bits_ != b.bits_) return false;
  if (a.words_ == b.words_) return true;
  return std::memcmp(a.words_, b.words_, a.byte_size()) == 0;
}

}  // namespace bloomkit
