#include "codec.hpp"

#include <algorithm>
#include <cstring>

namespace bloomkit::compat::detail {

void read_exactly(std::istream& in, std::vector<unsigned char>& out, std::uint64_t n,
                  const std::string& source, const std::string& what) {
  constexpr std::uint64_t chunk = std::uint64_t{1} << 20;
  for (std::uint64_t left = n; left > 0;) {
    const auto step = static_cast<std::size_t>(std::min(left, chunk));
    const std::size_t at = out.size();
    out.resize(at + step);
    in.read(reinterpret_cast<char*>(out.data() + at), static_cast<std::streamsize>(step));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got != step) {
      fail_file(errc::corrupt_file, source,
                "truncated: " + what + " needs " + std::to_string(n) +
                    " bytes, the stream ended after " + std::to_string(n - left + got));
    }
    left -= step;
  }
}

std::vector<unsigned char> read_all(std::istream& in, const std::string& source) {
  std::vector<unsigned char> out;
  char buffer[1 << 16];
  while (in) {
    in.read(buffer, sizeof buffer);
    out.insert(out.end(), buffer, buffer + in.gcount());
  }
  if (in.bad()) fail_file(errc::io_error, source, "cannot read");
  return out;
}

void write_all(std::ostream& out, std::span<const unsigned char> bytes, const char* format) {
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) throw error(errc::io_error, std::string("cannot write the ") + format);
}

bit_array words_from_be(const unsigned char* data, std::size_t words, std::uint64_t bits,
                        const std::string& source) {
  bit_array storage(bits);
  auto out = storage.mutable_words();
  for (std::size_t w = 0; w < words; ++w) {
    std::uint64_t v = 0;
    for (std::size_t b = 0; b < 8; ++b) v = (v << 8) | data[8 * w + b];
    if (w < out.size()) {
      out[w] = v;
    } else if (v != 0) {
      fail_file(errc::corrupt_file, source, "bits set past the filter's " + std::to_string(bits));
    }
  }
  if (bits % 64 != 0 && !out.empty() && (out.back() >> (bits % 64)) != 0) {
    fail_file(errc::corrupt_file, source,
              "bits set past the filter's " + std::to_string(bits) + " (in its last word)");
  }
  return storage;
}

void words_to_be(std::span<const std::uint64_t> words, std::vector<unsigned char>& out) {
  out.reserve(out.size() + words.size() * 8);
  for (std::uint64_t w : words) put_be(out, w, 8);
}

}  // namespace bloomkit::compat::detail
