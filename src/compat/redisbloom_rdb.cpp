// The RDB value of type MBbloom-- (redisbloom.hpp): RedisBloom's BFRdbSave field sequence, and
// its BFRdbLoad for every encoding version it still loads, with every field checked.

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "redisbloom_slot.hpp"

namespace bloomkit::redisbloom {

namespace {

[[noreturn]] void rdb_corrupt(const std::string& what) {
  throw error(errc::corrupt_file, "RedisBloom RDB value: " + what);
}

std::uint32_t narrow32(std::uint64_t v, const char* field) {
  if (v > std::numeric_limits<std::uint32_t>::max()) {
    rdb_corrupt(std::string(field) + " " + std::to_string(v) + " does not fit 32 bits");
  }
  return static_cast<std::uint32_t>(v);
}

// Version 0 kept no bit count: RedisBloom takes (uint64) (entries * bpe).
std::uint64_t legacy_bits(std::uint64_t entries, double bpe, std::size_t link) {
  const double bits = static_cast<double>(entries) * bpe;
  if (!(bits >= 1) || bits >= static_cast<double>(max_bits)) {
    rdb_corrupt("link " + std::to_string(link) + ": entries " + std::to_string(entries) +
                " at bpe " + std::to_string(bpe) + " give no usable bit count");
  }
  return static_cast<std::uint64_t>(bits);
}

}  // namespace

void save_fields(const chain& c, field_sink& out) {
  out.write_unsigned(c.items());
  out.write_unsigned(c.filters());
  out.write_unsigned(c.options());
  out.write_unsigned(c.growth());
  for (std::size_t i = 0; i < c.filters(); ++i) {
    const link_fields f = c.link(i);
    out.write_unsigned(f.entries);
    out.write_double(f.error);
    out.write_unsigned(f.hashes);
    out.write_double(f.bpe);
    out.write_unsigned(f.bits);
    out.write_unsigned(f.n2);
    const auto bits = c.link_bits(i);
    out.write_string({reinterpret_cast<const char*>(bits.data()), bits.size()});
    out.write_unsigned(f.size);
  }
}

chain load_fields(field_source& in, int encver) {
  if (encver < 0 || encver > encoding_version) {
    throw error(errc::unsupported, "RedisBloom RDB value: encoding version " +
                                       std::to_string(encver) + " (this build loads 0 to " +
                                       std::to_string(encoding_version) + ")");
  }
  const std::uint64_t size = in.read_unsigned();
  const std::uint64_t nfilters = in.read_unsigned();
  const std::uint32_t options = encver >= 2 ? narrow32(in.read_unsigned(), "options") : 0;
  const std::uint32_t growth = encver >= 4 ? narrow32(in.read_unsigned(), "growth") : 2;
  if (nfilters == 0) rdb_corrupt("no links");
  if (nfilters >= max_links) {
    rdb_corrupt(std::to_string(nfilters) + " links (RedisBloom loads fewer than " +
                std::to_string(max_links) + ")");
  }
  if ((options & ~known_options) != 0) rdb_corrupt("unknown options " + std::to_string(options));
  chain c = chain_access::empty(size, options, growth);
  for (std::size_t i = 0; i < nfilters; ++i) {
    link_fields f;
    f.entries = in.read_unsigned();
    f.error = in.read_double();
    const std::uint64_t hashes = in.read_unsigned();
    if (hashes > max_hashes) {
      rdb_corrupt("link " + std::to_string(i) + ": " + std::to_string(hashes) + " hashes");
    }
    f.hashes = static_cast<std::uint32_t>(hashes);
    f.bpe = in.read_double();
    if (encver == 0) {
      f.bits = legacy_bits(f.entries, f.bpe, i);
    } else {
      f.bits = in.read_unsigned();
      const std::uint64_t n2 = in.read_unsigned();
      if (n2 > 63) rdb_corrupt("link " + std::to_string(i) + ": n2 " + std::to_string(n2));
      f.n2 = static_cast<std::uint8_t>(n2);
    }
    const std::string_view bits = in.read_string();
    f.bytes = bits.size();
    // The fields so far decide the allocation; it is no larger than the string just read.
    chain_access::append(c, f);
    std::memcpy(chain_access::slot(c, i).data(), bits.data(), bits.size());
    chain_access::slot(c, i).size = in.read_unsigned();
  }
  return c;
}

std::string_view value_type_of(const chain& c) noexcept {
  return c.bloomkit_hashing() ? native_type_name : type_name;
}

chain load_value(field_source& in, std::string_view type, int encver) {
  const bool native = type == native_type_name;
  if (!native && type != type_name) {
    throw error(errc::unsupported, "module type '" + std::string(type) + "' is not a chain's");
  }
  if (native && encver != native_encoding_version) {
    throw error(errc::unsupported, std::string(native_type_name) + " value: encoding version " +
                                       std::to_string(encver) + " (this build loads " +
                                       std::to_string(native_encoding_version) + ")");
  }
  chain c = load_fields(in, native ? encoding_version : encver);
  if (c.bloomkit_hashing() != native) {
    rdb_corrupt("options " + std::to_string(c.options()) + (native ? " lack" : " hold") +
                " bloomkit's hashing bit (" + std::to_string(option_bloomkit_hash) +
                "), which type " + std::string(type) + (native ? " requires" : " never holds"));
  }
  return c;
}

}  // namespace bloomkit::redisbloom
