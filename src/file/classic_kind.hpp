#pragma once
// Internal: the file codec of classic filters (kind 1, docs/FORMAT.md) for any probe policy: the
// native one (classic_kind.cpp) and the peers' (src/compat/*.cpp), each of which instantiates
// kind_traits and file_io for its filter types.

#include "../filter_rules.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/kinds.hpp"
#include "file_io.hpp"
#include "word_payload.hpp"

namespace bloomkit {
namespace detail {

// Kind 1's fields: m and k in range, only the integer-key flag, a payload of ceil(m / 64) words,
// reserved fields 0 (scheme 20 keeps its shard count in kind_params[0]: bloomkit::redis checks
// it).
file_check check_classic_fields(const file_header& h);

// The policy's own limits on m and k (a peer's: Guava's multiple of 64, go-zero's k = 14).
template <class Policy>
file_check check_policy_fields(const file_header& h) {
  try {
    check_policy_params<Policy>(h.bits, h.hashes);
  } catch (const error& e) {
    if (e.code() != errc::invalid_argument) throw;
    return inconsistent_header(e.what());
  }
  return {};
}

// The one construction of a classic filter from a file's storage.
}  // namespace detail

template <class Policy>
std::optional<detail::file_problem> kind_traits<basic_bloom_filter<Policy>>::check_fields(
    const file_header& h) {
  return detail::check_classic_fields(h);
}

template <class Policy>
file_header kind_traits<basic_bloom_filter<Policy>>::header_of(const filter_type& f) {
  return detail::header_of_config(kind, scheme, f.config(), f.inserted());
}

template <class Policy>
detail::file_payload kind_traits<basic_bloom_filter<Policy>>::payload_of(const filter_type& f) {
  return detail::words_payload(f.storage());
}

template <class Policy>
basic_bloom_filter<Policy> kind_traits<basic_bloom_filter<Policy>>::load(
    const detail::filter_file& file) {
  const file_header& h = file.header();
  detail::throw_if(detail::check_policy_fields<Policy>(h), file.source());
  return detail::filter_from_storage<basic_bloom_filter<Policy>>(h,
                                                                 detail::read_words(file, h.bits));
}

template <class Policy>
basic_bloom_filter<Policy> kind_traits<basic_bloom_filter<Policy>>::map(
    const detail::filter_file& file, verify check) {
  const file_header& h = file.header();
  detail::throw_if(detail::check_policy_fields<Policy>(h), file.source());
  return detail::filter_from_storage<basic_bloom_filter<Policy>>(
      h, detail::map_words(file, check, h.bits));
}

}  // namespace bloomkit
