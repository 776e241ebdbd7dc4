#include "mapping_registry.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>

#include "bloomkit/error.hpp"

namespace bloomkit::detail {

struct mapping_slot {
  std::atomic<bool> taken{false};  // claimed by a mapping (or being claimed)
  // Odd while the slot describes no live mapping, even while begin / end describe one. The
  // handler trusts begin / end only when it read the same even version before and after them
  // (a seqlock), so a slot being released and claimed again is never read half old, half new.
  std::atomic<std::uint64_t> version{1};
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::uintptr_t> end{0};
  std::atomic<bool> faulted{false};
};

namespace {

static_assert(std::atomic<std::uint64_t>::is_always_lock_free &&
                  std::atomic<std::uintptr_t>::is_always_lock_free &&
                  std::atomic<bool>::is_always_lock_free,
              "the SIGBUS handler reads the registry with lock-free atomics only");

struct slot_block {
  static constexpr std::size_t size = 64;
  mapping_slot slots[size];
  std::atomic<slot_block*> next{nullptr};
};

// Further blocks are linked after this one as mappings need them, and never freed: the handler
// may be walking them.
constinit slot_block first_block;

// What one fault covers with all-ones: the 2 MiB-aligned block around the address, within the
// mapping. A scan over a large truncated file then takes few faults and creates few memory
// regions (the kernel caps their number, vm.max_map_count); the memory it costs is at most what
// the lost part of the file took in the page cache.
constexpr std::uintptr_t cover_size = std::uintptr_t{2} << 20;

// Set once before the handler is installed (sysconf is not async-signal-safe).
std::uintptr_t page_size = 4096;

// The SIGBUS disposition before ours, for faults outside bloomkit's mappings.
struct sigaction previous_action {};

// Maps all-one bytes over [begin, end) (whole pages) in one step: a fresh anonymous region is
// filled, made read-only and moved over the range by mremap, which replaces what was there
// atomically: no thread ever reads the range half filled, or zero. Async-signal-safe calls only.
bool cover_with_ones(std::uintptr_t begin, std::uintptr_t end) noexcept {
  const std::size_t length = end - begin;
  void* fresh = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (fresh == MAP_FAILED) return false;
  std::memset(fresh, 0xff, length);
  if (::mprotect(fresh, length, PROT_READ) == 0 &&
      ::mremap(fresh, length, length, MREMAP_MAYMOVE | MREMAP_FIXED,
               reinterpret_cast<void*>(begin)) != MAP_FAILED) {
    return true;
  }
  ::munmap(fresh, length);
  return false;
}

// The live registered mapping that holds `address` (its bounds in begin / end), or nullptr.
mapping_slot* find_mapping(std::uintptr_t address, std::uintptr_t& begin,
                           std::uintptr_t& end) noexcept {
  for (slot_block* block = &first_block; block != nullptr;
       block = block->next.load(std::memory_order_acquire)) {
    for (mapping_slot& slot : block->slots) {
      const std::uint64_t version = slot.version.load(std::memory_order_acquire);
      if (version % 2 != 0) continue;
      // Acquire loads: the second version read cannot move above them.
      begin = slot.begin.load(std::memory_order_acquire);
      end = slot.end.load(std::memory_order_acquire);
      if (slot.version.load(std::memory_order_relaxed) != version) continue;
      if (address >= begin && address < end) return &slot;
    }
  }
  return nullptr;
}

// Hands a SIGBUS that is not ours to the disposition before ours.
void forward(int signal, siginfo_t* info, void* context) noexcept {
  if ((previous_action.sa_flags & SA_SIGINFO) != 0) {
    previous_action.sa_sigaction(signal, info, context);
    return;
  }
  const auto handler = previous_action.sa_handler;
  if (handler == SIG_IGN && info->si_code <= 0) return;  // sent by kill(); ignored, as before
  if (handler != SIG_DFL && handler != SIG_IGN) {
    handler(signal);
    return;
  }
  // The default action (a fault cannot be ignored): restore it and raise the signal again. It is
  // blocked while this handler runs and ends the process, with SIGBUS as its status, when it
  // returns.
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(SIGBUS, &fallback, nullptr);
  ::raise(signal);
}

void on_sigbus(int signal, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  // The kernel's fault codes are positive; kill() and sigqueue() send codes <= 0.
  if (info != nullptr && info->si_code > 0) {
    const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
    std::uintptr_t begin = 0;
    std::uintptr_t end = 0;
    if (mapping_slot* slot = find_mapping(address, begin, end)) {
      slot->faulted.store(true, std::memory_order_relaxed);
      const std::uintptr_t block = address & ~(cover_size - 1);
      const std::uintptr_t page = address & ~(page_size - 1);
      if (cover_with_ones(std::max(begin, block), std::min(end, block + cover_size)) ||
          cover_with_ones(page, page + page_size)) {
        errno = saved_errno;
        return;  // the faulting read is retried and sees all-ones
      }
    }
  }
  errno = saved_errno;
  forward(signal, info, context);
}

void install_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    page_size = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    struct sigaction action {};
    action.sa_sigaction = on_sigbus;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    if (::sigaction(SIGBUS, &action, &previous_action) != 0) {
      throw error(errc::io_error,
                  std::string("cannot install the SIGBUS handler for mapped files: ") +
                      std::strerror(errno));
    }
  });
}

mapping_slot& claim_slot() {
  slot_block* block = &first_block;
  while (true) {
    for (mapping_slot& slot : block->slots) {
      bool expected = false;
      if (!slot.taken.load(std::memory_order_relaxed) &&
          slot.taken.compare_exchange_strong(expected, true, std::memory_order_acquire)) {
        return slot;
      }
    }
    slot_block* next = block->next.load(std::memory_order_acquire);
    if (next == nullptr) {
      auto* fresh = new slot_block;
      // On failure, `next` is the block another thread linked first.
      if (block->next.compare_exchange_strong(next, fresh, std::memory_order_acq_rel)) {
        next = fresh;
      } else {
        delete fresh;
      }
    }
    block = next;
  }
}

}  // namespace

mapping_slot& register_mapping(const void* base, std::size_t length) {
  install_handler();
  mapping_slot& slot = claim_slot();
  const auto begin = reinterpret_cast<std::uintptr_t>(base);
  const std::uintptr_t pages = (length + page_size - 1) / page_size * page_size;
  slot.faulted.store(false, std::memory_order_relaxed);
  slot.begin.store(begin, std::memory_order_release);
  slot.end.store(begin + pages, std::memory_order_release);
  slot.version.fetch_add(1, std::memory_order_release);  // even: live
  return slot;
}

void unregister_mapping(mapping_slot& slot) noexcept {
  slot.version.fetch_add(1, std::memory_order_release);  // odd: no longer live
  slot.taken.store(false, std::memory_order_release);
}

const std::atomic<bool>& fault_flag(const mapping_slot& slot) noexcept {
  return slot.faulted;
}

}  // namespace bloomkit::detail
