// Filters' memory in the module (redis_memory.hpp).

#include "redis_memory.hpp"

#include <sys/mman.h>

#include <bit>
#include <cstring>
#include <limits>

#include "bloomkit/error.hpp"
#include "bloomkit/storage_allocator.hpp"
#include "module_stats.hpp"

namespace bloomkit::redis_module {

namespace {

constexpr std::size_t alignment = 64;  // one cache line: the kernels' blocks never straddle two
constexpr std::size_t page = 4096;
// Past this, zeroing drops the pages (they read back zero) instead of writing them: a new filter
// costs no resident memory until its pages are touched, as in process.
constexpr std::size_t lazy_zero_bytes = std::size_t{1} << 20;
// Past this, the 2 MiB-aligned interior of an array is marked for transparent huge pages, as the
// in-process policy marks its mappings: a random probe then costs a cache miss, not a cache miss
// plus a TLB miss (BF.MEXISTS of 1000 keys on a 60 MB filter: measured in docs/REDIS.md). Nothing
// is allocated for it: at most the two partial huge pages at the ends keep small pages.
constexpr std::size_t huge_page = std::size_t{2} << 20;
constexpr std::size_t huge_page_bytes = 2 * huge_page;

memory_budget* active_budget = nullptr;

// Zeroes [p, p + bytes): writes the partial pages at the ends, drops the whole pages between.
void zero_memory(void* p, std::size_t bytes) noexcept {
  auto* begin = static_cast<unsigned char*>(p);
  if (bytes >= lazy_zero_bytes) {
    const auto addr = reinterpret_cast<std::uintptr_t>(begin);
    const std::uintptr_t first = (addr + page - 1) & ~std::uintptr_t{page - 1};
    const std::uintptr_t last = (addr + bytes) & ~std::uintptr_t{page - 1};
    if (last > first &&
        ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED) == 0) {
      std::memset(begin, 0, first - addr);
      std::memset(reinterpret_cast<void*>(last), 0, addr + bytes - last);
      return;
    }
  }
  std::memset(begin, 0, bytes);
}

// TryAlloc answers null where Alloc would abort the server (Redis < 7 lacks it).
void* try_alloc(std::size_t bytes) noexcept {
  return RedisModule_TryAlloc != nullptr ? RedisModule_TryAlloc(bytes) : RedisModule_Alloc(bytes);
}

// What the allocator holds for an allocation of `requested` bytes at `base`.
std::size_t held_bytes(void* base, std::size_t requested) noexcept {
  return RedisModule_MallocSize != nullptr ? RedisModule_MallocSize(base) : requested;
}

class redis_allocator final : public storage_allocator {
 public:
  storage_block allocate(std::size_t bytes) override {
    if (active_budget != nullptr && !active_budget->admits(bytes)) {
      throw error(errc::too_large, active_budget->refusal());
    }
    if (bytes > std::numeric_limits<std::size_t>::max() - alignment) {
      throw error(errc::too_large, "cannot allocate " + std::to_string(bytes) + " bytes");
    }
    // jemalloc places every size class that is a multiple of 64 bytes (64, 128, 192 and all
    // from 256 on) on a 64-byte boundary: from 256 bytes on the exact size, below it the size
    // rounded up to 64 bytes (144 would take class 160, aligned for every other object only),
    // so that the count is the same every time; padding to align by hand only for an allocator
    // that does otherwise.
    const std::size_t rounded = (bytes + alignment - 1) / alignment * alignment;
    const std::size_t sizes[] = {bytes >= 256 ? bytes : rounded, bytes + alignment};
    std::size_t request = 0;
    void* base = nullptr;
    for (const std::size_t size : sizes) {
      if (size == request) continue;
      if (base != nullptr) RedisModule_Free(base);
      request = size;
      base = try_alloc(request);
      if (base == nullptr || reinterpret_cast<std::uintptr_t>(base) % alignment == 0) break;
    }
    if (base == nullptr) {
      throw error(errc::too_large, "cannot allocate " + std::to_string(bytes) +
                                       " bytes for the filter's bits: Redis's allocator refused");
    }
    const auto addr = reinterpret_cast<std::uintptr_t>(base);
    auto* words =
        reinterpret_cast<std::uint64_t*>((addr + alignment - 1) & ~std::uintptr_t{alignment - 1});
    if (bytes >= huge_page_bytes) {
      const auto begin = reinterpret_cast<std::uintptr_t>(words);
      const std::uintptr_t first = (begin + huge_page - 1) & ~std::uintptr_t{huge_page - 1};
      const std::uintptr_t last = (begin + bytes) & ~std::uintptr_t{huge_page - 1};
      if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
    }
    zero_memory(words, bytes);
    // MEMORY USAGE counts the bytes asked for, as RedisBloom and Redis's own types count their
    // values; used_memory (and INFO's bytes) the allocator's size class, at most a quarter more
    // (jemalloc: allocation_estimate), for RedisBloom's values as for these.
    note_bytes_allocated(held_bytes(base, request));
    return {words, base, request};
  }
  void deallocate(const storage_block& block) noexcept override {
    note_bytes_freed(held_bytes(block.base, block.bytes));
    RedisModule_Free(block.base);
  }
  void zero(const storage_block& block, std::size_t bytes) noexcept override {
    zero_memory(block.words, bytes);
  }
};

redis_allocator allocator;

std::string oom_message(std::uint64_t needed, std::uint64_t used, std::uint64_t maxmemory) {
  return "OOM command not allowed when used memory > 'maxmemory': filter bits of " +
         std::to_string(needed) + " bytes with " + std::to_string(used) +
         " bytes in use would pass maxmemory (" + std::to_string(maxmemory) + " bytes)";
}

}  // namespace

void install_redis_allocator() {
  set_storage_allocator(allocator);
}

std::uint64_t allocation_estimate(std::uint64_t bytes) noexcept {
  const std::uint64_t n = bytes + alignment;
  if (n <= 128) return (n + 15) / 16 * 16;
  // 2^k < n <= 2^(k+1): classes every 2^(k-2).
  const int k = std::bit_width(n - 1) - 1;
  const std::uint64_t step = std::uint64_t{1} << (k - 2);
  return (n + step - 1) / step * step;
}

memory_budget::memory_budget(RedisModuleCtx* ctx) : ctx_(ctx), outer_(active_budget) {
  const int flags = RedisModule_GetContextFlags(ctx);
  applies_ = (flags & ctx_flags_maxmemory) != 0 &&
             (flags & (ctx_flags_replicated | ctx_flags_loading)) == 0 &&
             RedisModule_GetUsedMemoryRatio != nullptr && RedisModule_GetServerInfo != nullptr &&
             RedisModule_FreeServerInfo != nullptr &&
             RedisModule_ServerInfoGetFieldUnsigned != nullptr;
  evicts_ = (flags & ctx_flags_evict) != 0;
  active_budget = this;
}

memory_budget::~memory_budget() {
  active_budget = outer_;
}

bool memory_budget::admits(std::span<const std::uint64_t> allocations) {
  if (!applies_ || allocations.empty()) return true;
  if (maxmemory_ == 0) {
    RedisModuleServerInfoData* info = RedisModule_GetServerInfo(ctx_, "memory");
    if (info == nullptr) return true;
    int problem = 0;
    maxmemory_ = RedisModule_ServerInfoGetFieldUnsigned(info, "maxmemory", &problem);
    RedisModule_FreeServerInfo(ctx_, info);
    if (problem != 0 || maxmemory_ == 0) {
      applies_ = false;
      return true;
    }
  }
  std::uint64_t needed = 0;
  for (std::uint64_t bytes : allocations) needed += allocation_estimate(bytes);
  // What Redis compares with maxmemory: used memory less its replication and AOF buffers.
  const auto used = static_cast<std::uint64_t>(
      static_cast<double>(RedisModule_GetUsedMemoryRatio()) * static_cast<double>(maxmemory_));
  if (needed > maxmemory_ || (!evicts_ && needed > maxmemory_ - std::min(used, maxmemory_))) {
    refusal_ = oom_message(needed, used, maxmemory_);
    return false;
  }
  return true;
}

}  // namespace bloomkit::redis_module
