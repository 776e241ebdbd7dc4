#pragma once
// Where filters' cells live: the allocation policy of bit_array (bit_array.hpp), one per process.
//
// In process the default maps anonymous memory: zeroed and lazily backed (a new filter costs
// nothing until its pages are touched), 2 MiB aligned and marked for transparent huge pages past
// 2 MiB. A host that must account for every byte installs its own: the Redis module allocates
// through Redis (src/redis_module/redis_memory.hpp), so that used_memory, maxmemory and MEMORY
// USAGE see each filter. Storage keeps the allocator it came from and gives its memory back to
// it, so installing another one changes later allocations only.
//
//   struct my_allocator final : bloomkit::storage_allocator { ... };
//   static my_allocator a;
//   bloomkit::set_storage_allocator(a);   // once, before the first filter is made

#include <cstddef>
#include <cstdint>

namespace bloomkit {

// One allocation: `words` (64-byte aligned, zeroed) serve the bit_array; `base` and `bytes` are
// the allocator's own (bytes: what the allocation holds, overhead included).
struct storage_block {
  std::uint64_t* words = nullptr;
  void* base = nullptr;
  std::size_t bytes = 0;
};

class storage_allocator {
 public:
  virtual ~storage_allocator() = default;
  // Zeroed, 64-byte-aligned room for `bytes` (> 0) bytes. Throws bloomkit::error when it cannot
  // or may not allocate (errc::too_large, with a message saying why); never returns null.
  virtual storage_block allocate(std::size_t bytes) = 0;
  virtual void deallocate(const storage_block& block) noexcept = 0;
  // Zeroes the first `bytes` bytes of the block's words (bit_array::clear). memset by default.
  virtual void zero(const storage_block& block, std::size_t bytes) noexcept;
};

// The in-process default: anonymous mmap, huge pages past 2 MiB (src/storage/bit_array.cpp).
storage_allocator& mapped_memory_allocator() noexcept;
// The allocator new storage comes from: mapped_memory_allocator() unless a host installed one.
storage_allocator& current_storage_allocator() noexcept;
// Installs `allocator` for every later allocation; it must outlive the storage it makes. Not
// synchronised with allocations running meanwhile: install it before making filters.
void set_storage_allocator(storage_allocator& allocator) noexcept;

}  // namespace bloomkit
