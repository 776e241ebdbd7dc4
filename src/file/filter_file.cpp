#include "filter_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "bloomkit/file.hpp"
#include "header_codec.hpp"
#include "unique_fd.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace bloomkit {
namespace detail {
namespace {

void read_all(int fd, void* data, std::size_t size, std::uint64_t offset,
              const std::string& source) {
  auto* p = static_cast<unsigned char*>(data);
  while (size > 0) {
    const ssize_t n = ::pread(fd, p, std::min<std::size_t>(size, std::size_t{1} << 30),
                              static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_errno(source, "cannot read");
    }
    if (n == 0) fail_file(errc::corrupt_file, source, "truncated: unexpected end of file");
    p += n;
    size -= static_cast<std::size_t>(n);
    offset += static_cast<std::uint64_t>(n);
  }
}

file_check check_payload_checksum(const file_header& h, const unsigned char* payload) {
  if (XXH64(payload, h.payload_length, 0) != h.payload_checksum) {
    return file_problem{errc::corrupt_file,
                        "payload checksum mismatch (the filter's bits are corrupt)"};
  }
  return {};
}

constexpr const char* padding_name = "before the payload";

}  // namespace

file_check check_tail_bits(std::uint64_t bits, const unsigned char* words, std::uint64_t length) {
  if (bits % 64 == 0) return {};
  if (get_le<std::uint64_t>(words, length - 8) >> (bits % 64) != 0) {
    return file_problem{errc::corrupt_file,
                        "inconsistent payload: bits set past the filter's size"};
  }
  return {};
}

file_check check_zero(const unsigned char* begin, std::uint64_t length, const std::string& where) {
  if (std::any_of(begin, begin + length, [](unsigned char b) { return b != 0; })) {
    return file_problem{errc::corrupt_file, "inconsistent payload: padding " + where + " is not 0"};
  }
  return {};
}

file_check check_padding_bits(const unsigned char* begin, std::uint64_t used_bits,
                              std::uint64_t length, const std::string& where) {
  if (used_bits % 8 != 0 && (begin[used_bits / 8] >> (used_bits % 8)) != 0) {
    return file_problem{errc::corrupt_file, "non-zero padding " + where};
  }
  const std::uint64_t whole = (used_bits + 7) / 8;
  return check_zero(begin + whole, length - whole, where);
}

filter_file::filter_file(const std::filesystem::path& path) : source_(path.string()) {
  unique_fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) fail_errno(source_, "cannot open");
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail_errno(source_, "cannot stat");
  if (!S_ISREG(st.st_mode)) fail_file(errc::io_error, source_, "not a regular file");
  size_ = static_cast<std::uint64_t>(st.st_size);
  unsigned char bytes[file_header_size];
  const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(size_, sizeof bytes));
  read_all(fd.get(), bytes, n, 0, source_);
  header_ = decode_header({bytes, n}, source_);
  throw_if(check_file_size(header_, size_), source_);
  fd_ = fd.release();
}

filter_file::filter_file(std::string name, std::span<const unsigned char> header, bit_array payload,
                         std::uint64_t payload_bytes)
    : source_(std::move(name)),
      size_(header.size() + payload_bytes),
      header_(decode_header(header.first(std::min(header.size(), file_header_size)), source_)),
      memory_(std::make_shared<bit_array>(std::move(payload))) {
  if (payload_bytes > memory_->byte_size()) {
    throw error(errc::invalid_argument, source_ + ": payload of " + std::to_string(payload_bytes) +
                                            " bytes in " + std::to_string(memory_->byte_size()));
  }
  payload_ = {reinterpret_cast<const unsigned char*>(memory_->data()),
              static_cast<std::size_t>(payload_bytes)};
  throw_if(check_file_size(header_, size_), source_);
  if (header.size() != header_.payload_offset) {
    fail_file(inconsistent_header("payload offset " + std::to_string(header_.payload_offset) +
                                  " after " + std::to_string(header.size()) + " bytes of header"),
              source_);
  }
  throw_if(
      check_zero(header.data() + file_header_size, header.size() - file_header_size, padding_name),
      source_);
}

filter_file::~filter_file() {
  if (fd_ >= 0) ::close(fd_);
}

void filter_file::require(filter_kind kind, hash_scheme scheme) const {
  if (header_.kind != kind) {
    fail_file(errc::unsupported, source_,
              "holds a " + std::string(to_string(header_.kind)) + " filter, not a " +
                  std::string(to_string(kind)) + " one");
  }
  if (header_.scheme != scheme) {
    fail_file(errc::unsupported, source_,
              "uses hash scheme " + std::string(to_string(header_.scheme)) + ", not " +
                  std::string(to_string(scheme)));
  }
}

void filter_file::read_payload(std::span<unsigned char> dest) const {
  if (dest.size() != header_.payload_length) {
    fail_file(inconsistent_header("payload length"), source_);
  }
  if (fd_ < 0) {  // in memory: its padding was checked when it was made
    require_payload_in_memory();
    std::memcpy(dest.data(), payload_.data(), dest.size());
    throw_if(check_payload_checksum(header_, dest.data()), source_);
    return;
  }
  // Writers of version 1 leave no padding; a file with some is read in bounded pieces.
  std::vector<unsigned char> padding(
      std::min<std::uint64_t>(header_.payload_offset - file_header_size, 1 << 16));
  for (std::uint64_t at = file_header_size; at < header_.payload_offset; at += padding.size()) {
    const auto n = std::min<std::uint64_t>(padding.size(), header_.payload_offset - at);
    read_all(fd_, padding.data(), n, at, source_);
    throw_if(check_zero(padding.data(), n, padding_name), source_);
  }
  read_all(fd_, dest.data(), dest.size(), header_.payload_offset, source_);
  throw_if(check_payload_checksum(header_, dest.data()), source_);
}

mapped_payload filter_file::map_payload(verify check) const {
  if (fd_ < 0) {  // in memory
    require_payload_in_memory();
    if (check == verify::full) throw_if(check_payload_checksum(header_, payload_.data()), source_);
    return {payload_.data(), std::make_shared<const mapped_file>(memory_, payload_, source_)};
  }
  auto file = std::make_shared<mapped_file>(fd_, size_, source_);
  // A writer overwriting the file in place (cp) rewrites the header first, so the header
  // checksum, which covers the payload's checksum too, tells any other contents from these.
  const auto header = encode_header(header_);
  file->watch(header_checksum_offset, get_le<std::uint64_t>(header.data(), header_checksum_offset));
  const unsigned char* payload = file->data() + header_.payload_offset;
  if (check == verify::full) {
    file_check problem = check_zero(file->data() + file_header_size,
                                    header_.payload_offset - file_header_size, padding_name);
    if (!problem) problem = check_payload_checksum(header_, payload);
    if (problem) {
      file->check();  // a file that changed while it was read says so, rather than "corrupt"
      fail_file(*problem, source_);
    }
  }
  file->check();
  return {payload, std::move(file)};
}

void filter_file::require_payload_in_memory() const {
  if (memory_ == nullptr) {
    throw error(errc::invalid_argument,
                source_ + ": its payload was already handed over to the filter read from it");
  }
}

std::optional<bit_array> filter_file::take_payload(std::uint64_t bits) const {
  if (fd_ >= 0 || memory_ == nullptr || memory_.use_count() != 1 ||
      memory_->byte_size() != header_.payload_length ||
      bit_array::word_count_for(bits) * 8 != header_.payload_length) {
    return std::nullopt;
  }
  throw_if(check_payload_checksum(header_, payload_.data()), source_);
  bit_array words = std::move(*memory_);
  words.resize_within_words(bits);
  memory_.reset();
  payload_ = {};
  return words;
}

std::shared_ptr<const filter_file> open_filter_file(const std::filesystem::path& path) {
  return std::make_shared<const filter_file>(path);
}

std::shared_ptr<const filter_file> filter_file_in_memory(std::string name,
                                                         std::span<const unsigned char> header,
                                                         bit_array payload,
                                                         std::uint64_t payload_bytes) {
  return std::make_shared<const filter_file>(std::move(name), header, std::move(payload),
                                             payload_bytes);
}

const std::string& source_of(const filter_file& file) noexcept {
  return file.source();
}

const file_header& header_of(const filter_file& file) noexcept {
  return file.header();
}

}  // namespace detail

file_header read_header(const std::filesystem::path& path) {
  return detail::filter_file(path).header();
}

}  // namespace bloomkit
