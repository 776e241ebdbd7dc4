#include "shard_file.hpp"

#include <cstdint>

#include "bloomkit/error.hpp"
#include "filter_meta.hpp"

namespace bloomkit::redis::detail {

namespace {

constexpr std::uint64_t max_string_bits = std::uint64_t{1} << max_shard_bits_log2;

const char* cells_name(unsigned cell_bits) {
  return cell_bits == 1 ? "bits" : "counters";
}

}  // namespace

unsigned cell_bits_of_file(const file_header& h, const std::string& source) {
  if (h.kind == filter_kind::classic) return 1;
  if (h.kind == filter_kind::counting) return counter_bits;
  throw error(errc::unsupported, source + ": a " + std::string(to_string(h.kind)) +
                                     " filter cannot be pushed to Redis (only classic and "
                                     "counting filters)");
}

std::string sharded_header_problem(const file_header& h, unsigned cell_bits) {
  if (h.scheme != sharded_scheme) return {};
  // Equal shards of whole 64-cell words, each at most a Redis string of 2^32 bits.
  const std::uint64_t shards = h.kind_params[0];
  if (shards < 2 || h.bits % shards != 0 || h.bits / shards % 64 != 0 ||
      h.bits / shards > max_string_bits / cell_bits) {
    return "inconsistent header: " + std::to_string(shards) + " shards for " +
           std::to_string(h.bits) + " " + cells_name(cell_bits) +
           " (need 2 or more equal shards of whole 64-cell words, at most 2^32 bits each)";
  }
  return {};
}

shard_layout layout_of_file(const file_header& h, const std::string& source) {
  const unsigned cell_bits = cell_bits_of_file(h, source);
  if (const std::string problem = sharded_header_problem(h, cell_bits); !problem.empty()) {
    throw error(errc::corrupt_file, source + ": " + problem);
  }
  shard_layout layout;
  if (h.scheme == hash_scheme::xxh3_128) {
    if (h.bits > max_string_bits / cell_bits) {
      throw error(errc::unsupported,
                  source + ": an xxh3-128 filter of " + std::to_string(h.bits) + " " +
                      cells_name(cell_bits) +
                      " probes across all of them, so it must be one Redis string, and a Redis "
                      "string holds at most 2^32 bits; create a sharded filter in Redis instead "
                      "(bloomkit redis create / rebuild)");
    }
    layout = {h.bits, 1, h.hashes};
  } else if (h.scheme == sharded_scheme) {
    layout = {h.bits / h.kind_params[0], h.kind_params[0], h.hashes};
  } else {
    throw error(errc::unsupported, source + ": hash scheme " + std::string(to_string(h.scheme)) +
                                       " cannot be expressed as a Redis filter");
  }
  if (const std::string problem = stored_layout(layout, cell_bits).inconsistency();
      !problem.empty()) {
    throw error(errc::unsupported, source + ": " + problem);
  }
  return layout;
}

file_header header_for(const shard_layout& layout, unsigned cell_bits) {
  file_header h;
  h.kind = cell_bits == 1 ? filter_kind::classic : filter_kind::counting;
  h.bits = layout.total_bits();
  h.hashes = layout.hashes;
  if (layout.shard_count == 1) {
    h.scheme = hash_scheme::xxh3_128;
  } else {
    h.scheme = sharded_scheme;
    h.kind_params[0] = layout.shard_count;
  }
  if (const std::string problem = sharded_header_problem(h, cell_bits); !problem.empty()) {
    throw error(errc::corrupt_file, "pull: " + problem);
  }
  return h;
}

}  // namespace bloomkit::redis::detail
