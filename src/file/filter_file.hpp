#pragma once
// Internal: reading a filter file (docs/FORMAT.md, "Reading a file"): open it, decode and
// validate its header and size, then read or map its payload, checking the checksum and that the
// padding before the payload is zero. Kinds build their filters on top (kind_traits::load/map).

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "bloomkit/bit_array.hpp"
#include "bloomkit/file_header.hpp"
#include "bloomkit/hashing.hpp"
#include "bloomkit/mapped_file.hpp"
#include "file_error.hpp"

namespace bloomkit::detail {

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
  // A whole file's bytes in memory: `header` (the header and the padding up to the payload) and
  // the payload, the first `payload_bytes` bytes of `payload`'s words; `name` names it in errors.
  // Validated as a file on disk is; reading it copies from memory (or hands the words over:
  // take_payload), mapping it serves the payload in place.
  filter_file(std::string name, std::span<const unsigned char> header, bit_array payload,
              std::uint64_t payload_bytes);
  filter_file(const filter_file&) = delete;
  filter_file& operator=(const filter_file&) = delete;
  ~filter_file();

  const file_header& header() const noexcept { return header_; }
  const std::string& source() const noexcept { return source_; }
  // Throws errc::unsupported naming the file unless it holds a `kind` filter hashed by `scheme`.
  void require(filter_kind kind, hash_scheme scheme) const;
  // Reads the whole payload into `dest` (dest.size() == payload_length), verifies its checksum
  // and that the padding before it is zero.
  void read_payload(std::span<unsigned char> dest) const;
  // Maps the file read-only (SIGBUS-safe: mapped_file.hpp), watching its header checksum so that
  // a rewrite in place is noticed; with verify::full, verifies the payload checksum and padding.
  mapped_payload map_payload(verify check) const;
  // An in-memory file's payload as a bit array of `bits` bits, its checksum verified, handed
  // over without a copy when its words are exactly the payload (once: the file holds no payload
  // afterwards); none for a file on disk or another length, which read_payload reads.
  std::optional<bit_array> take_payload(std::uint64_t bits) const;

 private:
  // An in-memory file whose payload take_payload handed over is read no more.
  void require_payload_in_memory() const;

  std::string source_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
  file_header header_;
  // An in-memory file's payload (its fd_ is -1); take_payload empties it.
  mutable std::shared_ptr<bit_array> memory_;
  mutable std::span<const unsigned char> payload_;
};

// The bits past `bits` in the last word of a bit array of `length` bytes, which a writer keeps
// at 0.
file_check check_tail_bits(std::uint64_t bits, const unsigned char* words, std::uint64_t length);
// `length` bytes at `begin` are zero; the problem names `where` otherwise.
file_check check_zero(const unsigned char* begin, std::uint64_t length, const std::string& where);
// The bits of `length` bytes at `begin` past the first `used_bits` (a table's padding after its
// slots) are zero; the problem names `where` otherwise.
file_check check_padding_bits(const unsigned char* begin, std::uint64_t used_bits,
                              std::uint64_t length, const std::string& where);

}  // namespace bloomkit::detail
