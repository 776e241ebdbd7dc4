// Spark's writeTo() bytes (compat/spark.hpp): big-endian version, numHashFunctions, the V2 seed,
// numWords, then the words.

#include <string>
#include <type_traits>

#include "bloomkit/compat/spark.hpp"
#include "codec.hpp"

namespace bloomkit::spark {
namespace {

using namespace compat::detail;  // the peer codecs' reader, writer and errors

constexpr const char* format = "Spark BloomFilter";
constexpr std::size_t version_size = 4;

struct stream_header {
  version format_version = version::v1;
  std::uint32_t hashes = 0;
  std::int32_t seed = 0;
  std::uint64_t words = 0;
};

std::size_t header_size(version v) noexcept {
  return v == version::v1 ? 12 : 16;
}

version read_version(byte_reader& in) {
  const auto v = static_cast<std::int32_t>(in.be(4, "the version"));
  if (v != 1 && v != 2) {
    fail_file(
        errc::unsupported, in.source(),
        "Spark BloomFilter version " + std::to_string(v) + " is not known (1 is V1, 2 is V2)");
  }
  return static_cast<version>(v);
}

stream_header read_header(byte_reader& in) {
  stream_header h;
  h.format_version = read_version(in);
  const auto hashes = static_cast<std::int32_t>(in.be(4, "numHashFunctions"));
  if (h.format_version == version::v2) h.seed = static_cast<std::int32_t>(in.be(4, "the seed"));
  const auto words = static_cast<std::int32_t>(in.be(4, "numWords"));
  if (hashes <= 0) {
    fail_file(errc::corrupt_file, in.source(),
              "inconsistent " + std::string(format) + ": numHashFunctions " +
                  std::to_string(hashes) + " (Spark writes at least 1)");
  }
  if (words <= 0) {
    fail_file(errc::corrupt_file, in.source(),
              "inconsistent " + std::string(format) + ": numWords " + std::to_string(words) +
                  " (Spark writes at least 1)");
  }
  if (static_cast<std::uint32_t>(hashes) > max_hashes) {
    fail_file(errc::corrupt_file, in.source(),
              "numHashFunctions " + std::to_string(hashes) + " is past bloomkit's maximum of " +
                  std::to_string(max_hashes));
  }
  h.hashes = static_cast<std::uint32_t>(hashes);
  h.words = static_cast<std::uint64_t>(words);
  check_peer_params<v1_policy>(h.words * 64, h.hashes, in.source());
  return h;
}

any_filter decode(const stream_header& h, const unsigned char* words, const std::string& source) {
  const std::uint64_t bits = h.words * 64;
  bit_array storage = words_from_be(words, static_cast<std::size_t>(h.words), bits, source);
  if (h.format_version == version::v1) {
    return imported_filter<v1_filter>(bits, h.hashes, std::move(storage), source);
  }
  return v2_filter(
      imported_filter<v2_filter::classic_type>(bits, h.hashes, std::move(storage), source), h.seed);
}

template <class Filter>
std::vector<unsigned char> encode(const Filter& f) {
  // The filter's policy already holds it to Spark's limits (check_params).
  std::vector<unsigned char> out;
  const auto words = f.storage().words();
  const version v = version_of(f);
  out.reserve(header_size(v) + words.size_bytes());
  put_be(out, static_cast<std::uint32_t>(v), 4);
  put_be(out, f.hashes(), 4);
  if (v == version::v2) put_be(out, static_cast<std::uint32_t>(seed_of(f)), 4);
  put_be(out, words.size(), 4);
  words_to_be(words, out);
  return out;
}

}  // namespace

version version_of(const any_filter& f) noexcept {
  return std::visit([](const auto& x) { return version_of(x); }, f);
}

std::int32_t seed_of(const any_filter& f) noexcept {
  return std::visit([](const auto& x) { return seed_of(x); }, f);
}

std::uint64_t v1_bits_lost(std::uint64_t bits) noexcept {
  return bits > v1_reachable_bits ? bits - v1_reachable_bits : 0;
}

any_filter read(std::span<const unsigned char> bytes, const std::string& source) {
  return read_word_stream(bytes, source, format, read_header, decode);
}

any_filter read(std::istream& in, const std::string& source) {
  // The header's size depends on its version: read the version, then the rest of the header.
  std::vector<unsigned char> bytes;
  read_exactly(in, bytes, version_size, source, std::string("the version of the ") + format);
  byte_reader peek(bytes, source, format);
  const std::size_t size = header_size(read_version(peek));
  read_exactly(in, bytes, size - version_size, source, std::string("the header of the ") + format);
  byte_reader header(bytes, source, format);
  const stream_header h = read_header(header);
  read_exactly(in, bytes, h.words * 8, source, std::to_string(h.words) + " words");
  return decode(h, bytes.data() + size, source);
}

std::vector<unsigned char> write(const v1_filter& filter) {
  return encode(filter);
}
std::vector<unsigned char> write(const v2_filter& filter) {
  return encode(filter);
}
std::vector<unsigned char> write(const any_filter& filter) {
  return std::visit([](const auto& f) { return encode(f); }, filter);
}
void write(const v1_filter& filter, std::ostream& out) {
  write_all(out, encode(filter), format);
}
void write(const v2_filter& filter, std::ostream& out) {
  write_all(out, encode(filter), format);
}
void write(const any_filter& filter, std::ostream& out) {
  write_all(out, write(filter), format);
}

}  // namespace bloomkit::spark
