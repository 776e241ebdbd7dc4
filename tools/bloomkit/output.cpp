#include "output.hpp"

#include <cerrno>
#include <cstring>
#include <utility>

#include <fmt/core.h>

#include "bloomkit/error.hpp"

namespace bloomkit::cli {

namespace {

[[noreturn]] void throw_write_error(std::FILE* stream) {
  const int err = errno;
  const char* name = stream == stdout ? "stdout" : stream == stderr ? "stderr" : "output";
  throw error(errc::io_error, fmt::format("writing to {}: {}", name, std::strerror(err)));
}

}  // namespace

void flush_stdout() {
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) throw_write_error(stdout);
}

buffered_writer::buffered_writer(std::FILE* stream, std::size_t capacity)
    : stream_(stream), capacity_(capacity < 64 ? 64 : capacity), data_(new char[capacity_]) {}

buffered_writer::~buffered_writer() {
  if (size_ > 0) std::fwrite(data_.get(), 1, size_, stream_);
}

void buffered_writer::drain() {
  const std::size_t n = std::exchange(size_, 0);  // never written twice, even after a failure
  if (n > 0 && std::fwrite(data_.get(), 1, n, stream_) != n) throw_write_error(stream_);
}

void buffered_writer::spill(std::string_view bytes) {
  drain();
  if (bytes.size() >= capacity_) {
    if (std::fwrite(bytes.data(), 1, bytes.size(), stream_) != bytes.size()) {
      throw_write_error(stream_);
    }
    return;
  }
  std::memcpy(data_.get(), bytes.data(), bytes.size());
  size_ = bytes.size();
}

void buffered_writer::flush() {
  drain();
  if (std::fflush(stream_) != 0) throw_write_error(stream_);
}

}  // namespace bloomkit::cli
