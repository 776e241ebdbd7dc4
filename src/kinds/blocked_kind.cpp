// Files of the blocked filter (kind 2, docs/FORMAT.md): the classic layout (the bits as
// little-endian u64 words at offset 128) with no flags; k names the layout (sizing.hpp): 8 the
// split block (a size in whole 256-bit blocks), 1..7 or 16 the 512-bit lines (whole lines).

#include <string>
#include <utility>

#include "../file/file_io.hpp"
#include "bloomkit/kinds.hpp"
#include "classic_kind.hpp"
#include "word_payload.hpp"

namespace bloomkit {
namespace detail {
template struct file_io<blocked_bloom_filter>;

}  // namespace detail

template <>
detail::file_check sized_kind<blocked_bloom_filter>::check_fields(const file_header& h) {
  // The payload is a bit array like the classic kind's: m and k in range, a payload of
  // ceil(m / 64) words, reserved fields 0; no flag but the integer-key flag of its integer scheme.
  if (auto problem = detail::check_only_integer_key_flag(h)) return problem;
  if (auto problem = detail::check_classic_fields(h)) return problem;
  if (!is_blocked_hashes(h.hashes)) {
    return detail::inconsistent_header(
        "hashes " + std::to_string(h.hashes) + " of a blocked filter name no layout (1.." +
        std::to_string(blocked_hashes) + " or " + std::to_string(blocked_two_line_hashes) + ")");
  }
  const std::uint64_t unit = blocked_shape_of(h.hashes).unit_bits;
  if (h.bits % unit != 0) {
    return detail::inconsistent_header(
        "bits " + std::to_string(h.bits) + " of a " + blocked_layout_name(h.hashes) +
        " blocked filter are not a multiple of " + std::to_string(unit));
  }
  return {};
}

}  // namespace bloomkit
