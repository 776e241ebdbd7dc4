#include "bloomkit/compat/guava.hpp"

#include <cmath>
#include <string>

#include "../kinds/classic_kind.hpp"
#include "codec.hpp"
#include "peer_sizing.hpp"

namespace bloomkit {

template class basic_filter<guava::mitz_32_policy, bit_storage>;
template class basic_filter<guava::mitz_64_policy, bit_storage>;

namespace guava {
namespace {

using namespace compat::detail;  // the peer codecs' reader, writer and errors

constexpr const char* format = "Guava BloomFilter stream";
constexpr std::size_t header_size = 6;  // ordinal, k, word count

struct stream_header {
  std::uint8_t ordinal;
  std::uint32_t hashes;
  std::uint64_t words;
};

stream_header read_header(byte_reader& in) {
  stream_header h{};
  h.ordinal = in.u8("the strategy ordinal");
  h.hashes = in.u8("the number of hash functions");
  const auto words = static_cast<std::int32_t>(in.be(4, "the word count"));
  if (h.ordinal > 1) {
    fail_file(errc::unsupported, in.source(),
              "Guava strategy ordinal " + std::to_string(h.ordinal) +
                  " is not known (0 is MURMUR128_MITZ_32, 1 is MURMUR128_MITZ_64)");
  }
  if (words <= 0) {
    fail_file(errc::corrupt_file, in.source(),
              "inconsistent " + std::string(format) + ": word count " + std::to_string(words) +
                  " (Guava writes at least 1)");
  }
  h.words = static_cast<std::uint64_t>(words);
  compat::detail::check_peer_params<mitz_64_policy>(h.words * 64, h.hashes, in.source());
  return h;
}

template <class Policy>
basic_bloom_filter<Policy> decode_as(const stream_header& h, const unsigned char* words,
                                     const std::string& source) {
  const std::uint64_t bits = h.words * 64;
  return compat::detail::imported_filter<basic_bloom_filter<Policy>>(
      bits, h.hashes,
      compat::detail::words_from_be(words, static_cast<std::size_t>(h.words), bits, source),
      source);
}

any_filter decode(const stream_header& h, const unsigned char* words, const std::string& source) {
  if (h.ordinal == 0) return decode_as<mitz_32_policy>(h, words, source);
  return decode_as<mitz_64_policy>(h, words, source);
}

template <class Policy>
std::vector<unsigned char> encode(const basic_bloom_filter<Policy>& f) {
  // The filter's policy already holds it to Guava's limits (check_params).
  std::vector<unsigned char> out;
  const auto words = f.storage().words();
  out.reserve(header_size + words.size_bytes());
  out.push_back(static_cast<unsigned char>(Policy::ordinal));
  out.push_back(static_cast<unsigned char>(f.hashes()));
  compat::detail::put_be(out, words.size(), 4);
  compat::detail::words_to_be(words, out);
  return out;
}

}  // namespace

filter_params optimal_params(std::uint64_t n, double p) {
  validate_fpp(p);
  if (n == 0) n = 1;  // as create() does
  // Java: (long) (-n * Math.log(p) / (Math.log(2) * Math.log(2))), truncated.
  const double raw = compat::detail::textbook_bits_before_truncation(n, p);
  if (!(raw < static_cast<double>(max_words * 64 + 1))) {
    throw error(errc::too_large, "capacity " + std::to_string(n) + " at fpp " + exact_double(p) +
                                     " needs more than Guava's maximum of " +
                                     std::to_string(max_words * 64) + " bits");
  }
  const auto bits = static_cast<std::uint64_t>(raw);
  if (bits == 0) {
    throw error(errc::invalid_argument, "capacity " + std::to_string(n) + " at fpp " +
                                            exact_double(p) +
                                            " sizes a Guava filter of 0 bits (Guava refuses it)");
  }
  // Java: Math.max(1, (int) Math.round((double) m / n * Math.log(2))), from the unrounded m.
  const double k = compat::detail::textbook_hashes_before_max(bits, n);
  if (k > max_hashes) {
    throw error(errc::too_large, "fpp " + exact_double(p) + " calls for " + exact_double(k) +
                                     " hashes, more than Guava's maximum of " +
                                     std::to_string(max_hashes));
  }
  const std::uint64_t words = (bits + 63) / 64;
  return {words * 64, std::max<std::uint32_t>(1, static_cast<std::uint32_t>(k))};
}

void check_params(std::uint64_t bits, std::uint32_t hashes) {
  if (bits % 64 != 0 || bits / 64 > max_words) {
    throw error(errc::invalid_argument,
                "a Guava filter has a whole number of 64-bit words, at most " +
                    std::to_string(max_words) + " (got " + std::to_string(bits) + " bits)");
  }
  if (hashes > max_hashes) {
    throw error(errc::invalid_argument, "a Guava filter has at most " + std::to_string(max_hashes) +
                                            " hashes (got " + std::to_string(hashes) + ")");
  }
}

any_filter read(std::span<const unsigned char> bytes, const std::string& source) {
  return read_word_stream(bytes, source, format, read_header, decode);
}

any_filter read(std::istream& in, const std::string& source) {
  return read_word_stream(in, header_size, source, format, read_header, decode);
}

std::vector<unsigned char> write(const mitz_32_filter& filter) {
  return encode(filter);
}
std::vector<unsigned char> write(const mitz_64_filter& filter) {
  return encode(filter);
}
void write(const mitz_32_filter& filter, std::ostream& out) {
  compat::detail::write_all(out, encode(filter), format);
}
void write(const mitz_64_filter& filter, std::ostream& out) {
  compat::detail::write_all(out, encode(filter), format);
}

}  // namespace guava
}  // namespace bloomkit

namespace bloomkit {

// bloomkit files of these filters: kind classic, the peer's scheme (src/kinds/classic_kind.hpp).
template struct kind_traits<guava::mitz_32_filter>;
template struct kind_traits<guava::mitz_64_filter>;
template struct detail::file_io<guava::mitz_32_filter>;
template struct detail::file_io<guava::mitz_64_filter>;

}  // namespace bloomkit
