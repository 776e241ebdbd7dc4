#pragma once
// Spark V2 filters (spark_v2_filter.hpp) as a kind of the registry (kinds.hpp): kind classic,
// scheme spark-v2, the seed in the header's kind_params[0] (as its 32-bit two's complement),
// the payload the classic filter's words (docs/FORMAT.md). V1 filters are classic filters with
// the V1 policy and take the classic kind's traits. Part of bloomkit::compat
// (compat/any_filter.hpp).

#include <cstdint>
#include <optional>
#include <string>

#include "bloomkit/compat/spark_v2_filter.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/kinds.hpp"

namespace bloomkit {

template <>
struct kind_traits<spark::v2_filter> {
  using filter_type = spark::v2_filter;
  static constexpr filter_kind kind = filter_kind::classic;
  static constexpr std::string_view name = "classic";
  static constexpr hash_scheme scheme = hash_scheme::spark_v2;
  static constexpr bool records_key_type = true;  // putLong keys
  static constexpr bool grows = false;
  // BloomFilter.create(n, p): seed 0.
  static filter_type create(const kind_request& r) {
    return filter_type::for_capacity(r.initial_capacity, r.target_fpp);
  }
  static std::uint32_t hashes(const filter_type& f) noexcept { return f.hashes(); }
  template <class Report>
  static void describe(const filter_type& f, Report& r) {
    r.add("seed", std::to_string(f.seed()));
  }
  static void check_source(const filter_type& f) { f.storage().check_source(); }

  static std::optional<detail::file_problem> check_fields(const file_header& h);
  static file_header header_of(const filter_type& f);
  static detail::file_payload payload_of(const filter_type& f);
  static filter_type load(const detail::filter_file& file);
  static filter_type map(const detail::filter_file& file, verify check);
};

extern template struct detail::file_io<spark::v2_filter>;

}  // namespace bloomkit
