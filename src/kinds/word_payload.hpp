#pragma once
// Internal: what the kinds whose payload is one bit array (classic, blocked, counting) share:
// the header fields of a filter_config, the checks of those fields, and the array read, mapped or
// written as the words lie in memory (docs/FORMAT.md, kind 1).

#include <cstdint>
#include <string>

#include "../file/file_error.hpp"
#include "../file/filter_file.hpp"
#include "../file/write_filter_file.hpp"
#include "bloomkit/bit_array.hpp"
#include "bloomkit/bloom_filter.hpp"
#include "bloomkit/detail/filter_access.hpp"
#include "bloomkit/file_header.hpp"
#include "bloomkit/kinds.hpp"
#include "filter_rules.hpp"

namespace bloomkit::detail {

// The header of a filter of kind `kind`, scheme `scheme` and configuration `config` (bits = m,
// counters for the counting kind; integer keys set the integer-key flag), with its payload at
// offset 128.
file_header header_of_config(filter_kind kind, hash_scheme scheme, const filter_config& config,
                             std::uint64_t inserted);
// The configuration a header records (integer keys: an integer scheme).
filter_config config_of(const file_header& h);
// The filter a validated header and its loaded or mapped cells make (the one place loaders build
// classic, blocked and counting filters).
template <class Filter>
Filter filter_from_storage(const file_header& h, bit_array storage) {
  return filter_access::make<Filter>(config_of(h), std::move(storage), h.inserted);
}

// Header checks, each the problem or none:
// m and k in bloomkit's ranges (sizing.hpp: validate_params);
file_check check_params_in_range(const file_header& h);
// no flag outside `allowed`;
file_check check_flags(const file_header& h, std::uint32_t allowed);
// the integer-key flag set when the scheme is an integer scheme, and no other flag then;
file_check check_integer_key_flag(const file_header& h);
// no flag at all, but the integer-key flag of an integer scheme (blocked, counting);
file_check check_only_integer_key_flag(const file_header& h);
// payload_length = `expected` bytes, for `what` ("1000 bits");
file_check check_payload_length(const file_header& h, std::uint64_t expected,
                                const std::string& what);
// kind_params are 0, but for kind_params[0] of a redis_sharded_xxh3 file (a Redis filter pulled
// as a classic or counting file): its shard count, which bloomkit::redis checks where it uses one;
// and of a spark_v2 file: its seed, a 32-bit value.
file_check check_reserved_but_shards(const file_header& h);

// The bits of the payload of a filter of type Filter that `h` describes: m cells of its storage.
template <class Filter>
std::uint64_t payload_bits(const file_header& h) {
  return h.bits * Filter::storage_type::bits_per_cell;
}

// The probe policy's own limits on m and k (a peer's: Guava's multiple of 64, go-zero's k = 14).
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

// A payload of one bit array: `storage`'s words.
file_payload words_payload(const bit_array& storage);
// The payload as a bit array of `bits` bits, read into owned memory or viewed in the mapping;
// bits past `bits` in its last word must be 0 (checked by map with verify::full only).
bit_array read_words(const filter_file& file, std::uint64_t bits);
bit_array map_words(const filter_file& file, verify check, std::uint64_t bits);

}  // namespace bloomkit::detail

namespace bloomkit {

// The file codec of the kinds whose payload is their storage's words (kinds.hpp: sized_kind).
template <class Filter>
file_header sized_kind<Filter>::header_of(const Filter& f) {
  return detail::header_of_config(kind_traits<Filter>::kind, scheme_of(f), f.config(),
                                  f.inserted());
}

template <class Filter>
detail::file_payload sized_kind<Filter>::payload_of(const Filter& f) {
  return detail::words_payload(f.storage());
}

template <class Filter>
Filter sized_kind<Filter>::load(const detail::filter_file& file) {
  const file_header& h = file.header();
  detail::throw_if(detail::check_policy_fields<typename Filter::policy_type>(h), file.source());
  return detail::filter_from_storage<Filter>(
      h, detail::read_words(file, detail::payload_bits<Filter>(h)));
}

template <class Filter>
Filter sized_kind<Filter>::map(const detail::filter_file& file, verify check) {
  const file_header& h = file.header();
  detail::throw_if(detail::check_policy_fields<typename Filter::policy_type>(h), file.source());
  return detail::filter_from_storage<Filter>(
      h, detail::map_words(file, check, detail::payload_bits<Filter>(h)));
}

}  // namespace bloomkit
