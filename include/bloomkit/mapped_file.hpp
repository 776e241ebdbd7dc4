#pragma once
// mapped_file: a file mapped read-only, for which a change under the mapping is an error naming
// the file, never a crash. Mapped filters (bloomkit::map, map_any) and the CLI's inputs use it.
//
// A process that reads a mapped page the file no longer has gets SIGBUS, which kills it: the
// file was truncated, or is being rewritten in place (cp over it truncates it first; log
// rotation by copytruncate). The first mapped_file installs a process-wide SIGBUS handler that
// maps all-one bytes over the lost pages of a mapped_file and flags it; the faulting read then
// goes on and sees 0xFF bytes, so a mapped filter answers "present", never a wrong "absent".
// Reads are followed by check(), which turns the change into errc::io_error naming the file.
// check() also notices what raises no fault: a file cut inside its last page (the cut bytes
// read 0), and, with watch(), a file rewritten in place with other contents.
//
// Replacing a mapped file by renaming a new file over it (mv, and every bloomkit writer) is
// safe: the mapping keeps the old file, which lives on until the mapping is dropped.
//
// The handler chains to the SIGBUS handler installed before it, which still gets every fault
// outside bloomkit's mappings (by default the process dies, as before). A program that installs
// its own SIGBUS handler after mapping a file must chain to the one it replaces.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

namespace bloomkit {

namespace detail {
struct mapping_slot;

// Keeps the reads before it (of the mapping) from moving after the reads that follow it (of the
// flags and watched words). x86 keeps loads in program order: only the compiler must not move
// them.
inline void order_prior_reads() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  std::atomic_signal_fence(std::memory_order_seq_cst);
#else
  std::atomic_thread_fence(std::memory_order_acquire);
#endif
}
}  // namespace detail

class mapped_file {
 public:
  // How the mapping will be read: the kernel reads ahead the whole file (random: filters) or
  // streams it (sequential: key files).
  enum class access { random, sequential };

  // Maps the first `size` bytes of the open file `fd` (which may be closed afterwards) read-only;
  // `name` names the file in errors. Throws errc::io_error when it cannot be mapped.
  mapped_file(int fd, std::uint64_t size, std::string name, access pattern = access::random);
  // Opens and maps the whole regular file at `path`.
  explicit mapped_file(const std::filesystem::path& path, access pattern = access::random);
  // Bytes already in memory, kept alive by `memory`, seen as a file that never changes (the
  // Redis module reads a value's image through the file loaders so, without a copy to a file).
  mapped_file(std::shared_ptr<const void> memory, std::span<const unsigned char> bytes,
              std::string name);
  mapped_file(const mapped_file&) = delete;
  mapped_file& operator=(const mapped_file&) = delete;
  ~mapped_file();

  const unsigned char* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  const std::string& name() const noexcept { return name_; }

  // Makes intact() also require the 8-byte word at `offset` (a multiple of 8 inside the file) to
  // hold `expected`: a word that any rewrite of the file changes, such as a header checksum, so
  // that a file overwritten in place (which may raise no fault at all) is noticed too. If it does
  // not hold `expected` now, the file has already changed. Call it before sharing the object.
  void watch(std::size_t offset, std::uint64_t expected);

  // False once a read of the mapping found the file shorter than it was (the handler gave it
  // all-ones), its last page cut, or the watched word changed. Cheap (three loads): call it after
  // reading, so that nothing read from a changed file is used without being checked.
  bool intact() const noexcept {
    detail::order_prior_reads();
    // One branch for the three (all are cheap loads of hot cache lines).
    return (static_cast<std::uint64_t>(faulted_->load(std::memory_order_relaxed)) |
            (__atomic_load_n(tail_, __ATOMIC_RELAXED) ^ tail_value_) |
            (__atomic_load_n(watched_, __ATOMIC_RELAXED) ^ watched_value_)) == 0;
  }
  // Throws errc::io_error "<name>: the file was truncated or overwritten while mapped (...)"
  // unless intact().
  void check() const {
    if (!intact()) [[unlikely]]
      fail();
  }

 private:
  void map(int fd, access pattern);
  [[noreturn]] void fail() const;

  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
  std::string name_;
  std::shared_ptr<const void> memory_;  // for bytes in memory, which nothing unmaps
  detail::mapping_slot* slot_ = nullptr;
  const std::atomic<bool>* faulted_ = nullptr;
  // The last non-zero word of the last page (or its last word, if all are 0): a cut inside the
  // last page zeroes it, a deeper one makes reading it fault.
  const std::uint64_t* tail_ = &tail_value_;
  std::uint64_t tail_value_ = 0;
  const std::uint64_t* watched_ = &watched_value_;
  std::uint64_t watched_value_ = 0;
};

}  // namespace bloomkit
