// The DUMP payload of a MBbloom-- value (redisbloom.hpp): what Redis's DUMP makes of RedisBloom's
// RDB fields, and RESTORE's checks of it, without a server.

#include <string>

#include "rdb_payload.hpp"
#include "redisbloom_slot.hpp"

namespace bloomkit::redisbloom {

namespace {

// Redis's module type name charset: 64 characters, 6 bits each.
constexpr std::string_view name_charset =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

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
  const bool native = c.bloomkit_hashing();
  rdb::begin_dump(out, value_type_of(c), native ? native_encoding_version : encoding_version);
  rdb::payload_sink sink(out);
  save_fields(c, sink);
  rdb::end_dump(out, rdb_version);
  return out;
}

chain read_dump(std::span<const unsigned char> payload, const std::string& source) {
  const std::string name = source + " (a DUMP payload)";
  rdb::reader in(rdb::dump_body(payload, name), name);
  const module_type t = rdb::read_module_header(in, name);
  if (t.name != type_name && t.name != native_type_name) {
    throw error(errc::unsupported, name + ": module type '" + t.name + "', not " +
                                       std::string(type_name) + " or " +
                                       std::string(native_type_name));
  }
  rdb::payload_source fields(in);
  chain c = [&] {
    try {
      return load_value(fields, t.name, t.encver);
    } catch (const error& e) {
      const std::string_view what = e.what();
      if (what.starts_with(name)) throw;  // the reader's, which names the source already
      throw error(e.code(), name + ": " + std::string(what));
    }
  }();
  rdb::end_of_value(in);
  return c;
}

}  // namespace bloomkit::redisbloom
