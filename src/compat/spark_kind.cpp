// bloomkit files of Spark filters (compat/spark_kind.hpp): V1 as the classic kind of scheme
// spark-v1, V2 as the classic kind of scheme spark-v2 with its seed in kind_params[0].

#include "bloomkit/compat/spark_kind.hpp"

#include "../kinds/classic_kind.hpp"
#include "bloomkit/compat/spark.hpp"

namespace bloomkit {

template struct kind_traits<spark::v1_filter>;
template struct detail::file_io<spark::v1_filter>;
template struct detail::file_io<spark::v2_filter>;

using v2_traits = kind_traits<spark::v2_filter>;

// The classic kind's checks (its seed's range among them: check_reserved_but_shards), and
// Spark's limits.
detail::file_check v2_traits::check_fields(const file_header& h) {
  if (auto problem = detail::check_classic_fields(h)) return problem;
  return detail::check_policy_fields<spark::v2_policy>(h);
}

file_header v2_traits::header_of(const filter_type& f) {
  file_header h = detail::header_of_config(kind, scheme, f.config(), f.inserted());
  h.kind_params[0] = static_cast<std::uint32_t>(f.seed());
  return h;
}

detail::file_payload v2_traits::payload_of(const filter_type& f) {
  return detail::words_payload(f.storage());
}

namespace {

std::int32_t seed_in(const file_header& h) noexcept {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(h.kind_params[0]));
}

}  // namespace

spark::v2_filter v2_traits::load(const detail::filter_file& file) {
  return {kind_traits<spark::v2_filter::classic_type>::load(file), seed_in(file.header())};
}

spark::v2_filter v2_traits::map(const detail::filter_file& file, verify check) {
  return {kind_traits<spark::v2_filter::classic_type>::map(file, check), seed_in(file.header())};
}

}  // namespace bloomkit
