#include "bloomkit/bit_array.hpp"

#include <sys/mman.h>

#include <atomic>
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

// The in-process policy (storage_allocator.hpp). Anonymous mappings come zeroed and lazily backed,
// so a new filter costs nothing until its pages are touched. Large arrays are aligned to 2 MiB and
// marked for transparent huge pages: a random probe then costs a cache miss, not a cache miss
// plus a TLB miss.
class mapped_memory final : public storage_allocator {
 public:
  storage_block allocate(std::size_t bytes) override {
    const bool huge = bytes >= huge_page;
    const std::size_t request = huge ? bytes + huge_page : bytes;
    void* p = ::mmap(nullptr, request, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      throw error(errc::too_large, "cannot allocate " + std::to_string(bytes) +
                                       " bytes for the filter's bits: " + std::strerror(errno));
    }
    auto* base = static_cast<unsigned char*>(p);
    if (!huge) return {reinterpret_cast<std::uint64_t*>(base), base, request};
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
    return {reinterpret_cast<std::uint64_t*>(base + head), base + head, body};
  }
  void deallocate(const storage_block& block) noexcept override {
    ::munmap(block.base, block.bytes);
  }
  // Dropping the pages returns them to the kernel and reads back zero: cheaper than memset for
  // large arrays, and the memory is given back.
  void zero(const storage_block& block, std::size_t bytes) noexcept override {
    if (::madvise(block.base, block.bytes, MADV_DONTNEED) != 0) std::memset(block.words, 0, bytes);
  }
};

mapped_memory default_allocator;
std::atomic<storage_allocator*> installed_allocator{&default_allocator};

// Without the POPCNT instruction the compiler calls a slow library routine per word, so the
// loop is built twice and picked at run time. (Not target_clones: its ifunc resolver runs
// before sanitizer runtimes are initialised and crashes TSan builds.) Always inlined: at -O1 (the
// sanitized builds) a shared out-of-line copy would lack POPCNT in both callers.
template <class Word>
[[gnu::always_inline]] inline std::uint64_t count_bits_generic(const Word* words,
                                                               std::size_t n) noexcept {
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

void storage_allocator::zero(const storage_block& block, std::size_t bytes) noexcept {
  std::memset(block.words, 0, bytes);
}

storage_allocator& mapped_memory_allocator() noexcept {
  return default_allocator;
}

storage_allocator& current_storage_allocator() noexcept {
  return *installed_allocator.load(std::memory_order_acquire);
}

void set_storage_allocator(storage_allocator& allocator) noexcept {
  installed_allocator.store(&allocator, std::memory_order_release);
}

void bit_array::allocate() {
  storage_allocator& allocator = current_storage_allocator();
  block_ = allocator.allocate(byte_size());
  allocator_ = &allocator;
  words_ = block_.words;
}

bit_array::bit_array(std::uint64_t bits) : bits_(bits) {
  if (bits > max_bits) {
    throw error(errc::too_large, "bit array of " + std::to_string(bits) +
                                     " bits exceeds the maximum of " + std::to_string(max_bits));
  }
  if (bits == 0) return;
  allocate();
}

void bit_array::resize_within_words(std::uint64_t bits) {
  if (read_only()) throw error(errc::read_only, "bit array is a read-only view");
  if (word_count_for(bits) != word_count()) {
    throw error(errc::invalid_argument, "bit array of " + std::to_string(word_count()) +
                                            " words cannot hold " + std::to_string(bits) +
                                            " bits in them");
  }
  bits_ = bits;
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
  allocate();
  std::memcpy(words_, other.words_, byte_size());
}

bit_array& bit_array::operator=(const bit_array& other) {
  if (this != &other) *this = bit_array(other);
  return *this;
}

bit_array::bit_array(bit_array&& other) noexcept
    : words_(std::exchange(other.words_, nullptr)),
      bits_(std::exchange(other.bits_, 0)),
      block_(std::exchange(other.block_, {})),
      allocator_(std::exchange(other.allocator_, nullptr)),
      owner_(std::move(other.owner_)),
      source_(std::exchange(other.source_, nullptr)) {}

bit_array& bit_array::operator=(bit_array&& other) noexcept {
  if (this != &other) {
    release();
    words_ = std::exchange(other.words_, nullptr);
    bits_ = std::exchange(other.bits_, 0);
    block_ = std::exchange(other.block_, {});
    allocator_ = std::exchange(other.allocator_, nullptr);
    owner_ = std::move(other.owner_);
    source_ = std::exchange(other.source_, nullptr);
  }
  return *this;
}

bit_array::~bit_array() {
  release();
}

void bit_array::release() noexcept {
  if (allocator_ != nullptr) allocator_->deallocate(block_);
  owner_.reset();
  source_ = nullptr;
  words_ = nullptr;
  bits_ = 0;
  block_ = {};
  allocator_ = nullptr;
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
  allocator_->zero(block_, byte_size());
}

bool operator==(const bit_array& a, const bit_array& b) noexcept {
  if (a.bits_ != b.bits_) return false;
  if (a.words_ == b.words_) return true;
  return std::memcmp(a.words_, b.words_, a.byte_size()) == 0;
}

}  // namespace bloomkit
