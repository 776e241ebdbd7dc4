// CF.SCANDUMP / CF.LOADCHUNK (redisbloom_cuckoo.hpp): the 38-byte header, the sub-filters' slot
// bytes in chunks at RedisBloom's positions, and a filter assembled from them.

#include <cstring>
#include <string>
#include <vector>

#include "little_endian.hpp"
#include "redisbloom_cuckoo_sub.hpp"

namespace bloomkit::redisbloom::cuckoo {

namespace {

void put_le(unsigned char*& p, std::uint64_t v, int bytes) noexcept {
  for (int i = 0; i < bytes; ++i) *p++ = static_cast<unsigned char>(v >> (8 * i));
}

[[noreturn]] void refuse(chunk_problem p, const std::string& what) {
  throw chunk_error(p, "RedisBloom cuckoo filter chunk: " + what);
}

// Where byte `offset` of the sub-filters laid end to end sits: the sub-filter and the offset in
// it. Past the end, RedisBloom's loop leaves the last sub-filter and the offset less all bytes.
struct place {
  std::size_t sub = 0;
  std::uint64_t offset = 0;
  bool inside = false;
};

place locate(const filter& f, std::uint64_t offset) noexcept {
  place at;
  for (std::size_t i = 0; i < f.num_filters(); ++i) {
    at.sub = i;
    const std::uint64_t size = f.sub_slots(i).size();
    if (offset < size) {
      at.offset = offset;
      at.inside = true;
      return at;
    }
    offset -= size;
  }
  at.offset = offset;
  return at;
}

}  // namespace

std::array<unsigned char, header_bytes> header_chunk(const filter& f) {
  std::array<unsigned char, header_bytes> out{};
  unsigned char* p = out.data();
  put_le(p, f.num_items(), 8);
  put_le(p, f.num_buckets(), 8);
  put_le(p, f.num_deletes(), 8);
  put_le(p, f.num_filters(), 8);
  put_le(p, f.bucket_size(), 2);
  put_le(p, f.max_iterations(), 2);
  put_le(p, f.expansion(), 2);
  return out;
}

fields decode_header(std::span<const unsigned char, header_bytes> header) noexcept {
  const unsigned char* p = header.data();
  fields fs;
  fs.num_items = read_le(p, 8);
  fs.num_buckets = read_le(p, 8);
  fs.num_deletes = read_le(p, 8);
  fs.num_filters = read_le(p, 8);
  fs.bucket_size = static_cast<std::uint16_t>(read_le(p, 2));
  fs.max_iterations = static_cast<std::uint16_t>(read_le(p, 2));
  fs.expansion = static_cast<std::uint16_t>(read_le(p, 2));
  return fs;
}

data_chunk next_chunk(const filter& f, std::int64_t pos, std::size_t max_bytes) {
  if (pos < 1) return {};
  const place at = locate(f, static_cast<std::uint64_t>(pos) - 1);
  if (!at.inside) return {};
  const auto slots = f.sub_slots(at.sub);
  const std::size_t limit = std::max<std::size_t>(max_bytes, 1);
  if (slots.size() <= limit) {
    // The whole sub-filter, wherever pos points inside it (RedisBloom's CF_GetEncodedChunk).
    return {pos + static_cast<std::int64_t>(slots.size()), slots};
  }
  const std::size_t n = std::min<std::uint64_t>(slots.size() - at.offset, limit);
  return {pos + static_cast<std::int64_t>(n), slots.subspan(at.offset, n)};
}

std::string_view redisbloom_text(chunk_problem p) noexcept {
  switch (p) {
    case chunk_problem::invalid_header:
      return "Invalid header";
    case chunk_problem::cannot_create:
      return "Couldn't create filter!";
    case chunk_problem::cannot_load:
      break;
  }
  return "Couldn't load chunk!";
}

filter filter_from_header(std::span<const unsigned char> header) {
  if (header.size() != header_bytes) {
    refuse(chunk_problem::invalid_header,
           "a header of " + std::to_string(header.size()) + " bytes (38)");
  }
  const fields fs = decode_header(header.first<header_bytes>());
  // CFHeader_Load's checks, then the integrity rules (from_fields), before any allocation.
  if (fs.num_filters == 0 || fs.num_filters > max_filters) {
    refuse(chunk_problem::cannot_create,
           "number of filters " + std::to_string(fs.num_filters) + " (1 to 65535)");
  }
  try {
    std::vector<std::uint64_t> sizes(fs.num_filters);
    std::uint64_t buckets = fs.num_buckets;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      if (i != 0) {
        if (fs.expansion == 0 || buckets > max_num_buckets / fs.expansion) {
          refuse(chunk_problem::cannot_create,
                 "sub-filter " + std::to_string(i) + ": " + std::to_string(fs.num_buckets) +
                     " buckets x expansion " + std::to_string(fs.expansion) + "^" +
                     std::to_string(i) + " passes 2^56");
        }
        buckets *= fs.expansion;
      }
      sizes[i] = buckets;
    }
    return filter::from_fields(fs, sizes);
  } catch (const chunk_error&) {
    throw;
  } catch (const error& e) {
    if (e.code() != errc::corrupt_file) throw;
    refuse(chunk_problem::cannot_create, e.what());
  }
}

void apply_chunk(filter& f, std::int64_t pos, std::span<const unsigned char> data) {
  if (data.empty() || pos <= 0 || static_cast<std::uint64_t>(pos - 1) < data.size()) {
    refuse(chunk_problem::cannot_load,
           std::to_string(data.size()) + " bytes at position " + std::to_string(pos));
  }
  const place at = locate(f, static_cast<std::uint64_t>(pos - 1) - data.size());
  const auto slots = f.mutable_sub_slots(at.sub);
  if (at.offset > slots.size() || data.size() > slots.size() - at.offset) {
    refuse(chunk_problem::cannot_load, std::to_string(data.size()) + " bytes at offset " +
                                           std::to_string(at.offset) + " of sub-filter " +
                                           std::to_string(at.sub) + " (" +
                                           std::to_string(slots.size()) + " bytes)");
  }
  std::memcpy(slots.data() + at.offset, data.data(), data.size());
}

}  // namespace bloomkit::redisbloom::cuckoo
