#include "hash_spill.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "../../file/temp_file.hpp"
#include "bloomkit/error.hpp"

namespace bloomkit::detail {

namespace {

constexpr std::uint64_t hash_bytes = sizeof(std::uint64_t);

}  // namespace

hash_spill::hash_spill(std::filesystem::path dir, std::uint64_t byte_limit)
    : dir_(std::move(dir)), byte_limit_(byte_limit) {}

void hash_spill::fail(const std::string& action, int err) const {
  throw error(errc::io_error, "static build: cannot " + action +
                                  " key hashes (8 bytes per key) in a temporary file in '" +
                                  dir_.string() + "': " + std::strerror(err));
}

spill_segment hash_spill::append(std::span<const std::uint64_t> hashes) {
  {
    std::lock_guard lock(open_mutex_);
    if (!fd_) {
      try {
        fd_ = open_scratch_file(dir_, dir_.string());
      } catch (const error& e) {
        throw error(errc::io_error,
                    std::string("static build: cannot spill key hashes: ") + e.what());
      }
    }
  }
  const std::uint64_t bytes = hashes.size() * hash_bytes;
  const std::uint64_t offset = end_.fetch_add(bytes);
  const auto* data = reinterpret_cast<const char*>(hashes.data());
  std::uint64_t done = 0;
  while (done < bytes) {
    if (byte_limit_ != 0 && offset + done + 1 > byte_limit_) fail("write", ENOSPC);
    std::uint64_t chunk = std::min<std::uint64_t>(bytes - done, std::uint64_t{1} << 30);
    if (byte_limit_ != 0) chunk = std::min(chunk, byte_limit_ - (offset + done));
    const ssize_t n = ::pwrite(fd_.get(), data + done, chunk, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write", errno);
    }
    done += static_cast<std::uint64_t>(n);
  }
  written_.fetch_add(bytes);
  const std::uint64_t held = held_.fetch_add(bytes) + bytes;
  std::uint64_t peak = peak_.load();
  while (held > peak && !peak_.compare_exchange_weak(peak, held)) {
  }
  return {offset / hash_bytes, hashes.size()};
}

void hash_spill::read(const spill_segment& segment, std::span<std::uint64_t> out) const {
  auto* data = reinterpret_cast<char*>(out.data());
  const std::uint64_t bytes = segment.count * hash_bytes;
  const std::uint64_t offset = segment.offset * hash_bytes;
  std::uint64_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::pread(fd_.get(), data + done,
                              std::min<std::uint64_t>(bytes - done, std::uint64_t{1} << 30),
                              static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("read back", n < 0 ? errno : EIO);
    done += static_cast<std::uint64_t>(n);
  }
}

void hash_spill::release(const spill_segment& segment) noexcept {
  if (segment.count == 0) return;
  const std::uint64_t bytes = segment.count * hash_bytes;
  ::fallocate(fd_.get(), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
              static_cast<off_t>(segment.offset * hash_bytes), static_cast<off_t>(bytes));
  held_.fetch_sub(bytes);
}

}  // namespace bloomkit::detail
