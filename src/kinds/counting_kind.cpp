// Files of the counting filter (kind 3, docs/FORMAT.md): the header of the classic filter with
// m = counters, and a payload of 4m bits, the counters exactly as they lie in memory (scheme 20
// keeps a sharded Redis counting filter's shard count in kind_params[0]).

#include <string>
#include <utility>

#include "../file/file_io.hpp"
#include "bloomkit/kinds.hpp"
#include "bloomkit/sizing.hpp"
#include "word_payload.hpp"

namespace bloomkit {
namespace detail {
template struct file_io<counting_bloom_filter>;

}  // namespace detail

template <>
detail::file_check sized_kind<counting_bloom_filter>::check_fields(const file_header& h) {
  if (auto problem = detail::check_params_in_range(h)) return problem;
  if (h.bits > counting_bloom_filter::max_counters) {
    return detail::inconsistent_header(std::to_string(h.bits) + " counters exceed the maximum of " +
                                       std::to_string(counting_bloom_filter::max_counters));
  }
  if (auto problem = detail::check_only_integer_key_flag(h)) return problem;
  if (auto problem = detail::check_payload_length(
          h, bytes_for_bits(detail::payload_bits<counting_bloom_filter>(h)),
          std::to_string(h.bits) + " 4-bit counters")) {
    return problem;
  }
  return detail::check_reserved_but_shards(h);
}

}  // namespace bloomkit
