// RDB stream pieces for DUMP payloads (rdb_stream.hpp), CRC-64 Jones and the LZF decompressor.

#include "rdb_stream.hpp"

#include <array>
#include <bit>
#include <cstring>

#include "bloomkit/compat/redisbloom.hpp"

namespace bloomkit::redisbloom {

namespace {

// Reflected table of the Jones polynomial 0xad93d23594c935a9 (reflected: 0x95ac9329ac4bc9b5).
constexpr std::array<std::uint64_t, 256> crc_table = [] {
  std::array<std::uint64_t, 256> t{};
  for (std::uint64_t i = 0; i < 256; ++i) {
    std::uint64_t c = i;
    for (int j = 0; j < 8; ++j) c = (c & 1) != 0 ? (c >> 1) ^ 0x95ac9329ac4bc9b5ULL : c >> 1;
    t[i] = c;
  }
  return t;
}();

[[noreturn]] void bad_lzf(const std::string& what) {
  throw error(errc::corrupt_file, "LZF data: " + what);
}

}  // namespace

std::uint64_t crc64_jones(std::uint64_t crc, std::span<const unsigned char> bytes) noexcept {
  for (unsigned char b : bytes) crc = crc_table[(crc ^ b) & 0xff] ^ (crc >> 8);
  return crc;
}

std::vector<unsigned char> lzf_decompress(std::span<const unsigned char> in, std::size_t size) {
  std::vector<unsigned char> out;
  out.reserve(size);
  std::size_t i = 0;
  while (i < in.size()) {
    const unsigned ctrl = in[i++];
    if (ctrl < 32) {  // a literal run of ctrl + 1 bytes
      const std::size_t run = ctrl + 1;
      if (run > in.size() - i) bad_lzf("a literal run past the input's end");
      if (run > size - out.size()) bad_lzf("more than the " + std::to_string(size) + " bytes");
      out.insert(out.end(), in.begin() + static_cast<std::ptrdiff_t>(i),
                 in.begin() + static_cast<std::ptrdiff_t>(i + run));
      i += run;
      continue;
    }
    std::size_t len = ctrl >> 5;  // a back reference of len + 2 bytes
    if (len == 7) {
      if (i >= in.size()) bad_lzf("a back reference past the input's end");
      len += in[i++];
    }
    if (i >= in.size()) bad_lzf("a back reference past the input's end");
    const std::size_t distance = ((ctrl & 0x1f) << 8) + in[i++] + 1;
    if (distance > out.size()) bad_lzf("a back reference before the start");
    len += 2;
    if (len > size - out.size()) bad_lzf("more than the " + std::to_string(size) + " bytes");
    std::size_t from = out.size() - distance;
    for (std::size_t j = 0; j < len; ++j) out.push_back(out[from++]);  // may overlap itself
  }
  if (out.size() != size) {
    bad_lzf(std::to_string(out.size()) + " bytes where " + std::to_string(size) + " were declared");
  }
  return out;
}

namespace rdb {

void reader::fail(const std::string& what) const {
  throw error(errc::corrupt_file, source_ + ": " + what + " at byte " + std::to_string(at_));
}

std::span<const unsigned char> reader::take(std::size_t n) {
  if (n > remaining()) {
    fail("truncated: " + std::to_string(n) + " bytes needed, " + std::to_string(remaining()) +
         " left");
  }
  auto s = bytes_.subspan(at_, n);
  at_ += n;
  return s;
}

unsigned char reader::byte() {
  return take(1)[0];
}

std::uint64_t reader::length(bool& special) {
  special = false;
  const unsigned char first = byte();
  switch (first >> 6) {
    case 0:
      return first & 0x3f;
    case 1:
      return static_cast<std::uint64_t>(first & 0x3f) << 8 | byte();
    case 3:
      special = true;
      return first & 0x3f;
    default:
      break;
  }
  int n = 0;
  if (first == 0x80) n = 4;
  if (first == 0x81) n = 8;
  if (n == 0) fail("unknown length encoding " + std::to_string(first));
  std::uint64_t v = 0;
  for (unsigned char b : take(static_cast<std::size_t>(n))) v = v << 8 | b;  // big-endian
  return v;
}

std::uint64_t reader::length() {
  bool special = false;
  const std::uint64_t v = length(special);
  if (special) fail("a string encoding where a length belongs");
  return v;
}

std::string_view reader::string() {
  bool special = false;
  const std::uint64_t v = length(special);
  if (!special) {
    if (v > remaining()) fail("a string of " + std::to_string(v) + " bytes past the end");
    const auto s = take(static_cast<std::size_t>(v));
    return {reinterpret_cast<const char*>(s.data()), s.size()};
  }
  if (v <= 2) {  // an integer of 1, 2 or 4 little-endian bytes, as its decimal text
    const int n = 1 << v;
    std::uint64_t u = 0;
    const auto b = take(static_cast<std::size_t>(n));
    for (int i = n - 1; i >= 0; --i) u = u << 8 | b[static_cast<std::size_t>(i)];
    const std::int64_t value = n == 1   ? static_cast<std::int8_t>(u)
                               : n == 2 ? static_cast<std::int16_t>(u)
                                        : static_cast<std::int32_t>(u);
    const std::string text = std::to_string(value);
    scratch_.assign(text.begin(), text.end());
    return {reinterpret_cast<const char*>(scratch_.data()), scratch_.size()};
  }
  if (v != 3) fail("unknown string encoding " + std::to_string(v));
  const std::uint64_t packed = length();
  const std::uint64_t size = length();
  if (packed > remaining()) fail("LZF data of " + std::to_string(packed) + " bytes past the end");
  // LZF expands at most ~ 264 / 2 times per control pair; anything beyond is hostile.
  if (size > packed * 264 + 64) {
    fail("LZF data of " + std::to_string(packed) + " bytes declaring " + std::to_string(size));
  }
  const auto in = take(static_cast<std::size_t>(packed));
  try {
    scratch_ = lzf_decompress(in, static_cast<std::size_t>(size));
  } catch (const error& e) {
    fail(e.what());
  }
  return {reinterpret_cast<const char*>(scratch_.data()), scratch_.size()};
}

double reader::binary_double() {
  std::uint64_t u = 0;
  const auto b = take(8);
  for (int i = 7; i >= 0; --i) u = u << 8 | b[static_cast<std::size_t>(i)];
  return std::bit_cast<double>(u);
}

void put_length(std::vector<unsigned char>& out, std::uint64_t v) {
  if (v < (1u << 6)) {
    out.push_back(static_cast<unsigned char>(v));
  } else if (v < (1u << 14)) {
    out.push_back(static_cast<unsigned char>(0x40 | (v >> 8)));
    out.push_back(static_cast<unsigned char>(v));
  } else {
    const int n = v <= 0xffffffffULL ? 4 : 8;
    out.push_back(n == 4 ? 0x80 : 0x81);
    for (int i = n - 1; i >= 0; --i) out.push_back(static_cast<unsigned char>(v >> (8 * i)));
  }
}

void put_string(std::vector<unsigned char>& out, std::string_view s) {
  put_length(out, s.size());
  out.insert(out.end(), s.begin(), s.end());
}

void put_double(std::vector<unsigned char>& out, double v) {
  const auto u = std::bit_cast<std::uint64_t>(v);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<unsigned char>(u >> (8 * i)));
}

}  // namespace rdb
}  // namespace bloomkit::redisbloom
