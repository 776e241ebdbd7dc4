#include "temp_file.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <utility>

#include "file_error.hpp"
#include "target.hpp"

namespace bloomkit::detail {

namespace {

std::atomic<bool> named_only{false};

// An unnamed file is linked through /proc/self/fd (linkat with AT_EMPTY_PATH needs a
// capability); without /proc, temp files get names from the start.
bool can_link_unnamed() {
  static const bool available = ::access("/proc/self/fd", X_OK) == 0;
  return available;
}

// ".bloomkit-tmp-" and 8 random letters and digits.
std::string random_temp_name() {
  static std::atomic<std::uint64_t> counter{0};
  std::uint64_t bits = 0;
  if (::getrandom(&bits, sizeof bits, GRND_NONBLOCK) != sizeof bits) {
    bits = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
           (static_cast<std::uint64_t>(::getpid()) << 32);
  }
  bits += counter.fetch_add(1, std::memory_order_relaxed) * 0x9e3779b97f4a7c15ull;
  static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string name = ".bloomkit-tmp-";
  for (int i = 0; i < 8; ++i) {
    name += alphabet[bits % 36];
    bits /= 36;
  }
  return name;
}

// Tries fresh names while `make(name)` fails with EEXIST; returns the name it succeeded with.
template <class Make>
std::string with_fresh_name(Make make, const std::string& source, const std::string& action) {
  for (int attempt = 0;; ++attempt) {
    std::string name = random_temp_name();
    if (make(name)) return name;
    if (errno != EEXIST || attempt == 100) fail_errno(source, action);
  }
}

}  // namespace

unique_fd open_scratch_file(const std::filesystem::path& dir, const std::string& source) {
  unique_fd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir_fd) fail_errno(source, "cannot open the directory");
  if (!named_only.load()) {
    unique_fd fd(::openat(dir_fd.get(), ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
    if (fd) return fd;
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
      fail_errno(source, "cannot create a temporary file");
    }
  }
  const signal_block block;  // created and removed as one step for a signal
  unique_fd fd;
  const std::string name = with_fresh_name(
      [&](const std::string& n) {
        fd.reset(::openat(dir_fd.get(), n.c_str(),
                          O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
        return static_cast<bool>(fd);
      },
      source, "cannot create a temporary file");
  if (::unlinkat(dir_fd.get(), name.c_str(), 0) != 0)
    fail_errno(source, "cannot remove a temporary file");
  return fd;
}

void use_named_temp_files(bool named) noexcept {
  named_only.store(named);
}

temp_file::temp_file(int dir_fd, const std::filesystem::path& target, std::string source)
    : dir_fd_(dir_fd), target_name_(target.filename().string()), source_(std::move(source)) {
  struct stat old {};
  const bool replacing = ::fstatat(dir_fd_, target_name_.c_str(), &old, AT_SYMLINK_NOFOLLOW) == 0;
  if (!replacing && errno != ENOENT) fail_errno(source_, "cannot stat");
  if (replacing) require_regular_file(old, target, source_);

  if (!named_only.load() && can_link_unnamed()) {
    // The mode is 0666 & ~umask, as for open(O_CREAT).
    fd_.reset(::openat(dir_fd_, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0666));
    if (!fd_ && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
      fail_errno(source_, "cannot create a temporary file in its directory");
    }
  }
  if (!fd_) create_named();

  if (replacing) {
    if (old.st_uid != ::geteuid() || old.st_gid != ::getegid()) {
      // Where the process may not give the file away, it may still set the group.
      if (::fchown(fd_.get(), old.st_uid, old.st_gid) != 0) {
        (void)::fchown(fd_.get(), static_cast<uid_t>(-1), old.st_gid);
      }
    }
    if (::fchmod(fd_.get(), old.st_mode & 07777) != 0) fail_errno(source_, "cannot set the mode");
  }
}

void temp_file::create_named() {
  const signal_block block;  // created and registered as one step
  unique_fd fd;
  name_ = with_fresh_name(
      [&](const std::string& name) {
        fd.reset(::openat(dir_fd_, name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                          0666));
        return static_cast<bool>(fd);
      },
      source_, "cannot create a temporary file in its directory");
  cleanup_ = std::make_unique<signal_cleanup>(dir_fd_, name_);
  fd_ = std::move(fd);
}

temp_file::temp_file(temp_file&& other) noexcept
    : dir_fd_(other.dir_fd_),
      target_name_(std::move(other.target_name_)),
      source_(std::move(other.source_)),
      fd_(std::move(other.fd_)),
      name_(std::exchange(other.name_, {})),
      cleanup_(std::move(other.cleanup_)) {}

temp_file::~temp_file() {
  discard_name();
}

void temp_file::discard_name() noexcept {
  if (name_.empty()) return;
  const signal_block block;
  cleanup_.reset();
  ::unlinkat(dir_fd_, name_.c_str(), 0);
  name_.clear();
}

void temp_file::write(std::span<const unsigned char> bytes) {
  while (!bytes.empty()) {
    const ssize_t n =
        ::write(fd_.get(), bytes.data(), std::min<std::size_t>(bytes.size(), std::size_t{1} << 30));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_errno(source_, "cannot write");
    }
    bytes = bytes.subspan(static_cast<std::size_t>(n));
  }
}

void temp_file::sync() {
  if (::fsync(fd_.get()) != 0) fail_errno(source_, "cannot fsync");
}

void temp_file::replace_target() {
  {
    const signal_block block;  // named, renamed and unregistered as one step
    if (name_.empty()) {
      const std::string proc_path = "/proc/self/fd/" + std::to_string(fd_.get());
      name_ = with_fresh_name(
          [&](const std::string& name) {
            return ::linkat(AT_FDCWD, proc_path.c_str(), dir_fd_, name.c_str(),
                            AT_SYMLINK_FOLLOW) == 0;
          },
          source_, "cannot link the temporary file into its directory");
      cleanup_ = std::make_unique<signal_cleanup>(dir_fd_, name_);
    }
    if (::renameat(dir_fd_, name_.c_str(), dir_fd_, target_name_.c_str()) != 0) {
      const int rename_errno = errno;
      discard_name();
      errno = rename_errno;
      fail_errno(source_, "cannot rename into place");
    }
    cleanup_.reset();
    name_.clear();
  }
  fd_.reset();
  // Persist the rename itself. The file is in place whatever this says: not an error.
  ::fsync(dir_fd_);
}

}  // namespace bloomkit::detail
