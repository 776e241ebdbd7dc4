#pragma once
// The pieces of Redis's RDB serialization a DUMP payload of a module value uses (written from
// Redis's documented format: rdb.h / rdb.c facts): length encoding, strings (raw, integer-encoded
// and LZF-compressed), module opcodes, the payload trailer with its CRC-64.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace bloomkit::redisbloom::rdb {

inline constexpr unsigned char type_module_2 = 7;  // RDB_TYPE_MODULE_2
inline constexpr std::uint64_t opcode_eof = 0;     // RDB_MODULE_OPCODE_*
inline constexpr std::uint64_t opcode_uint = 2;
inline constexpr std::uint64_t opcode_double = 4;
inline constexpr std::uint64_t opcode_string = 5;
inline constexpr std::uint16_t newest_version = 12;  // Redis 7.4's RDB_VERSION

// Reads an RDB byte stream; every read throws errc::corrupt_file naming `source` and the
// offset when the input ends or is malformed.
class reader {
 public:
  reader(std::span<const unsigned char> bytes, std::string source)
      : bytes_(bytes), source_(std::move(source)) {}
  std::uint64_t length();  // a length (not the special string encodings)
  // A string: raw, integer-encoded (its decimal text) or LZF-compressed. Valid until the next.
  std::string_view string();
  double binary_double();
  unsigned char byte();
  std::size_t offset() const noexcept { return at_; }
  std::size_t remaining() const noexcept { return bytes_.size() - at_; }
  [[noreturn]] void fail(const std::string& what) const;

 private:
  // A length, or a special encoding's number with `special` set.
  std::uint64_t length(bool& special);
  std::span<const unsigned char> take(std::size_t n);

  std::span<const unsigned char> bytes_;
  std::string source_;
  std::size_t at_ = 0;
  std::vector<unsigned char> scratch_;
};

void put_length(std::vector<unsigned char>& out, std::uint64_t v);
void put_string(std::vector<unsigned char>& out, std::string_view s);  // raw, never compressed
void put_double(std::vector<unsigned char>& out, double v);

}  // namespace bloomkit::redisbloom::rdb
