#pragma once
// RedisBloom's chain (redisbloom.hpp) as a kind of the registry (kinds.hpp): kind 6
// `redisbloom`, hash scheme 14, its file layout in docs/FORMAT.md ("Kind 6: redisbloom"). Files
// hold the chain exactly (every link's fields and bits), so a chain saved and loaded again
// answers, reports and serializes as before. Part of bloomkit::compat (compat/any_filter.hpp).

#include "bloomkit/compat/redisbloom.hpp"
#include "bloomkit/kinds.hpp"

namespace bloomkit {

template <>
struct kind_traits<redisbloom::chain> {
  using filter_type = redisbloom::chain;
  static constexpr filter_kind kind = filter_kind::redisbloom;
  static constexpr std::string_view name = "redisbloom";
  static constexpr hash_scheme scheme = hash_scheme::redisbloom;
  // Chains with option_bloomkit_hash record scheme redisbloom_xxh3 (the module's own BF.* keys).
  static constexpr bool reads_scheme(hash_scheme s) noexcept {
    return s == hash_scheme::redisbloom || s == hash_scheme::redisbloom_xxh3;
  }
  static constexpr bool records_key_type = false;
  static constexpr bool grows = false;  // it grows, but by RedisBloom's rules, not `create`'s
  // What BF.RESERVE key p n makes (EXPANSION 2).
  static filter_type create(const kind_request& r) {
    return filter_type::reserve(r.initial_capacity, r.target_fpp, redisbloom::default_expansion,
                                false);
  }
  static std::uint32_t hashes(const filter_type& f) noexcept { return f.hashes(); }
  template <class Report>
  static void describe(const filter_type& f, Report& r) {
    // BF.INFO's figures and BF.DEBUG's hash width; expansion 0 stands for BF.INFO's nil (a
    // non-scaling chain, whose stored growth is never used).
    r.add("links", static_cast<std::uint64_t>(f.filters()))
        .add("options", f.options())
        .add("expansion", f.expansion().value_or(0))
        .add("hash_width",
             std::uint32_t{(f.options() & redisbloom::option_force64) != 0 ? 64u : 32u})
        .add("redisbloom_size", f.info_size());
  }
  static void check_source(const filter_type&) {}  // chains are always in memory

  static std::optional<detail::file_problem> check_fields(const file_header& h);
  static file_header header_of(const filter_type& f);
  static detail::file_payload payload_of(const filter_type& f);
  static filter_type load(const detail::filter_file& file);
  // Reads the chain into memory, as load does (its links are separate allocations).
  static filter_type map(const detail::filter_file& file, verify check);
};

extern template struct detail::file_io<redisbloom::chain>;

}  // namespace bloomkit
