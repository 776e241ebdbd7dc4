// Files of the counting filter (kind 3, docs/FORMAT.md): the header of the classic filter with
// m = counters, and a payload of 4m bits, the counters exactly as they lie in memory.

#include <string>
#include <utility>

#include "bloomkit/kinds.hpp"
#include "bloomkit/sizing.hpp"
#include "file_io.hpp"
#include "word_payload.hpp"

namespace bloomkit {
namespace detail {
namespace {

// Counters are 4 bits: the storage of m counters is a bit array of 4m bits.
std::uint64_t counter_bits(const file_header& h) {
  return h.bits * 4;
}

}  // namespace

template struct file_io<counting_bloom_filter>;

}  // namespace detail

detail::file_check kind_traits<counting_bloom_filter>::check_fields(const file_header& h) {
  if (auto problem = detail::check_params_in_range(h)) return problem;
  if (h.bits > counting_bloom_filter::max_counters) {
    return detail::inconsistent_header(std::to_string(h.bits) + " counters exceed the maximum of " +
                                       std::to_string(counting_bloom_filter::max_counters));
  }
  if (auto problem = detail::check_flags(h, 0)) return problem;
  if (auto problem = detail::check_payload_length(h, bytes_for_bits(detail::counter_bits(h)),
                                                  std::to_string(h.bits) + " 4-bit counters")) {
    return problem;
  }
  return detail::check_reserved_zero(h);
}

file_header kind_traits<counting_bloom_filter>::header_of(const filter_type& f) {
  return detail::header_of_config(kind, scheme, f.config(), f.inserted());
}

detail::file_payload kind_traits<counting_bloom_filter>::payload_of(const filter_type& f) {
  return detail::words_payload(f.storage());
}

counting_bloom_filter kind_traits<counting_bloom_filter>::load(const detail::filter_file& file) {
  const file_header& h = file.header();
  return detail::filter_from_storage<counting_bloom_filter>(
      h, detail::read_words(file, detail::counter_bits(h)));
}

counting_bloom_filter kind_traits<counting_bloom_filter>::map(const detail::filter_file& file,
                                                              verify check) {
  const file_header& h = file.header();
  return detail::filter_from_storage<counting_bloom_filter>(
      h, detail::map_words(file, check, detail::counter_bits(h)));
}

}  // namespace bloomkit
