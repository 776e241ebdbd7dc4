#include "sharded_file.hpp"

namespace bloomkit::redis::detail {

std::string sharded_file_inconsistency(const file_header& h) {
  const std::uint64_t shards = h.kind_params[0];
  if (shards < 2 || h.bits % shards != 0 || h.bits / shards % 64 != 0 ||
      h.bits / shards > (std::uint64_t{1} << 32)) {
    return std::to_string(shards) + " shards for " + std::to_string(h.bits) +
           " bits (need 2 or more equal shards of whole 64-bit words, at most 2^32 bits each)";
  }
  return {};
}

}  // namespace bloomkit::redis::detail
