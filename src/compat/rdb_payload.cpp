// The frame and fields of a module value in a DUMP payload (rdb_payload.hpp).

#include "rdb_payload.hpp"

namespace bloomkit::redisbloom::rdb {

std::uint64_t payload_source::read_unsigned() {
  expect(opcode_uint, "an unsigned");
  return in_.length();
}

double payload_source::read_double() {
  expect(opcode_double, "a double");
  return in_.binary_double();
}

std::string_view payload_source::read_string() {
  expect(opcode_string, "a string");
  return in_.string();
}

void payload_source::expect(std::uint64_t opcode, const char* what) {
  const std::uint64_t got = in_.length();
  if (got != opcode) {
    in_.fail(std::string("module opcode ") + std::to_string(got) + " where " + what + " belongs");
  }
}

void payload_sink::write_unsigned(std::uint64_t v) {
  put_length(out_, opcode_uint);
  put_length(out_, v);
}

void payload_sink::write_double(double v) {
  put_length(out_, opcode_double);
  put_double(out_, v);
}

void payload_sink::write_string(std::string_view s) {
  put_length(out_, opcode_string);
  put_string(out_, s);
}

void begin_dump(std::vector<unsigned char>& out, std::string_view type_name, int encver) {
  out.push_back(type_module_2);
  put_length(out, module_id(type_name, encver));
}

void end_dump(std::vector<unsigned char>& out, std::uint16_t rdb_version) {
  put_length(out, opcode_eof);
  out.push_back(static_cast<unsigned char>(rdb_version & 0xff));
  out.push_back(static_cast<unsigned char>(rdb_version >> 8));
  const std::uint64_t crc = crc64_jones(0, out);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<unsigned char>(crc >> (8 * i)));
}

std::span<const unsigned char> dump_body(std::span<const unsigned char> payload,
                                         const std::string& name) {
  auto corrupt = [&](const std::string& what) {
    throw error(errc::corrupt_file, name + ": " + what);
  };
  if (payload.size() < 11) corrupt(std::to_string(payload.size()) + " bytes: too short");
  const std::size_t body = payload.size() - 10;
  std::uint64_t crc = 0;
  for (int i = 7; i >= 0; --i) crc = crc << 8 | payload[body + 2 + static_cast<std::size_t>(i)];
  if (crc64_jones(0, payload.first(body + 2)) != crc) corrupt("CRC-64 mismatch");
  const unsigned version = payload[body] | static_cast<unsigned>(payload[body + 1]) << 8;
  if (version > newest_version) {
    throw error(errc::unsupported, name + ": RDB version " + std::to_string(version) +
                                       " (newest known " + std::to_string(newest_version) + ")");
  }
  return payload.first(body);
}

module_type read_module_header(reader& in, const std::string& name) {
  const unsigned char type = in.byte();
  if (type != type_module_2) {
    throw error(errc::unsupported,
                name + ": RDB type " + std::to_string(type) + ", not a module value (7)");
  }
  return decode_module_id(in.length());
}

void end_of_value(reader& in) {
  if (in.length() != opcode_eof) in.fail("no module EOF after the value");
  if (in.remaining() != 0) in.fail(std::to_string(in.remaining()) + " bytes after the value");
}

}  // namespace bloomkit::redisbloom::rdb
