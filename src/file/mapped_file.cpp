#include "bloomkit/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "bloomkit/error.hpp"
#include "mapping_registry.hpp"

namespace bloomkit {

namespace {

// The flag of an empty file, which maps nothing and cannot change under us.
constinit const std::atomic<bool> never_faulted{false};
// The flag of a file found shorter than `size` when it was mapped.
constinit const std::atomic<bool> shrank_before{true};

[[noreturn]] void fail_errno(const std::string& name, const char* action) {
  throw error(errc::io_error, name + ": " + action + ": " + std::strerror(errno));
}

}  // namespace

mapped_file::mapped_file(int fd, std::uint64_t size, std::string name, access pattern)
    : name_(std::move(name)) {
  if (size > std::numeric_limits<std::size_t>::max()) {
    throw error(errc::too_large, name_ + ": too large to map (" + std::to_string(size) + " bytes)");
  }
  size_ = static_cast<std::size_t>(size);
  map(fd, pattern);
}

mapped_file::mapped_file(const std::filesystem::path& path, access pattern) : name_(path.string()) {
  struct fd_closer {
    int fd;
    ~fd_closer() { ::close(fd); }
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail_errno(name_, "cannot open");
  const fd_closer closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail_errno(name_, "cannot stat");
  if (!S_ISREG(st.st_mode)) throw error(errc::io_error, name_ + ": not a regular file");
  size_ = static_cast<std::size_t>(st.st_size);
  map(fd, pattern);
}

mapped_file::mapped_file(std::shared_ptr<const void> memory, std::span<const unsigned char> bytes,
                         std::string name)
    : data_(bytes.data()),
      size_(bytes.size()),
      name_(std::move(name)),
      memory_(std::move(memory)),
      faulted_(&never_faulted) {}

void mapped_file::map(int fd, access pattern) {
  faulted_ = &never_faulted;
  if (size_ == 0) return;  // nothing to map (mmap refuses a length of 0)
  void* p = ::mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) fail_errno(name_, "cannot map");
  try {
    slot_ = &detail::register_mapping(p, size_);
  } catch (...) {
    ::munmap(p, size_);
    throw;
  }
  data_ = static_cast<const unsigned char*>(p);
  faulted_ = &detail::fault_flag(*slot_);
  // Huge pages where the file system's page cache has them (ext4 and XFS read large folios;
  // tmpfs follows shmem_enabled): a random probe then costs no TLB miss. Asked before the
  // read-ahead so that it reads in 2 MiB folios; refused or ignored elsewhere, which is harmless
  // (docs/PERFORMANCE.md, "Huge pages").
  ::madvise(p, size_, MADV_HUGEPAGE);
  ::madvise(p, size_, pattern == access::random ? MADV_WILLNEED : MADV_SEQUENTIAL);

  // The tail word: the last non-zero word of the last page, or its last word. Read after
  // registering: if the file is already shorter, the read faults and flags the mapping.
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t last_word = (size_ - 1) / 8;
  const std::size_t first_word = (size_ - 1) / page * page / 8;
  const auto* words = reinterpret_cast<const std::uint64_t*>(data_);
  std::size_t i = last_word;
  while (i > first_word && __atomic_load_n(words + i, __ATOMIC_RELAXED) == 0) --i;
  tail_ = words + i;
  tail_value_ = __atomic_load_n(tail_, __ATOMIC_RELAXED);
  watched_ = tail_;
  watched_value_ = tail_value_;
  // A file cut before the tail was read (after the caller took its size) may have given a tail
  // of zeros without a fault; its size tells. A cut after it changes the tail.
  struct stat st {};
  if (::fstat(fd, &st) == 0 && static_cast<std::uint64_t>(st.st_size) < size_) {
    faulted_ = &shrank_before;
  }
}

mapped_file::~mapped_file() {
  if (slot_ == nullptr) return;
  detail::unregister_mapping(*slot_);  // first: the addresses may be reused once unmapped
  ::munmap(const_cast<unsigned char*>(data_), size_);
}

void mapped_file::watch(std::size_t offset, std::uint64_t expected) {
  if (offset % 8 != 0 || size_ < 8 || offset > size_ - 8) {
    throw error(errc::invalid_argument, name_ + ": cannot watch offset " + std::to_string(offset) +
                                            " of a file of " + std::to_string(size_) + " bytes");
  }
  watched_ = reinterpret_cast<const std::uint64_t*>(data_ + offset);
  watched_value_ = expected;
}

void mapped_file::fail() const {
  throw error(errc::io_error,
              name_ +
                  ": the file was truncated or overwritten while mapped (replace a mapped file by "
                  "renaming a new file over it, as mv does; never cp over it)");
}

}  // namespace bloomkit
