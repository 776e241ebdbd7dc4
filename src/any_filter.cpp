#include "bloomkit/any_filter.hpp"

#include <string>
#include <type_traits>

namespace bloomkit {

namespace {

// Opens `path` as the alternative its header names: open.template operator()<Filter>() is
// load<Filter> or map<Filter>.
template <class Open>
any_filter open_any(const std::filesystem::path& path, Open open) {
  const file_header h = read_header(path);
  if (h.kind == filter_kind::classic) {
    switch (h.scheme) {
      case hash_scheme::xxh3_128:
        return open.template operator()<bloom_filter>();
      case hash_scheme::guava_murmur128_mitz_32:
        return open.template operator()<guava::mitz_32_filter>();
      case hash_scheme::guava_murmur128_mitz_64:
        return open.template operator()<guava::mitz_64_filter>();
      case hash_scheme::bits_and_blooms_v3:
        return open.template operator()<bits_and_blooms::filter>();
      case hash_scheme::go_zero:
        return open.template operator()<go_zero::filter>();
      case hash_scheme::xxh3_64_split_block:  // a blocked filter's scheme: not a classic one
        break;
    }
  }
  throw error(errc::unsupported, path.string() + ": holds a " + std::string(to_string(h.kind)) +
                                     " filter with hash scheme " +
                                     std::string(to_string(h.scheme)) +
                                     ", which this build cannot open");
}

}  // namespace

any_filter load_any(const std::filesystem::path& path) {
  return open_any(path, [&]<class Filter>() -> any_filter { return load<Filter>(path); });
}

any_filter map_any(const std::filesystem::path& path, verify check) {
  return open_any(path, [&]<class Filter>() -> any_filter { return map<Filter>(path, check); });
}

void save(const any_filter& filter, const std::filesystem::path& path) {
  std::visit([&](const auto& f) { save(f, path); }, filter);
}

void save(const any_filter& filter, const std::filesystem::path& path, key_type keys) {
  std::visit(
      [&](const auto& f) {
        // Only the interop filters have save(f, path, keys); bloom_filter would convert to
        // any_filter and come back here.
        if constexpr (!std::is_same_v<std::decay_t<decltype(f)>, bloom_filter>) {
          save(f, path, keys);
        } else {
          if (keys != key_type::string) {
            throw error(errc::unsupported, path.string() + ": a " +
                                               std::string(to_string(f.scheme())) +
                                               " filter records no key type");
          }
          save(f, path);
        }
      },
      filter);
}

filter_kind kind_of(const any_filter& filter) noexcept {
  // Every alternative so far is a classic filter (with one probe policy or another).
  return std::visit(
      []<class Policy>(const basic_bloom_filter<Policy>&) { return filter_kind::classic; }, filter);
}

}  // namespace bloomkit
