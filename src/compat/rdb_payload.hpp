#pragma once
// A module value inside a DUMP payload (Redis's DUMP / RESTORE format): the opcode-tagged fields
// a module's rdb_save writes, and the payload's frame (type byte, module id, EOF, RDB version,
// CRC-64). Shared by every module type bloomkit reads and writes (RedisBloom's MBbloom--,
// MBbloomCF and bloomkit's bkbloom--).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bloomkit/compat/redisbloom.hpp"
#include "rdb_stream.hpp"

namespace bloomkit::redisbloom::rdb {

// Fields read from a payload: each read checks its module opcode.
class payload_source final : public field_source {
 public:
  explicit payload_source(reader& in) : in_(in) {}
  std::uint64_t read_unsigned() override;
  double read_double() override;
  std::string_view read_string() override;

 private:
  void expect(std::uint64_t opcode, const char* what);
  reader& in_;
};

// Fields written to a payload, each after its opcode (strings uncompressed).
class payload_sink final : public field_sink {
 public:
  explicit payload_sink(std::vector<unsigned char>& out) : out_(out) {}
  void write_unsigned(std::uint64_t v) override;
  void write_double(double v) override;
  void write_string(std::string_view s) override;

 private:
  std::vector<unsigned char>& out_;
};

// Writing: the type byte and module id, then (after the fields) EOF, version and CRC-64.
void begin_dump(std::vector<unsigned char>& out, std::string_view type_name, int encver);
void end_dump(std::vector<unsigned char>& out, std::uint16_t rdb_version);

// Reading: checks the payload's length, CRC-64 and RDB version (errc::corrupt_file /
// errc::unsupported naming `name`) and returns the bytes before the trailer.
std::span<const unsigned char> dump_body(std::span<const unsigned char> payload,
                                         const std::string& name);
// Reads the type byte (errc::unsupported unless a module value) and the module id.
module_type read_module_header(reader& in, const std::string& name);
// After the fields: the module EOF and nothing more.
void end_of_value(reader& in);

}  // namespace bloomkit::redisbloom::rdb
