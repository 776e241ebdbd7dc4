#pragma once
// Internal: what the interop codecs share: a bounds-checked big-endian reader and writer, reading
// a peer's stream, and building a filter from bits read off a peer's bytes.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <istream>
#include <span>
#include <string>
#include <vector>

#include "../core/exact_double.hpp"
#include "../file/file_error.hpp"
#include "../kinds/filter_impl.hpp"
#include "bloomkit/bit_array.hpp"
#include "bloomkit/detail/filter_access.hpp"
#include "bloomkit/error.hpp"
#include "bloomkit/sizing.hpp"

namespace bloomkit::compat::detail {

// Errors name their input as the file layer's do: "<source>: <problem>".
using bloomkit::detail::exact_double;
using bloomkit::detail::fail_file;

class byte_reader {
 public:
  byte_reader(std::span<const unsigned char> bytes, const std::string& source, const char* format)
      : bytes_(bytes), source_(source), format_(format) {}

  std::size_t remaining() const noexcept { return bytes_.size() - pos_; }
  std::size_t position() const noexcept { return pos_; }

  // Throws errc::corrupt_file "truncated" naming `what` unless n more bytes are there.
  void need(std::uint64_t n, const std::string& what) const {
    if (n > remaining()) {
      fail_file(errc::corrupt_file, source_,
                std::string("truncated ") + format_ + ": " + what + " needs " + std::to_string(n) +
                    " bytes at offset " + std::to_string(pos_) + ", " +
                    std::to_string(remaining()) + " left");
    }
  }
  std::uint64_t be(std::size_t size, const std::string& what) {
    need(size, what);
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < size; ++i) v = (v << 8) | bytes_[pos_ + i];
    pos_ += size;
    return v;
  }
  std::uint8_t u8(const std::string& what) { return static_cast<std::uint8_t>(be(1, what)); }
  std::uint64_t be64(const std::string& what) { return be(8, what); }
  // Throws errc::corrupt_file unless every byte was read.
  void expect_end() const {
    if (remaining() != 0) {
      fail_file(errc::corrupt_file, source_,
                std::to_string(remaining()) + " unexpected bytes after the " + format_);
    }
  }
  const std::string& source() const noexcept { return source_; }

 private:
  std::span<const unsigned char> bytes_;
  std::size_t pos_ = 0;
  const std::string& source_;
  const char* format_;
};

inline void put_be(std::vector<unsigned char>& out, std::uint64_t v, std::size_t size) {
  for (std::size_t i = size; i-- > 0;) out.push_back(static_cast<unsigned char>(v >> (8 * i)));
}

// Reads `n` bytes of a peer's stream, growing the buffer only as data arrives (a garbage size
// field never makes us allocate gigabytes up front). Throws errc::corrupt_file on a short read.
void read_exactly(std::istream& in, std::vector<unsigned char>& out, std::uint64_t n,
                  const std::string& source, const std::string& what);
// Reads everything left in the stream.
std::vector<unsigned char> read_all(std::istream& in, const std::string& source);
// Writes the bytes; throws errc::io_error when the stream fails.
void write_all(std::ostream& out, std::span<const unsigned char> bytes, const char* format);

// A peer's stream of a fixed-size header and then `header.words` 64-bit words, nothing after
// them (Guava's and bits-and-blooms' WriteTo). read_header(byte_reader&) parses the header;
// decode(header, words, source) builds the filter from the words' bytes.
template <class ReadHeader, class Decode>
auto read_word_stream(std::span<const unsigned char> bytes, const std::string& source,
                      const char* format, ReadHeader read_header, Decode decode) {
  byte_reader in(bytes, source, format);
  const auto h = read_header(in);
  in.need(h.words * 8, std::to_string(h.words) + " words");
  byte_reader(bytes.subspan(in.position() + h.words * 8), source, format).expect_end();
  return decode(h, bytes.data() + in.position(), source);
}
// The same from a stream, reading no byte past the words.
template <class ReadHeader, class Decode>
auto read_word_stream(std::istream& in, std::size_t header_size, const std::string& source,
                      const char* format, ReadHeader read_header, Decode decode) {
  std::vector<unsigned char> bytes;
  read_exactly(in, bytes, header_size, source, std::string("the ") + format);
  byte_reader header(bytes, source, format);
  const auto h = read_header(header);
  read_exactly(in, bytes, h.words * 8, source, std::to_string(h.words) + " words");
  return decode(h, bytes.data() + header_size, source);
}

// Storage for `bits` bits filled from `words` big-endian 64-bit words at `data` (the Java and Go
// layouts: bit i is bit i % 64 of word i / 64, words serialized most significant byte first).
// Throws errc::corrupt_file when a bit at a position >= bits is set.
bit_array words_from_be(const unsigned char* data, std::size_t words, std::uint64_t bits,
                        const std::string& source);
// The filter's words, big-endian, appended to `out`.
void words_to_be(std::span<const std::uint64_t> words, std::vector<unsigned char>& out);

// Checks (m, k) read from a peer's bytes against bloomkit's limits and the policy's own, before
// anything is allocated for them; errc::corrupt_file naming the source otherwise.
template <class Policy>
void check_peer_params(std::uint64_t bits, std::uint32_t hashes, const std::string& source) {
  bloomkit::detail::with_context(
      errc::corrupt_file, [&] { return source + ": "; },
      [&] {
        validate_params(bits, hashes);
        bloomkit::detail::check_policy_params<Policy>(bits, hashes);
      });
}

// A filter over bits read from a peer: its capacity and target FPP are what (m, k) imply (the
// peers' formats do not store n and p), its inserted count the estimate from the set bits.
// (m, k) outside bloomkit's or the policy's limits are errc::corrupt_file naming the source.
template <class Filter>
Filter imported_filter(std::uint64_t bits, std::uint32_t hashes, bit_array storage,
                       const std::string& source) {
  return bloomkit::detail::with_context(
      errc::corrupt_file, [&] { return source + ": "; },
      [&] {
        const std::uint64_t n = natural_capacity(bits, hashes);
        const std::uint64_t inserted = bloomkit::detail::count_from_estimate(
            estimate_count(bits, hashes, storage.count()), bits);
        return bloomkit::detail::filter_access::make<Filter>(
            {bits, hashes, n,
             bloomkit::detail::policy_fpp<typename Filter::policy_type>(bits, hashes, n)},
            std::move(storage), inserted);
      });
}

}  // namespace bloomkit::compat::detail
