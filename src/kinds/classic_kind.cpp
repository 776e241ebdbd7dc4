// Files of the classic filter with the native probes (kind 1, scheme 1), and the checks every
// classic file passes whatever its scheme.

#include "classic_kind.hpp"

#include "bloomkit/sizing.hpp"

namespace bloomkit {
namespace detail {

file_check check_classic_fields(const file_header& h) {
  if (auto problem = check_params_in_range(h)) return problem;
  if (auto problem = check_flags(h, file_flag_int64_keys)) return problem;
  if (auto problem = check_integer_key_flag(h)) return problem;
  if (auto problem =
          check_payload_length(h, bytes_for_bits(h.bits), std::to_string(h.bits) + " bits")) {
    return problem;
  }
  return check_reserved_but_shards(h);
}

template struct file_io<bloom_filter>;

}  // namespace detail

template struct kind_traits<bloom_filter>;

}  // namespace bloomkit
