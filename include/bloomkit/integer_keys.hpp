#pragma once
// Integer keys through the registry's one door (any_filter, compat::any_filter): which kinds take
// them, and batched inserts and lookups of integer keys into whichever filter a variant holds.
//
// Filters of integer keys (key_type::int64) are the classic, blocked and counting kinds with the
// native probe policies: their integer schemes (hashing.hpp: splitmix64_128,
// splitmix64_split_block) are the same probes fed by a mixer of the integer, so they cost nothing
// beyond the existing policies. The scalable chain, the windows, the static and the cuckoo filter
// take byte strings only: each records one scheme for sub-filters or tables it builds itself (a
// second scheme per kind would be a second file layout of each), so `create` refuses
// key_type::int64 for them. The peers' filters take integers as their bytes (Guava's
// longFunnel), through their string paths.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <variant>

#include "bloomkit/error.hpp"
#include "bloomkit/key_type.hpp"
#include "bloomkit/kinds.hpp"

namespace bloomkit {

// Whether a filter type can be made with key_type::int64.
template <class Filter>
inline constexpr bool takes_integer_keys = requires(const Filter& f) {
  requires integer_probe_policy<typename Filter::policy_type>;
  { f.keys() } -> std::same_as<key_type>;
};

// The key type of a filter: key_type::int64 for a filter of integer keys, else string.
template <class Filter>
key_type keys_of(const Filter& f) noexcept {
  if constexpr (takes_integer_keys<Filter>) {
    return f.keys();
  } else {
    return key_type::string;
  }
}
template <file_kind... Filters>
key_type keys_of(const std::variant<Filters...>& filter) noexcept {
  return std::visit([](const auto& f) { return keys_of(f); }, filter);
}

namespace detail {
// Throws errc::invalid_argument: a filter of kind `kind` takes string keys, not integers.
[[noreturn]] void refuse_integer_keys_of(filter_kind kind);
}  // namespace detail

// Batched inserts and lookups of integer keys (insert_integers / contains_integers of the
// filter). A filter of string keys, of any kind, refuses them (errc::invalid_argument).
template <file_kind... Filters, integer_key T>
std::size_t insert_integers(std::variant<Filters...>& filter, std::span<const T> keys) {
  return std::visit(
      [&]<class F>(F& f) -> std::size_t {
        if constexpr (takes_integer_keys<F>) {
          return f.insert_integers(keys);
        } else {
          detail::refuse_integer_keys_of(kind_traits<F>::kind);
        }
      },
      filter);
}
template <file_kind... Filters, integer_key T>
std::size_t contains_integers(const std::variant<Filters...>& filter, std::span<const T> keys,
                              std::span<bool> results) {
  return std::visit(
      [&]<class F>(const F& f) -> std::size_t {
        if constexpr (takes_integer_keys<F>) {
          return f.contains_integers(keys, results);
        } else {
          detail::refuse_integer_keys_of(kind_traits<F>::kind);
        }
      },
      filter);
}
// insert_integers with each key's answer: added[i] is whether keys[i] was new, in order (a key
// repeated within the batch is new once). added.size() must equal keys.size().
template <file_kind... Filters, integer_key T>
std::size_t insert_integers(std::variant<Filters...>& filter, std::span<const T> keys,
                            std::span<bool> added) {
  return std::visit(
      [&]<class F>(F& f) -> std::size_t {
        if constexpr (takes_integer_keys<F>) {
          if (keys.size() != added.size()) {
            throw error(errc::invalid_argument, "insert_integers: " + std::to_string(keys.size()) +
                                                    " keys but room for " +
                                                    std::to_string(added.size()) + " results");
          }
          std::size_t fresh = 0;
          for (std::size_t i = 0; i < keys.size(); ++i) {
            added[i] = f.insert_integer(widen_key(keys[i]));
            fresh += added[i] ? 1 : 0;
          }
          return fresh;
        } else {
          detail::refuse_integer_keys_of(kind_traits<F>::kind);
        }
      },
      filter);
}

}  // namespace bloomkit
