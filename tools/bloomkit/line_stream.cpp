#include "line_stream.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/core.h>

#include "bloomkit/error.hpp"
#include "cli_error.hpp"

namespace bloomkit::cli {

void line_buffer::reserve(std::size_t bytes) {
  if (bytes <= capacity_) return;
  bytes = std::max(bytes, 2 * capacity_);  // geometric: a long line grows in O(its length)
  auto grown = std::make_unique_for_overwrite<char[]>(bytes);
  if (size_ > 0) std::memcpy(grown.get(), data_.get(), size_);
  data_ = std::move(grown);
  capacity_ = bytes;
}

void line_buffer::append(std::string_view bytes) {
  reserve(size_ + bytes.size());
  if (!bytes.empty()) std::memcpy(data_.get() + size_, bytes.data(), bytes.size());
  size_ += bytes.size();
}

line_stream::line_stream(int fd, std::string name, std::size_t block_size, pacing pace)
    : fd_(fd),
      name_(std::move(name)),
      block_size_(std::max<std::size_t>(block_size, 4096)),
      pace_(pace) {
  // Bulk reads of a pipe: a pipe buffer as large as the system allows for an unprivileged
  // process (1 MiB by default) lets each read() take more, with fewer wake-ups of the writer.
  // Where it cannot grow (not a pipe, over the limit), nothing changes.
  if (pace_ == pacing::full_blocks) ::fcntl(fd_, F_SETPIPE_SZ, 1 << 20);
}

bool line_stream::next(line_buffer& block) {
  block.clear();
  block.append(carry_.lines());
  carry_.clear();
  constexpr std::size_t min_read = 64 * 1024;
  // memchr must not see the null data() of an empty block.
  bool has_line_end = block.size() != 0 && std::memchr(block.data(), '\n', block.size()) != nullptr;
  while (!eof_) {
    const std::size_t used = block.size();
    // Read straight into the block's free space; a line longer than the block grows it.
    block.reserve(std::max(block_size_, used + min_read));
    const std::size_t want = block.capacity() - used;
    const ssize_t got = ::read(fd_, block.data() + used, want);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw error(errc::io_error,
                  fmt::format("cannot read input {}: {}", quoted_name(name_), strerror(errno)));
    }
    if (got == 0) {
      eof_ = true;
      break;
    }
    block.resize(used + static_cast<std::size_t>(got));
    has_line_end = has_line_end || std::memchr(block.data() + used, '\n', got) != nullptr;
    // Hand out whole lines once the block is full, or (interactive) as soon as a short read
    // (data arriving slowly) brought a line end.
    const bool full = block.size() >= block_size_;
    const bool short_read = static_cast<std::size_t>(got) < want;
    if (has_line_end && (full || (pace_ == pacing::interactive && short_read))) break;
  }
  if (!eof_) {
    // Keep the partial line after the last '\n' for the next block.
    const auto* last = static_cast<const char*>(::memrchr(block.data(), '\n', block.size()));
    const std::size_t keep = static_cast<std::size_t>(last - block.data()) + 1;
    carry_.append(block.lines().substr(keep));
    block.resize(keep);
  }
  return !block.empty();
}

}  // namespace bloomkit::cli
