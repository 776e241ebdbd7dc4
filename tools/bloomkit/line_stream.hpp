#pragma once
// Reading an unmappable input (stdin, a pipe) as blocks of whole lines (the line rule:
// input.hpp), never more than about a block (plus one line) in memory at once.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace bloomkit::cli {

// A growable byte buffer whose new space is not zeroed (read() fills it): a block of lines.
class line_buffer {
 public:
  std::string_view lines() const noexcept { return {data_.get(), size_}; }
  char* data() noexcept { return data_.get(); }
  std::size_t size() const noexcept { return size_; }
  std::size_t capacity() const noexcept { return capacity_; }
  bool empty() const noexcept { return size_ == 0; }
  // Room for at least `bytes` bytes, keeping the contents.
  void reserve(std::size_t bytes);
  // Sets the size to `bytes` <= capacity(); bytes past the old size are whatever was written
  // there.
  void resize(std::size_t bytes) noexcept { size_ = bytes; }
  void clear() noexcept { size_ = 0; }
  void append(std::string_view bytes);

 private:
  std::unique_ptr<char[]> data_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

class line_stream {
 public:
  // How a block ends when data arrives slower than it is read.
  enum class pacing {
    // At the first read that brought a line end without filling the block: a key typed on a
    // terminal or fed slowly through a pipe is handled at once (query, add).
    interactive,
    // Only when the block is full (or the input ended): large blocks for bulk fills (build).
    full_blocks,
  };

  line_stream(int fd, std::string name, std::size_t block_size = std::size_t{1} << 20,
              pacing pace = pacing::interactive);

  // Replaces `block` with the next run of whole lines: about block_size bytes when data comes
  // fast (or always, with full_blocks), else whatever whole lines the reads brought (see
  // pacing). The input's last line may lack its '\n'. A line longer than a block grows it.
  // Returns false, with `block` empty, at the end of the input. Throws bloomkit::error
  // (io_error) naming the input.
  bool next(line_buffer& block);

 private:
  int fd_;
  std::string name_;
  std::size_t block_size_;
  pacing pace_;
  line_buffer carry_;  // a partial line read past the end of the previous block
  bool eof_ = false;
};

}  // namespace bloomkit::cli
