// The DUMP payload of a MBbloom-- value (redisbloom.hpp): what Redis's DUMP makes of RedisBloom's
// RDB fields, and RESTORE's checks of it, without a server.

#include <string>

#include "rdb_stream.hpp"
#include "redisbloom_slot.hpp"

namespace bloomkit::redisbloom {

namespace {

// Redis's module type name charset: 64 characters, 6 bits each.
constexpr std::string_view name_charset =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// The module opcodes around RedisBloom's fields.
class payload_source final : public field_source {
 public:
  explicit payload_source(rdb::reader& in) : in_(in) {}
  std::uint64_t read_unsigned() override {
    expect(rdb::opcode_uint, "an unsigned");
    return in_.length();
  }
  double read_double() override {
    expect(rdb::opcode_double, "a double");
    return in_.binary_double();
  }
  std::string_view read_string() override {
    expect(rdb::opcode_string, "a string");
    return in_.string();
  }

 private:
  void expect(std::uint64_t opcode, const char* what) {
    const std::uint64_t got = in_.length();
    if (got != opcode) {
      in_.fail(std::string("module opcode ") + std::to_string(got) + " where " + what + " belongs");
    }
  }
  rdb::reader& in_;
};

class payload_sink final : public field_sink {
 public:
  explicit payload_sink(std::vector<unsigned char>& out) : out_(out) {}
  void write_unsigned(std::uint64_t v) override {
    rdb::put_length(out_, rdb::opcode_uint);
    rdb::put_length(out_, v);
  }
  void write_double(double v) override {
    rdb::put_length(out_, rdb::opcode_double);
    rdb::put_double(out_, v);
  }
  void write_string(std::string_view s) override {
    rdb::put_length(out_, rdb::opcode_string);
    rdb::put_string(out_, s);
  }

 private:
  std::vector<unsigned char>& out_;
};

}  // namespace

std::uint64_t module_id(std::string_view name, int encver) {
  if (name.size() != 9) {
    throw error(errc::invalid_argument,
                "module type name '" + std::string(name) + "': 9 characters are needed");
  }
  if (encver < 0 || encver > 1023) {
    throw error(errc::invalid_argument, "module encoding version " + std::to_string(encver));
  }
  std::uint64_t id = 0;
  for (char ch : name) {
    const auto at = name_charset.find(ch);
    if (at == std::string_view::npos) {
      throw error(errc::invalid_argument, "module type name '" + std::string(name) +
                                              "': a character outside A-Z a-z 0-9 - _");
    }
    id = id << 6 | at;
  }
  return id << 10 | static_cast<std::uint64_t>(encver);
}

module_type decode_module_id(std::uint64_t id) {
  module_type t;
  t.encver = static_cast<int>(id & 1023);
  t.name.resize(9);
  std::uint64_t rest = id >> 10;
  for (std::size_t i = 9; i-- > 0;) {
    t.name[i] = name_charset[rest & 63];
    rest >>= 6;
  }
  return t;
}

std::vector<unsigned char> write_dump(const chain& c, std::uint16_t rdb_version) {
  std::vector<unsigned char> out;
  out.reserve(static_cast<std::size_t>(c.bit_bytes()) + 64 + 48 * c.filters());
  out.push_back(rdb::type_module_2);
  const bool native = c.bloomkit_hashing();
  rdb::put_length(out,
                  module_id(value_type_of(c), native ? native_encoding_version : encoding_version));
  payload_sink sink(out);
  save_fields(c, sink);
  rdb::put_length(out, rdb::opcode_eof);
  out.push_back(static_cast<unsigned char>(rdb_version & 0xff));
  out.push_back(static_cast<unsigned char>(rdb_version >> 8));
  const std::uint64_t crc = crc64_jones(0, out);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<unsigned char>(crc >> (8 * i)));
  return out;
}

chain read_dump(std::span<const unsigned char> payload, const std::string& source) {
  const std::string name = source + " (a DUMP payload)";
  auto corrupt = [&](const std::string& what) {
    throw error(errc::corrupt_file, name + ": " + what);
  };
  if (payload.size() < 11) corrupt(std::to_string(payload.size()) + " bytes: too short");
  const std::size_t body = payload.size() - 10;
  std::uint64_t crc = 0;
  for (int i = 7; i >= 0; --i) crc = crc << 8 | payload[body + 2 + static_cast<std::size_t>(i)];
  if (crc64_jones(0, payload.first(body + 2)) != crc) corrupt("CRC-64 mismatch");
  const unsigned version = payload[body] | static_cast<unsigned>(payload[body + 1]) << 8;
  if (version > rdb::newest_version) {
    throw error(errc::unsupported, name + ": RDB version " + std::to_string(version) +
                                       " (newest known " + std::to_string(rdb::newest_version) +
                                       ")");
  }
  rdb::reader in(payload.first(body), name);
  const unsigned char type = in.byte();
  if (type != rdb::type_module_2) {
    throw error(errc::unsupported,
                name + ": RDB type " + std::to_string(type) + ", not a module value (7)");
  }
  const module_type t = decode_module_id(in.length());
  if (t.name != type_name && t.name != native_type_name) {
    throw error(errc::unsupported, name + ": module type '" + t.name + "', not " +
                                       std::string(type_name) + " or " +
                                       std::string(native_type_name));
  }
  payload_source fields(in);
  chain c = [&] {
    try {
      return load_value(fields, t.name, t.encver);
    } catch (const error& e) {
      const std::string_view what = e.what();
      if (what.starts_with(name)) throw;  // the reader's, which names the source already
      throw error(e.code(), name + ": " + std::string(what));
    }
  }();
  if (in.length() != rdb::opcode_eof) in.fail("no module EOF after the value");
  if (in.remaining() != 0) in.fail(std::to_string(in.remaining()) + " bytes after the value");
  return c;
}

}  // namespace bloomkit::redisbloom
