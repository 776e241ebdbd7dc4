// Files of the classic filter with the native probes (kind 1, scheme 1), and the checks every
// classic file passes whatever its scheme.

#include "classic_kind.hpp"

#include "bloomkit/sizing.hpp"

namespace bloomkit {
namespace detail {

file_check check_classic_fields(const file_header& h) {
  if (auto problem = check_params_in_range(h)) return problem;
  if (auto problem = check_flags(h, file_flag_int64_keys)) return problem;
  if (auto problem =
          check_payload_length(h, bytes_for_bits(h.bits), std::to_string(h.bits) + " bits")) {
    return problem;
  }
  // kind_params[0] of a redis_sharded_xxh3 file is its shard count (docs/REDIS.md), whose
  // layout bloomkit::redis checks where it uses one; every other reserved field is 0.
  return check_reserved_zero(h, h.scheme == hash_scheme::redis_sharded_xxh3 ? 1 : 0);
}

template struct file_io<bloom_filter>;

}  // namespace detail

template struct kind_traits<bloom_filter>;

}  // namespace bloomkit
