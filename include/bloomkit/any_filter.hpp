#pragma once
// A filter of whichever kind a file holds, for code that handles them all:
//
//   bloomkit::any_filter f = bloomkit::map_any("ids.bloom");
//   std::visit([](const auto& filter) { return filter.contains("42"); }, f);
//
// Every alternative has the common surface (insert, contains, insert_many, contains_many, bits,
// capacity, target_fpp, inserted, estimated_count, estimated_fpp, fill_ratio, byte_size).
// bloomkit::any_filter holds the native kinds; bloomkit::compat::any_filter
// (compat/any_filter.hpp) the peers' filters too. Both are generated from their registry's list
// by open_any_of below.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>

#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/integer_keys.hpp"
#include "bloomkit/kinds.hpp"

namespace bloomkit {

// A look at a file's header before its payload is read; it throws to refuse the file.
using header_check = std::function<void(const file_header&)>;

// A variant of the filters of `List` (a filter_list), loaded or mapped (by `mode`) from the open
// `file`, the alternative its header names, with that header. A kind or scheme the list lacks is
// errc::unsupported naming the file; `before` (if any) sees the header first.
template <class List>
opened<typename List::variant> read_any_of(const detail::filter_file& file, open_mode mode,
                                           verify check = verify::full,
                                           const header_check& before = {}) {
  const file_header& h = detail::header_of(file);
  if (before) before(h);
  std::optional<typename List::variant> out;
  const auto try_one = [&]<class Filter>(std::type_identity<Filter>) {
    if (out || kind_traits<Filter>::kind != h.kind || !holds_scheme<Filter>(h.scheme)) {
      return;
    }
    out.emplace(detail::file_io<Filter>::read(file, mode, check));
  };
  [&]<class... Filters>(filter_list<Filters...>) {
    (try_one(std::type_identity<Filters>{}), ...);
  }(List{});
  if (!out) {
    throw error(errc::unsupported,
                detail::source_of(file) + ": holds a " + std::string(to_string(h.kind)) +
                    " filter with hash scheme " + std::string(to_string(h.scheme)) +
                    ", which this build cannot open");
  }
  return {std::move(*out), h};
}
// The same from `path`: one open of the file gives the filter and its header.
template <class List>
opened<typename List::variant> open_any_of(const std::filesystem::path& path, open_mode mode,
                                           verify check = verify::full,
                                           const header_check& before = {}) {
  return read_any_of<List>(*detail::open_filter_file(path), mode, check, before);
}
template <class List>
typename List::variant load_any_of(const std::filesystem::path& path) {
  return open_any_of<List>(path, open_mode::load).filter;
}
template <class List>
typename List::variant map_any_of(const std::filesystem::path& path, verify check) {
  return open_any_of<List>(path, open_mode::map, check).filter;
}

using any_filter = native_filters::variant;

// The empty filter of the kind named `name` (kind_names: one native type per kind), sized by
// `request`; none for a name that is not a kind's. Integer keys (request.keys) for a kind that
// takes none (integer_keys.hpp) are errc::invalid_argument. Creating by name: what --kind and the
// module's BK.RESERVE KIND make, so that a name means the same type everywhere.
// Variant: a variant that holds every type of the list (any_filter, compat::any_filter).
template <class Variant, class... Filters>
std::optional<Variant> create_any_of(filter_list<Filters...>, std::string_view name,
                                     const kind_request& request) {
  std::optional<Variant> out;
  const auto make = [&]<class Filter>() {
    if (out || kind_traits<Filter>::name != name) return;
    if (request.keys != key_type::string && !takes_integer_keys<Filter>) {
      detail::refuse_integer_keys_of(kind_traits<Filter>::kind);
    }
    out.emplace(kind_traits<Filter>::create(request));
  };
  (make.template operator()<Filters>(), ...);
  return out;
}
inline std::optional<any_filter> create_any(std::string_view name, const kind_request& request) {
  return create_any_of<any_filter>(native_kinds{}, name, request);
}

// What a file holds decides the alternative; a kind or scheme this build cannot hold is
// errc::unsupported naming the file. open_any gives the file's header too, from the same open
// (its key type: the filter's own, even when the file is replaced meanwhile).
opened<any_filter> open_any(const std::filesystem::path& path, open_mode mode,
                            verify check = verify::full, const header_check& before = {});
any_filter load_any(const std::filesystem::path& path);
any_filter map_any(const std::filesystem::path& path, verify check = verify::full);

// The operations below take a variant of any filter list: any_filter or compat::any_filter.

// Records the key type in the file too (file.hpp); only the peers' filters take key_type::int64
// (errc::unsupported for others).
template <file_kind... Filters>
void save(const std::variant<Filters...>& filter, const std::filesystem::path& path,
          key_type keys = key_type::string) {
  std::visit([&](const auto& f) { save(f, path, keys); }, filter);
}

// The kind of filter an alternative is.
template <file_kind... Filters>
filter_kind kind_of(const std::variant<Filters...>& filter) noexcept {
  return std::visit([](const auto& f) { return kind_traits<std::decay_t<decltype(f)>>::kind; },
                    filter);
}

// For a filter that maps a file: throws errc::io_error naming the file when it was truncated or
// overwritten in place since it was mapped (mapped_file.hpp); nothing for other filters. Lookups
// check by themselves; call it after reading figures of a mapped filter (fill_ratio,
// estimated_count, ...), which do not.
template <file_kind... Filters>
void check_mapped_file(const std::variant<Filters...>& filter) {
  std::visit([](const auto& f) { kind_traits<std::decay_t<decltype(f)>>::check_source(f); },
             filter);
}

}  // namespace bloomkit
