#pragma once
// A large output buffer over a stdio stream: per-line output of millions of keys costs one
// memcpy per line and one fwrite per buffer, not a stream operation per line.

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>

namespace bloomkit::cli {

// Flushes stdout. Throws bloomkit::error (io_error) "writing to stdout: <reason>" on failure (a
// full disk, a closed pipe with SIGPIPE ignored).
void flush_stdout();

class buffered_writer {
 public:
  explicit buffered_writer(std::FILE* stream = stdout, std::size_t capacity = std::size_t{1} << 20);
  // Writes what is buffered; errors are reported by flush(), never by the destructor.
  ~buffered_writer();
  buffered_writer(const buffered_writer&) = delete;
  buffered_writer& operator=(const buffered_writer&) = delete;

  void write(std::string_view bytes) {
    if (bytes.size() > capacity_ - size_) {
      spill(bytes);
      return;
    }
    std::memcpy(data_.get() + size_, bytes.data(), bytes.size());
    size_ += bytes.size();
  }
  void put(char c) {
    if (size_ == capacity_) drain();
    data_[size_++] = c;
  }
  // Writes the buffer and flushes the stream. Throws bloomkit::error (io_error) on failure.
  void flush();

 private:
  void drain();  // fwrite the buffer (throws on failure)
  void spill(std::string_view bytes);

  std::FILE* stream_;
  std::size_t capacity_;
  std::size_t size_ = 0;
  std::unique_ptr<char[]> data_;
};

}  // namespace bloomkit::cli
