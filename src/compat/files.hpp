#pragma once
// Internal: bloomkit files holding interop filters (kind classic, the peer's hash scheme, the key
// type in the header's flags), on top of the classic filter's save / load / map.

#include <filesystem>

#include "../classic_file.hpp"

namespace bloomkit::compat::detail {

template <class Policy>
void save_filter(const basic_bloom_filter<Policy>& f, const std::filesystem::path& path,
                 key_type keys) {
  file_header h = bloomkit::detail::classic_header(f);
  if (keys == key_type::int64) h.flags |= file_flag_int64_keys;
  bloomkit::detail::save_classic(f, path, h);
}

// Runs a loader; a filter the policy refuses (bits or hashes outside the peer's limits) is a
// corrupt file, named.
template <class Load>
auto checked(const bloomkit::detail::filter_file& file, Load load) {
  try {
    return load();
  } catch (const error& e) {
    if (e.code() != errc::invalid_argument) throw;
    bloomkit::detail::fail_file(errc::corrupt_file, file.source(),
                                std::string("inconsistent header: ") + e.what());
  }
}

template <class Policy>
basic_bloom_filter<Policy> load_filter(const std::filesystem::path& path) {
  const bloomkit::detail::filter_file file(path);
  return checked(file, [&] { return bloomkit::detail::load_classic<Policy>(file); });
}

template <class Policy>
basic_bloom_filter<Policy> map_filter(const std::filesystem::path& path, verify check) {
  const bloomkit::detail::filter_file file(path);
  return checked(file, [&] { return bloomkit::detail::map_classic<Policy>(file, check); });
}

}  // namespace bloomkit::compat::detail
