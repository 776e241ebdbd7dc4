// RedisBloom's MBbloomCF value (redisbloom_cuckoo.hpp): its RDB fields in RedisBloom's order for
// every encoding version CFRdbLoad accepts, and the DUMP payload around them.

#include <cstring>
#include <string>

#include "rdb_payload.hpp"
#include "redisbloom_cuckoo_sub.hpp"

namespace bloomkit::redisbloom::cuckoo {

namespace {

// Encoding version 4 added deletes, bucket size, max iterations, expansion and the per-sub-filter
// bucket counts; before it every sub-filter had numBuckets buckets of 2 slots.
constexpr int expansion_encoding = 4;

std::uint16_t narrow(std::uint64_t v, std::uint64_t max, const char* field) {
  if (v > max)
    corrupt(std::string(field) + " " + std::to_string(v) + " (at most " + std::to_string(max) +
            ")");
  return static_cast<std::uint16_t>(v);
}

}  // namespace

void save_fields(const filter& f, field_sink& out) {
  out.write_unsigned(f.num_filters());
  out.write_unsigned(f.num_buckets());
  out.write_unsigned(f.num_items());
  out.write_unsigned(f.num_deletes());
  out.write_unsigned(f.bucket_size());
  out.write_unsigned(f.max_iterations());
  out.write_unsigned(f.expansion());
  for (std::size_t i = 0; i < f.num_filters(); ++i) {
    out.write_unsigned(f.sub_buckets(i));
    const auto slots = f.sub_slots(i);
    out.write_string(std::string_view(reinterpret_cast<const char*>(slots.data()), slots.size()));
  }
}

filter load_fields(field_source& in, int encver) {
  if (encver < 0 || encver > encoding_version) {
    throw error(errc::unsupported, "RedisBloom cuckoo filter: encoding version " +
                                       std::to_string(encver) + " (0 to 4 load)");
  }
  fields fs;
  fs.num_filters = in.read_unsigned();
  fs.num_buckets = in.read_unsigned();
  fs.num_items = in.read_unsigned();
  if (encver < expansion_encoding) {
    fs.bucket_size = default_bucket_size;
    fs.max_iterations = default_max_iterations;
    fs.expansion = default_expansion;
  } else {
    fs.num_deletes = in.read_unsigned();
    fs.bucket_size = narrow(in.read_unsigned(), max_bucket_size, "bucket size");
    fs.max_iterations = narrow(in.read_unsigned(), max_max_iterations, "max iterations");
    fs.expansion = narrow(in.read_unsigned(), max_expansion, "expansion");
  }
  filter f = filter::access::empty(fs);  // checks the count before the loop below
  for (std::size_t i = 0; i < fs.num_filters; ++i) {
    const std::uint64_t buckets = encver < expansion_encoding ? fs.num_buckets : in.read_unsigned();
    const std::string_view bytes = in.read_string();
    // The string's length first: a hostile count allocates nothing the input does not hold.
    if (buckets == 0 || bytes.size() / fs.bucket_size != buckets ||
        bytes.size() % fs.bucket_size != 0) {
      corrupt("sub-filter " + std::to_string(i) + ": " + std::to_string(bytes.size()) +
              " slot bytes for " + std::to_string(buckets) + " buckets of " +
              std::to_string(fs.bucket_size));
    }
    const auto slots = filter::access::append(f, buckets, i);
    std::memcpy(slots.data(), bytes.data(), bytes.size());
  }
  return f;
}

std::vector<unsigned char> write_dump(const filter& f, std::uint16_t rdb_version) {
  std::vector<unsigned char> out;
  out.reserve(static_cast<std::size_t>(f.slot_bytes()) + 64 + 16 * f.num_filters());
  rdb::begin_dump(out, type_name, encoding_version);
  rdb::payload_sink sink(out);
  save_fields(f, sink);
  rdb::end_dump(out, rdb_version);
  return out;
}

filter read_dump(std::span<const unsigned char> payload, const std::string& source) {
  const std::string name = source + " (a DUMP payload)";
  rdb::reader in(rdb::dump_body(payload, name), name);
  const module_type t = rdb::read_module_header(in, name);
  if (t.name != type_name) {
    throw error(errc::unsupported,
                name + ": module type '" + t.name + "', not " + std::string(type_name));
  }
  rdb::payload_source fields(in);
  filter f = [&] {
    try {
      return cuckoo::load_fields(fields, t.encver);
    } catch (const error& e) {
      const std::string_view what = e.what();
      if (what.starts_with(name)) throw;  // the reader's, which names the source already
      throw error(e.code(), name + ": " + std::string(what));
    }
  }();
  rdb::end_of_value(in);
  return f;
}

}  // namespace bloomkit::redisbloom::cuckoo
