#pragma once
// Filter files: save, load and map. The format is specified in docs/FORMAT.md: a 128-byte
// little-endian header (magic, version, kind, hash scheme, parameters, counts, XXH64 checksums
// of header and payload) followed by the payload at a 64-byte-aligned offset.
//
// save() writes a temp file in the target's directory, fsyncs it, renames it over the target and
// fsyncs the directory: a crash leaves either the old file or the new one, never half of one. It
// holds the lock on the target meanwhile, writes through symlinks, refuses a target that is not
// a regular file and keeps a replaced file's mode (file_writer.hpp, which also has
// lock_for_update() for load-change-save cycles that concurrent writers must not undo).
// load() copies the payload into owned memory; map() serves queries straight from the page cache.
// Every reader rejects a file with a bad magic, an unknown version, a truncated or oversized
// body, a checksum mismatch or inconsistent fields, with an error naming the file and problem.

#include <array>
#include <cstdint>
#include <filesystem>

#include "bloomkit/blocked_bloom_filter.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/counting_bloom_filter.hpp"
#include "bloomkit/file_writer.hpp"
#include "bloomkit/scalable_bloom_filter.hpp"

namespace bloomkit {

inline constexpr std::uint32_t file_format_version = 1;
inline constexpr std::size_t file_header_size = 128;

enum class filter_kind : std::uint32_t {
  classic = 1,
  blocked = 2,  // blocked_bloom_filter
  counting = 3,
  scalable = 4,
};

std::string_view to_string(filter_kind kind) noexcept;
bool is_known(filter_kind kind) noexcept;

// How the keys of a filter are encoded, recorded in the header's flags (docs/FORMAT.md) so that
// tools feed keys the way the filter's writer did. Bytes are always what is hashed.
enum class key_type : std::uint32_t {
  string = 0,  // keys are byte strings (text lines, UTF-8)
  int64 = 1,   // keys are signed 64-bit integers hashed as their 8 little-endian bytes
               // (Guava's Funnels.longFunnel())
};
// Header flag bit 0: the keys are key_type::int64. No other flag is defined.
inline constexpr std::uint32_t file_flag_int64_keys = 1;

// The decoded header of a filter file.
struct file_header {
  std::uint32_t format_version = file_format_version;
  filter_kind kind = filter_kind::classic;
  hash_scheme scheme = hash_scheme::xxh3_128;
  std::uint64_t bits = 0;
  std::uint32_t hashes = 0;
  std::uint32_t flags = 0;
  std::uint64_t capacity = 0;
  double target_fpp = 0;
  std::uint64_t inserted = 0;
  std::uint64_t payload_offset = 0;
  std::uint64_t payload_length = 0;
  std::uint64_t payload_checksum = 0;
  std::array<std::uint64_t, 4> kind_params{};  // reserved for kinds that need more parameters

  key_type keys() const noexcept {
    return (flags & file_flag_int64_keys) != 0 ? key_type::int64 : key_type::string;
  }
};

// How much of a file to check before trusting it.
enum class verify {
  header,  // header checksum and consistency only (constant time)
  full,    // also the payload checksum (reads the whole payload once)
};

// Every filter kind saves with save(filter, path) and loads with load<Filter>(path) or
// map<Filter>(path); Filter defaults to the classic bloom_filter. A file that holds another kind
// or hash scheme than Filter is rejected with errc::unsupported naming what it holds.
void save(const bloom_filter& filter, const std::filesystem::path& path);

template <class Filter = bloom_filter>
Filter load(const std::filesystem::path& path);
// A read-only filter over the mapped file. Lookups read the page cache directly; inserts throw
// errc::read_only. The mapping lives as long as the returned filter or any copy of it.
// Replace a mapped file by renaming a new one over it (mv; save() does so): the mapping keeps
// the old file. A file truncated or overwritten in place while mapped (cp over it) makes lookups
// throw errc::io_error naming it; it never kills the process with SIGBUS nor makes a lookup
// answer a wrong "absent" (mapped_file.hpp).
template <class Filter = bloom_filter>
Filter map(const std::filesystem::path& path, verify check = verify::full);

template <>
bloom_filter load<bloom_filter>(const std::filesystem::path& path);
template <>
bloom_filter map<bloom_filter>(const std::filesystem::path& path, verify check);

void save(const counting_bloom_filter& filter, const std::filesystem::path& path);
template <>
counting_bloom_filter load<counting_bloom_filter>(const std::filesystem::path& path);
template <>
counting_bloom_filter map<counting_bloom_filter>(const std::filesystem::path& path, verify check);

void save(const scalable_bloom_filter& filter, const std::filesystem::path& path);
template <>
scalable_bloom_filter load<scalable_bloom_filter>(const std::filesystem::path& path);
// Every sub-filter is served from the mapping, zero-copy.
template <>
scalable_bloom_filter map<scalable_bloom_filter>(const std::filesystem::path& path, verify check);
// A scalable chain of blocked sub-filters: scheme xxh3-64-split-block, each table entry records
// sub-filter kind 2 (docs/FORMAT.md).
void save(const scalable_blocked_bloom_filter& filter, const std::filesystem::path& path);
template <>
scalable_blocked_bloom_filter load<scalable_blocked_bloom_filter>(
    const std::filesystem::path& path);
template <>
scalable_blocked_bloom_filter map<scalable_blocked_bloom_filter>(const std::filesystem::path& path,
                                                                 verify check);

void save(const blocked_bloom_filter& filter, const std::filesystem::path& path);
template <>
blocked_bloom_filter load<blocked_bloom_filter>(const std::filesystem::path& path);
template <>
blocked_bloom_filter map<blocked_bloom_filter>(const std::filesystem::path& path, verify check);

// The header and bits of any valid filter file, whatever its hash scheme: for layouts that are
// not a bloom_filter, such as the local mirror of a sharded Redis filter (redis_sharded_xxh3,
// docs/REDIS.md). save_raw fills in the payload fields and checks the header like a loader.
struct raw_filter {
  file_header header;
  bit_array bits;
};
raw_filter load_raw(const std::filesystem::path& path);
void save_raw(const file_header& header, const bit_array& bits, const std::filesystem::path& path);

// Reads and validates the header (and the file's size) without reading the payload.
file_header read_header(const std::filesystem::path& path);

// Encoding and decoding of the 128-byte header, exposed for tests and tools.
std::array<unsigned char, file_header_size> encode_header(const file_header& header);
// Throws errc::corrupt_file / errc::unsupported naming `source` when the bytes are not a valid
// header.
file_header decode_header(std::span<const unsigned char> bytes, const std::string& source);

}  // namespace bloomkit
