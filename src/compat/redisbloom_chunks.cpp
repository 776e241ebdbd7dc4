// BF.SCANDUMP's chunks and BF.LOADCHUNK's loading (redisbloom.hpp): RedisBloom's packed header
// and its iterator over the links' bit arrays laid end to end.

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "little_endian.hpp"
#include "redisbloom_slot.hpp"

namespace bloomkit::redisbloom {

namespace {

static_assert(std::endian::native == std::endian::little, "RedisBloom's layouts are little-endian");

void put_le(std::vector<unsigned char>& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<unsigned char>(v >> (8 * i)));
}

[[noreturn]] void bad_chunk(chunk_problem p, const std::string& what) {
  throw chunk_error(p, "RedisBloom chunk: " + what);
}

// The link holding byte `offset` of the concatenated bit arrays, and the offset within it.
struct link_position {
  std::size_t link = 0;
  std::uint64_t offset = 0;
};
std::optional<link_position> locate_byte(const chain& c, std::uint64_t offset) {
  for (std::size_t i = 0; i < c.filters(); ++i) {
    const std::uint64_t bytes = c.link(i).bytes;
    if (offset < bytes) return link_position{i, offset};
    offset -= bytes;
  }
  return std::nullopt;
}

}  // namespace

std::string_view redisbloom_text(chunk_problem p) noexcept {
  switch (p) {
    case chunk_problem::bad_data:
      return "ERR received bad data";
    case chunk_problem::no_link:
      return "ERR invalid offset - no link found";
    case chunk_problem::too_big:
      return "ERR invalid chunk - Too big for current filter";
  }
  return "ERR received bad data";
}

std::vector<unsigned char> header_chunk(const chain& c) {
  std::vector<unsigned char> out;
  out.reserve(header_fixed_bytes + header_link_bytes * c.filters());
  put_le(out, c.items(), 8);
  put_le(out, c.filters(), 4);
  put_le(out, c.options(), 4);
  put_le(out, c.growth(), 4);
  for (std::size_t i = 0; i < c.filters(); ++i) {
    const link_fields f = c.link(i);
    put_le(out, f.bytes, 8);
    put_le(out, f.bits, 8);
    put_le(out, f.size, 8);
    put_le(out, std::bit_cast<std::uint64_t>(f.error), 8);
    put_le(out, std::bit_cast<std::uint64_t>(f.bpe), 8);
    put_le(out, f.hashes, 4);
    put_le(out, f.entries, 8);
    put_le(out, f.n2, 1);
  }
  return out;
}

data_chunk next_chunk(const chain& c, std::int64_t iter, std::size_t max_bytes) {
  if (iter < 1) return {};
  const auto at = locate_byte(c, static_cast<std::uint64_t>(iter) - 1);
  if (!at) return {};
  const auto bits = c.link_bits(at->link);
  const std::size_t len = static_cast<std::size_t>(
      std::min<std::uint64_t>(std::max<std::size_t>(max_bytes, 1), bits.size() - at->offset));
  return {iter + static_cast<std::int64_t>(len),
          bits.subspan(static_cast<std::size_t>(at->offset), len)};
}

chain chain_from_header(std::span<const unsigned char> header) {
  if (header.size() < header_fixed_bytes) {
    bad_chunk(chunk_problem::bad_data, "a header of " + std::to_string(header.size()) +
                                           " bytes (at least " +
                                           std::to_string(header_fixed_bytes) + ")");
  }
  const unsigned char* p = header.data();
  const std::uint64_t size = read_le(p, 8);
  const std::uint64_t nfilters = read_le(p, 4);
  const auto options = static_cast<std::uint32_t>(read_le(p, 4));
  const auto growth = static_cast<std::uint32_t>(read_le(p, 4));
  if (nfilters == 0) bad_chunk(chunk_problem::bad_data, "a header of no links");
  if (nfilters > max_links) {
    bad_chunk(chunk_problem::bad_data, "a header of " + std::to_string(nfilters) +
                                           " links (at most " + std::to_string(max_links) + ")");
  }
  if (header.size() != header_fixed_bytes + header_link_bytes * nfilters) {
    bad_chunk(chunk_problem::bad_data, "a header of " + std::to_string(header.size()) +
                                           " bytes for " + std::to_string(nfilters) + " links");
  }
  std::vector<link_fields> links(nfilters);
  for (link_fields& f : links) {
    f.bytes = read_le(p, 8);
    f.bits = read_le(p, 8);
    f.size = read_le(p, 8);
    f.error = std::bit_cast<double>(read_le(p, 8));
    f.bpe = std::bit_cast<double>(read_le(p, 8));
    f.hashes = static_cast<std::uint32_t>(read_le(p, 4));
    f.entries = read_le(p, 8);
    f.n2 = static_cast<std::uint8_t>(read_le(p, 1));
  }
  try {
    return chain::from_fields(size, options, growth, links);
  } catch (const error& e) {
    if (e.code() != errc::corrupt_file) throw;
    bad_chunk(chunk_problem::bad_data, e.what());
  }
}

void apply_chunk(chain& c, std::int64_t iter, std::span<const unsigned char> data) {
  if (iter <= 0 || static_cast<std::uint64_t>(iter) < data.size()) {
    bad_chunk(chunk_problem::bad_data, "iterator " + std::to_string(iter) + " for " +
                                           std::to_string(data.size()) + " bytes");
  }
  const std::uint64_t start = static_cast<std::uint64_t>(iter) - data.size();
  const auto at = start >= 1 ? locate_byte(c, start - 1) : std::nullopt;
  if (!at) {
    bad_chunk(chunk_problem::no_link, "iterator " + std::to_string(iter) + " past the links' " +
                                          std::to_string(c.bit_bytes()) + " bytes");
  }
  const auto bits = c.mutable_link_bits(at->link);
  if (data.size() > bits.size() - at->offset) {
    bad_chunk(chunk_problem::too_big, std::to_string(data.size()) + " bytes at offset " +
                                          std::to_string(at->offset) + " of link " +
                                          std::to_string(at->link) + " (" +
                                          std::to_string(bits.size()) + " bytes)");
  }
  unsigned char* dst = bits.data() + at->offset;
  for (std::size_t i = 0; i < data.size(); ++i) dst[i] |= data[i];
}

}  // namespace bloomkit::redisbloom
