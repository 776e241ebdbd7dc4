#include "input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include <fmt/core.h>

#include "bloomkit/error.hpp"
#include "cli_error.hpp"

namespace bloomkit::cli {

namespace {

[[noreturn]] void throw_io(std::string_view what, std::string_view name, int err) {
  throw error(errc::io_error, fmt::format("{} {}: {}", what, quoted_name(name), strerror(err)));
}

}  // namespace

std::uint64_t count_lines(std::string_view bytes) noexcept {
  std::uint64_t lines = 0;
  const char* p = bytes.data();
  const char* const end = p + bytes.size();
  while (p < end) {
    const auto* newline = static_cast<const char*>(std::memchr(p, '\n', end - p));
    if (!newline) break;
    ++lines;
    p = newline + 1;
  }
  if (!bytes.empty() && bytes.back() != '\n') ++lines;  // a last line without its '\n'
  return lines;
}

std::vector<input_file> open_inputs(std::vector<std::string> names) {
  if (names.empty()) names.push_back("-");
  std::vector<input_file> inputs;
  inputs.reserve(names.size());
  for (std::string& name : names) inputs.emplace_back(std::move(name));
  return inputs;
}

std::optional<std::uint64_t> total_size(const std::vector<input_file>& inputs) {
  std::uint64_t total = 0;
  for (const input_file& input : inputs) {
    if (!input.regular()) return std::nullopt;
    total += input.size();
  }
  return total;
}

input_file::input_file(std::string name) : name_(std::move(name)) {
  if (is_stdin()) {
    fd_ = STDIN_FILENO;
  } else {
    fd_ = ::open(name_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw_io("cannot open input", name_, errno);
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0) throw_io("cannot stat input", name_, errno);
  if (S_ISDIR(st.st_mode)) throw_io("cannot read input", name_, EISDIR);
  regular_ = S_ISREG(st.st_mode);
  if (regular_) {
    off_t offset = 0;
    if (is_stdin()) offset = std::max<off_t>(0, ::lseek(fd_, 0, SEEK_CUR));
    size_ = static_cast<std::uint64_t>(std::max<off_t>(0, st.st_size - offset));
  }
}

input_file::input_file(input_file&& other) noexcept
    : name_(std::move(other.name_)),
      fd_(std::exchange(other.fd_, -1)),
      regular_(other.regular_),
      size_(other.size_),
      map_(std::move(other.map_)) {}

input_file::~input_file() {
  map_.reset();
  if (fd_ >= 0 && fd_ != STDIN_FILENO) ::close(fd_);
}

std::string_view input_file::mapped() {
  if (!mappable()) {
    throw error(errc::io_error, fmt::format("input {} is not a regular file", quoted_name(name_)));
  }
  if (size_ == 0) return {};
  if (!map_) {
    try {
      map_ = std::make_unique<mapped_file>(fd_, size_, name_, mapped_file::access::sequential);
    } catch (const error&) {
      throw_io("cannot map input", name_, errno);
    }
  }
  return {reinterpret_cast<const char*>(map_->data()), map_->size()};
}

void input_file::check_unchanged() const {
  if (map_ && !map_->intact()) {
    throw error(errc::io_error,
                fmt::format("input {} was truncated or overwritten while it was being read (rotate "
                            "logs by renaming them, or read a copy)",
                            quoted_name(name_)));
  }
}

}  // namespace bloomkit::cli
