#pragma once
// Internal: save / load / map of any filter type of a registry, over its kind_traits
// (kinds.hpp). The TU that defines a kind's file codec instantiates file_io for its filter types
// (template struct detail::file_io<...>).

#include "bloomkit/file.hpp"
#include "filter_file.hpp"
#include "write_filter_file.hpp"

namespace bloomkit::detail {

template <class Filter>
void file_io<Filter>::save(const Filter& filter, const std::filesystem::path& path, key_type keys) {
  using traits = kind_traits<Filter>;
  file_header h = traits::header_of(filter);
  // A filter of integer keys records them itself (its integer scheme and the flag).
  if (keys == key_type::int64 && (h.flags & file_flag_int64_keys) == 0) {
    if constexpr (!traits::records_key_type) {
      throw error(errc::unsupported,
                  path.string() +
                      ": only filters of other systems' hash schemes (Guava, bits-and-blooms, "
                      "go-zero, Spark) record 64-bit integer keys");
    }
    h.flags |= file_flag_int64_keys;
  }
  const file_payload payload = traits::payload_of(filter);
  write_filter_file(path, h, payload.parts);
}

template <class Filter>
Filter file_io<Filter>::read(const filter_file& file, open_mode mode, verify check) {
  using traits = kind_traits<Filter>;
  return mode == open_mode::map ? traits::map(file, check) : traits::load(file);
}

template <class Filter>
opened<Filter> file_io<Filter>::open(const std::filesystem::path& path, open_mode mode,
                                     verify check) {
  using traits = kind_traits<Filter>;
  const filter_file file(path);
  // A kind of several schemes names the file's own when it holds one of them.
  file.require(traits::kind,
               holds_scheme<Filter>(file.header().scheme) ? file.header().scheme : traits::scheme);
  return {read(file, mode, check), file.header()};
}

template <class Filter>
Filter file_io<Filter>::load(const std::filesystem::path& path) {
  return open(path, open_mode::load, verify::full).filter;
}

template <class Filter>
Filter file_io<Filter>::map(const std::filesystem::path& path, verify check) {
  return open(path, open_mode::map, check).filter;
}

}  // namespace bloomkit::detail
