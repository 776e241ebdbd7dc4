#pragma once
// Internal: the file codec of classic filters (kind 1, docs/FORMAT.md) for any probe policy: the
// native one (classic_kind.cpp) and the peers' (src/compat/*.cpp), each of which instantiates
// kind_traits and file_io for its filter types.

#include "../file/file_io.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/kinds.hpp"
#include "filter_rules.hpp"
#include "word_payload.hpp"

namespace bloomkit {
namespace detail {

// Kind 1's fields: m and k in range, only the integer-key flag, a payload of ceil(m / 64) words,
// reserved fields 0 (scheme 20 keeps its shard count in kind_params[0]: bloomkit::redis checks
// it; scheme 17 its Spark V2 seed, a 32-bit value).
file_check check_classic_fields(const file_header& h);

}  // namespace detail

template <class Policy>
std::optional<detail::file_problem> kind_traits<basic_bloom_filter<Policy>>::check_fields(
    const file_header& h) {
  return detail::check_classic_fields(h);
}

}  // namespace bloomkit
