#pragma once
// Commands that work on any filter file (query, info, add) open it as the filter type its header
// names: the classic filter with the native scheme or with an interop scheme (Guava,
// bits-and-blooms, go-zero; docs/INTEROP.md). Keys are fed as the file's key type says: text
// lines as they are, or, for files of 64-bit integer keys (Guava's longFunnel), each line parsed
// as a signed decimal and hashed as its 8 little-endian bytes.

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/compat/bits_and_blooms.hpp"
#include "bloomkit/compat/go_zero.hpp"
#include "bloomkit/compat/guava.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"

namespace bloomkit::cli {

// Calls fn(filter) with the file's filter, read by `open` (e.g. map<F> or load<F>), as the type
// its header names; returns what fn returns.
template <class Fn, class Open>
decltype(auto) with_filter(const std::string& path, const file_header& h, Open open, Fn&& fn) {
  if (h.kind != filter_kind::classic) {
    throw error(errc::unsupported, path + ": holds a " + std::string(to_string(h.kind)) +
                                       " filter, which this command does not handle");
  }
  switch (h.scheme) {
    case hash_scheme::guava_murmur128_mitz_32:
      return fn(open.template operator()<guava::mitz_32_filter>(path));
    case hash_scheme::guava_murmur128_mitz_64:
      return fn(open.template operator()<guava::mitz_64_filter>(path));
    case hash_scheme::bits_and_blooms_v3:
      return fn(open.template operator()<bits_and_blooms::filter>(path));
    case hash_scheme::go_zero:
      return fn(open.template operator()<go_zero::filter>(path));
    case hash_scheme::xxh3_128:
      break;
  }
  return fn(open.template operator()<bloom_filter>(path));
}

// Opens a filter file read-only (mapped, fully verified) as the type its header names.
template <class Fn>
decltype(auto) with_mapped_filter(const std::string& path, Fn&& fn) {
  return with_filter(
      path, read_header(path), []<class F>(const std::string& p) { return map<F>(p); }, fn);
}

// Turns key text into the bytes the filter hashes, per the file's key type. Throws
// bloomkit::error naming the key and the file for a line that is not a signed 64-bit decimal in
// a file of integer keys.
class key_encoder {
 public:
  key_encoder(key_type keys, std::string file) : keys_(keys), file_(std::move(file)) {}
  // The keys as the filter sees them; valid until the next call.
  std::span<const std::string_view> encode(std::span<const std::string_view> keys);

 private:
  key_type keys_;
  std::string file_;
  std::vector<std::array<char, 8>> bytes_;
  std::vector<std::string_view> views_;
};

// A signed 64-bit decimal as Java's Long.parseLong reads it ("-42", "+7", "007"; no spaces).
// Throws bloomkit::error (invalid_argument) naming `key` and `file`.
std::int64_t parse_int64_key(std::string_view key, const std::string& file);

}  // namespace bloomkit::cli
