#pragma once
// Internal: what every filter kind's save / load / map shares (implemented in src/file.cpp).
// A kind adds: its header fields (a case in check_kind_fields, file.cpp), a writer that builds its
// file_header and payload parts, and readers on top of filter_file.

#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/mapped_file.hpp"

namespace bloomkit::detail {

inline constexpr std::uint64_t payload_alignment = 64;

// Throws bloomkit::error(code, "<source>: <problem>").
[[noreturn]] void fail_file(errc code, const std::string& source, const std::string& problem);
// Throws bloomkit::error(errc::io_error, "<source>: <action>: <strerror(errno)>").
[[noreturn]] void fail_errno(const std::string& source, const std::string& action);

// Writes the header and the payload (the parts back to back; the checksum covers all of them)
// with the one writer (file/atomic_file.hpp): a temp file beside `path`'s target, fsynced and
// renamed into place, under the lock on it. Sets payload_checksum and payload_length;
// header.payload_offset must already be set.
void write_filter_file(const std::filesystem::path& path, file_header header,
                       std::span<const std::span<const unsigned char>> parts);

// Kind-specific header checks; throws errc::corrupt_file / errc::unsupported naming `source`.
void check_classic_fields(const file_header& h, const std::string& source);
void check_counting_fields(const file_header& h, const std::string& source);
void check_scalable_fields(const file_header& h, const std::string& source);
void check_blocked_fields(const file_header& h, const std::string& source);

// A payload served from a read-only mapping of the whole file; `owner` keeps the mapping alive
// and, given to bit_array::view, makes lookups fail (not crash) when the file changes under it.
struct mapped_payload {
  const unsigned char* data = nullptr;
  std::shared_ptr<const mapped_file> owner;
};

// An open filter file whose header has been read, decoded and validated (and its size checked).
class filter_file {
 public:
  explicit filter_file(const std::filesystem::path& path);
  filter_file(const filter_file&) = delete;
  filter_file& operator=(const filter_file&) = delete;
  ~filter_file();

  const file_header& header() const noexcept { return header_; }
  const std::string& source() const noexcept { return source_; }
  // Throws errc::unsupported naming the file unless it holds a `kind` filter hashed by `scheme`.
  void require(filter_kind kind, hash_scheme scheme) const;
  // Reads the whole payload into `dest` (dest.size() == payload_length) and verifies its checksum.
  void read_payload(std::span<unsigned char> dest) const;
  // Maps the file read-only (SIGBUS-safe: mapped_file.hpp), watching its header checksum so that
  // a rewrite in place is noticed; with verify::full, verifies the payload checksum.
  mapped_payload map_payload(verify check) const;

 private:
  std::string source_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  file_header header_;
};

}  // namespace bloomkit::detail
