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
// body, a checksum mismatch, non-zero padding or inconsistent fields, with an error naming the
// file and problem.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "bloomkit/bit_array.hpp"
#include "bloomkit/file_header.hpp"
#include "bloomkit/file_writer.hpp"
#include "bloomkit/kinds.hpp"

namespace bloomkit {

// How open_filter / open_any read the payload: into owned memory (as load) or mapped (as map).
enum class open_mode { load, map };

// A filter and the header of the file it was read from, both from one open of that file: a file
// replaced meanwhile cannot pair one file's key type with another's bits.
template <class Filter>
struct opened {
  Filter filter;
  file_header header;
};

namespace detail {
// save / load / map of one filter type, over its kind_traits (src/file/file_io.hpp); instantiated
// beside the traits' file codec for every filter type of a registry (kinds.hpp).
template <class Filter>
struct file_io {
  static void save(const Filter& filter, const std::filesystem::path& path, key_type keys);
  static Filter load(const std::filesystem::path& path);
  static Filter map(const std::filesystem::path& path, verify check);
  static opened<Filter> open(const std::filesystem::path& path, open_mode mode, verify check);
  // The filter of an open file whose header names Filter's kind and scheme.
  static Filter read(const filter_file& file, open_mode mode, verify check);
};

// Opens `path` and validates its header (filter_file.hpp), for the generic readers of
// any_filter.hpp; header_of reads the header of that one open.
std::shared_ptr<const filter_file> open_filter_file(const std::filesystem::path& path);
// The same from a whole file's bytes in memory (a Redis module value's image): `header` is the
// header and the padding up to the payload, the payload the first `payload_bytes` bytes of
// `payload`'s words (a filter read whole takes them over without a copy); `name` names it in
// errors.
std::shared_ptr<const filter_file> filter_file_in_memory(std::string name,
                                                         std::span<const unsigned char> header,
                                                         bit_array payload,
                                                         std::uint64_t payload_bytes);
const file_header& header_of(const filter_file& file) noexcept;
// The file's path, or the name of the bytes in memory.
const std::string& source_of(const filter_file& file) noexcept;
}  // namespace detail

// Every filter type of the registry (kinds.hpp: the native kinds; with bloomkit::compat, the
// peers' filters too) saves with save(filter, path) and loads with load<Filter>(path) or
// map<Filter>(path); Filter defaults to the classic bloom_filter. A file that holds another kind
// or hash scheme than Filter is rejected with errc::unsupported naming what it holds.
// `keys` records the key type in the file; only the peers' filters take key_type::int64
// (errc::unsupported for others).
template <file_kind Filter>
void save(const Filter& filter, const std::filesystem::path& path,
          key_type keys = key_type::string) {
  detail::file_io<Filter>::save(filter, path, keys);
}

template <file_kind Filter = bloom_filter>
Filter load(const std::filesystem::path& path) {
  return detail::file_io<Filter>::load(path);
}

// A read-only filter over the mapped file. Lookups read the page cache directly; inserts throw
// errc::read_only. The mapping lives as long as the returned filter or any copy of it.
// Replace a mapped file by renaming a new one over it (mv; save() does so): the mapping keeps
// the old file. A file truncated or overwritten in place while mapped (cp over it) makes lookups
// throw errc::io_error naming it; it never kills the process with SIGBUS nor makes a lookup
// answer a wrong "absent" (mapped_file.hpp). A scalable filter's sub-filters are all served from
// the mapping, zero-copy.
template <file_kind Filter = bloom_filter>
Filter map(const std::filesystem::path& path, verify check = verify::full) {
  return detail::file_io<Filter>::map(path, check);
}

// load<Filter> or map<Filter> (by `mode`) with the header of the same open of the file.
template <file_kind Filter = bloom_filter>
opened<Filter> open_filter(const std::filesystem::path& path, open_mode mode,
                           verify check = verify::full) {
  return detail::file_io<Filter>::open(path, mode, check);
}

// The header and cells of any valid classic or counting file, whatever its hash scheme: for
// layouts that are not a bloom_filter or counting_bloom_filter, such as the local mirror of a
// sharded Redis filter (redis_sharded_xxh3, docs/REDIS.md; bloomkit::redis checks its shard
// layout). save_raw fills in the payload fields and checks the header like a loader.
struct raw_filter {
  file_header header;
  bit_array bits;  // header.bits cells of 1 (classic) or 4 (counting) bits each
};
raw_filter load_raw(const std::filesystem::path& path);
void save_raw(const file_header& header, const bit_array& bits, const std::filesystem::path& path);

// Reads and validates the header (and the file's size) without reading the payload. To read the
// filter too, open_filter / open_any give both from one open.
file_header read_header(const std::filesystem::path& path);

}  // namespace bloomkit
