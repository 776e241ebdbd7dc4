#include "bloomkit/compat/bits_and_blooms.hpp"

#include <cmath>
#include <string>

#include "../kinds/classic_kind.hpp"
#include "bloomkit/compat/murmur3.hpp"
#include "codec.hpp"
#include "suffixed_key.hpp"

namespace bloomkit {

template class basic_filter<bits_and_blooms::policy, bit_storage>;

namespace bits_and_blooms {
namespace {

using namespace compat::detail;  // the peer codecs' reader, writer and errors

constexpr const char* format = "bits-and-blooms WriteTo stream";
constexpr const char* json_format = "bits-and-blooms JSON";
constexpr std::size_t header_size = 24;  // m, k, bitset length

struct stream_header {
  std::uint64_t bits;
  std::uint32_t hashes;
  std::uint64_t words;  // of the bitset
};

stream_header read_header(byte_reader& in) {
  const std::uint64_t m = in.be64("m");
  const std::uint64_t k = in.be64("k");
  const std::uint64_t length = in.be64("the bitset length");
  if (k > max_hashes) {
    fail_file(errc::corrupt_file, in.source(),
              "k " + std::to_string(k) + " exceeds the maximum of " + std::to_string(max_hashes));
  }
  compat::detail::check_peer_params<policy>(m, static_cast<std::uint32_t>(k), in.source());
  const std::uint64_t words = length / 64 + (length % 64 != 0);
  if (words != bit_array::word_count_for(m)) {
    fail_file(errc::unsupported, in.source(),
              "the bitset holds " + std::to_string(length) + " bits in " + std::to_string(words) +
                  " words, but m = " + std::to_string(m) + " needs " +
                  std::to_string(bit_array::word_count_for(m)) +
                  " (a filter made by FromWithM over a longer slice is not supported)");
  }
  return {m, static_cast<std::uint32_t>(k), words};
}

filter decode(const stream_header& h, const unsigned char* words, const std::string& source) {
  return compat::detail::imported_filter<filter>(
      h.bits, h.hashes,
      compat::detail::words_from_be(words, static_cast<std::size_t>(h.words), h.bits, source),
      source);
}

// --- base64 (RFC 4648, padded) -----------------------------------------------------------

constexpr char url_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string base64_url(std::span<const unsigned char> in) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const std::uint32_t v = (in[i] << 16) | (in[i + 1] << 8) | in[i + 2];
    for (int s = 18; s >= 0; s -= 6) out.push_back(url_alphabet[(v >> s) & 63]);
  }
  const std::size_t rest = in.size() - i;
  if (rest > 0) {
    std::uint32_t v = in[i] << 16;
    if (rest == 2) v |= in[i + 1] << 8;
    out.push_back(url_alphabet[(v >> 18) & 63]);
    out.push_back(url_alphabet[(v >> 12) & 63]);
    out.push_back(rest == 2 ? url_alphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-' || c == '+') return 62;
  if (c == '_' || c == '/') return 63;
  return -1;
}

std::vector<unsigned char> base64_decode(std::string_view s, const std::string& source) {
  auto bad = [&](const std::string& why) {
    fail_file(errc::corrupt_file, source,
              std::string("invalid base64 in the \"b\" field of the ") + json_format + ": " + why);
  };
  if (s.size() % 4 != 0) bad("length " + std::to_string(s.size()) + " is not a multiple of 4");
  std::vector<unsigned char> out;
  out.reserve(s.size() / 4 * 3);
  for (std::size_t i = 0; i < s.size(); i += 4) {
    const bool last = i + 4 == s.size();
    const int pad = last ? (s[i + 3] == '=') + (s[i + 2] == '=' && s[i + 3] == '=') : 0;
    std::uint32_t v = 0;
    for (int j = 0; j < 4; ++j) {
      const char c = s[i + j];
      const int d = j >= 4 - pad ? 0 : base64_value(c);
      if (d < 0) bad("unexpected character at offset " + std::to_string(i + j));
      v = (v << 6) | static_cast<std::uint32_t>(d);
    }
    out.push_back(static_cast<unsigned char>(v >> 16));
    if (pad < 2) out.push_back(static_cast<unsigned char>(v >> 8));
    if (pad < 1) out.push_back(static_cast<unsigned char>(v));
  }
  return out;
}

// --- the JSON object {"m":M,"k":K,"b":"..."} -------------------------------------------------

class json_reader {
 public:
  json_reader(std::string_view text, const std::string& source) : s_(text), source_(source) {}

  [[noreturn]] void bad(const std::string& why) const {
    fail_file(errc::corrupt_file, source_,
              std::string("not a ") + json_format + " object: " + why + " at offset " +
                  std::to_string(pos_));
  }
  void skip_space() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool peek(char c) {
    skip_space();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  void expect(char c) {
    if (!peek(c)) bad(std::string("expected '") + c + "'");
    ++pos_;
  }
  // A string without escapes (none of the fields needs one).
  std::string_view string() {
    expect('"');
    const std::size_t start = pos_;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      if (s_[pos_] == '\\') bad("unexpected escape in a string");
      ++pos_;
    }
    if (pos_ == s_.size()) bad("unterminated string");
    return s_.substr(start, pos_++ - start);
  }
  std::uint64_t number(const char* field) {
    skip_space();
    const std::size_t start = pos_;
    std::uint64_t v = 0;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      const auto digit = static_cast<std::uint64_t>(s_[pos_] - '0');
      if (v > (UINT64_MAX - digit) / 10) bad(std::string("\"") + field + "\" is out of range");
      v = v * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) bad(std::string("\"") + field + "\" is not a non-negative integer");
    if (pos_ - start > 1 && s_[start] == '0') bad(std::string("\"") + field + "\" has a leading 0");
    return v;
  }
  void expect_end() {
    skip_space();
    if (pos_ != s_.size()) bad("unexpected text after the object");
  }

 private:
  std::string_view s_;
  std::size_t pos_ = 0;
  const std::string& source_;
};

}  // namespace

filter_params optimal_params(std::uint64_t n, double p) {
  validate_capacity(n);
  validate_fpp(p);
  const double ln2 = std::log(2.0);
  const double m = std::ceil(-1 * static_cast<double>(n) * std::log(p) / (ln2 * ln2));
  if (!(m <= static_cast<double>(max_bits))) {
    throw error(errc::too_large, "capacity " + std::to_string(n) + " at fpp " + exact_double(p) +
                                     " needs more than the maximum of " + std::to_string(max_bits) +
                                     " bits");
  }
  const auto bits = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(m));
  const double k = std::ceil(ln2 * static_cast<double>(bits) / static_cast<double>(n));
  if (k > max_hashes) {
    throw error(errc::too_large, "fpp " + exact_double(p) + " calls for " + exact_double(k) +
                                     " hashes, more than the maximum of " +
                                     std::to_string(max_hashes));
  }
  return {bits, std::max<std::uint32_t>(1, static_cast<std::uint32_t>(k))};
}

digest sum256(std::string_view key) noexcept {
  const digest128 a = compat::murmur3_x64_128(key);
  const digest128 b = compat::murmur3_x64_128(compat::detail::suffixed_key(key).with(1));
  return {a.low, a.high, b.low, b.high};
}

filter read(std::span<const unsigned char> bytes, const std::string& source) {
  return read_word_stream(bytes, source, format, read_header, decode);
}

filter read(std::istream& in, const std::string& source) {
  return read_word_stream(in, header_size, source, format, read_header, decode);
}

std::vector<unsigned char> write(const filter& f) {
  std::vector<unsigned char> out;
  const auto words = f.storage().words();
  out.reserve(header_size + words.size_bytes());
  compat::detail::put_be(out, f.bits(), 8);
  compat::detail::put_be(out, f.hashes(), 8);
  compat::detail::put_be(out, f.bits(), 8);  // the bitset's length: m, as New(m, k) makes it
  compat::detail::words_to_be(words, out);
  return out;
}

void write(const filter& f, std::ostream& out) {
  compat::detail::write_all(out, write(f), format);
}

filter read_json(std::string_view text, const std::string& source) {
  json_reader in(text, source);
  std::uint64_t m = 0;
  std::uint64_t k = 0;
  std::string_view b;
  bool seen[3] = {};
  in.expect('{');
  while (true) {
    const std::string_view key = in.string();
    in.expect(':');
    int field = key == "m" ? 0 : key == "k" ? 1 : key == "b" ? 2 : -1;
    if (field < 0) in.bad("unexpected field \"" + std::string(key) + "\"");
    if (seen[field]) in.bad("duplicate field \"" + std::string(key) + "\"");
    seen[field] = true;
    if (field == 0) m = in.number("m");
    if (field == 1) k = in.number("k");
    if (field == 2) b = in.string();
    if (in.peek(',')) {
      in.expect(',');
      continue;
    }
    in.expect('}');
    break;
  }
  in.expect_end();
  for (int i = 0; i < 3; ++i) {
    if (!seen[i]) in.bad(std::string("missing field \"") + "mkb"[i] + "\"");
  }
  const std::vector<unsigned char> bitset = base64_decode(b, source);
  // The bitset's WriteTo() bytes, behind the m and k of the object.
  std::vector<unsigned char> stream;
  stream.reserve(16 + bitset.size());
  compat::detail::put_be(stream, m, 8);
  compat::detail::put_be(stream, k, 8);
  stream.insert(stream.end(), bitset.begin(), bitset.end());
  byte_reader bytes(stream, source, json_format);
  const stream_header h = read_header(bytes);
  bytes.need(h.words * 8, std::to_string(h.words) + " words of the \"b\" bitset");
  byte_reader(std::span(stream).subspan(header_size + h.words * 8), source, json_format)
      .expect_end();
  return decode(h, stream.data() + header_size, source);
}

filter read_json(std::istream& in, const std::string& source) {
  const std::vector<unsigned char> bytes = compat::detail::read_all(in, source);
  return read_json(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                   source);
}

std::string write_json(const filter& f) {
  const std::vector<unsigned char> stream = write(f);
  // Go's json.Marshal of {M, K, B}: no spaces; B is the bitset's WriteTo() bytes (after m and k).
  return "{\"m\":" + std::to_string(f.bits()) + ",\"k\":" + std::to_string(f.hashes()) +
         ",\"b\":\"" + base64_url(std::span(stream).subspan(16)) + "\"}";
}

void write_json(const filter& f, std::ostream& out) {
  const std::string text = write_json(f);
  compat::detail::write_all(out, {reinterpret_cast<const unsigned char*>(text.data()), text.size()},
                            json_format);
}

}  // namespace bits_and_blooms

// bloomkit files of these filters: kind classic, the peer's scheme (src/kinds/classic_kind.hpp).
template struct kind_traits<bits_and_blooms::filter>;
template struct detail::file_io<bits_and_blooms::filter>;

}  // namespace bloomkit
