#include "bloomkit/any_filter.hpp"

#include <string>
#include <type_traits>

namespace bloomkit {

namespace {

struct kind_visitor {
  // The classic filter with any probe policy: native or interop (compat/*.hpp).
  template <class Policy>
  filter_kind operator()(const basic_bloom_filter<Policy>&) const noexcept {
    return filter_kind::classic;
  }
  filter_kind operator()(const blocked_bloom_filter&) const noexcept {
    return filter_kind::blocked;
  }
  filter_kind operator()(const counting_bloom_filter&) const noexcept {
    return filter_kind::counting;
  }
  filter_kind operator()(const scalable_bloom_filter&) const noexcept {
    return filter_kind::scalable;
  }
};

// Opens `path` as the alternative its header names: open.template operator()<Filter>() is
// load<Filter> or map<Filter>.
template <class Open>
any_filter open_any(const std::filesystem::path& path, Open open) {
  const file_header h = read_header(path);
  switch (h.kind) {
    case filter_kind::classic:
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
        default:
          break;
      }
      break;
    case filter_kind::blocked:
      return open.template operator()<blocked_bloom_filter>();
    case filter_kind::counting:
      return open.template operator()<counting_bloom_filter>();
    case filter_kind::scalable:
      return open.template operator()<scalable_bloom_filter>();
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

void check_mapped_file(const any_filter& filter) {
  std::visit(
      [](const auto& f) {
        if constexpr (std::is_same_v<std::decay_t<decltype(f)>, scalable_bloom_filter>) {
          for (const bloom_filter& sub : f.sub_filters()) sub.storage().check_source();
        } else {
          f.storage().check_source();
        }
      },
      filter);
}

void save(const any_filter& filter, const std::filesystem::path& path) {
  std::visit([&](const auto& f) { save(f, path); }, filter);
}

// The filters whose files record a key type: the interop ones (save(f, path, keys)).
template <class Filter>
constexpr bool records_key_type = false;
template <class Policy>
constexpr bool records_key_type<basic_bloom_filter<Policy>> =
    Policy::scheme != hash_scheme::xxh3_128;

void save(const any_filter& filter, const std::filesystem::path& path, key_type keys) {
  std::visit(
      [&](const auto& f) {
        if constexpr (records_key_type<std::decay_t<decltype(f)>>) {
          save(f, path, keys);
        } else {
          if (keys != key_type::string) {
            throw error(errc::unsupported,
                        path.string() +
                            ": only filters of other systems' hash schemes (Guava, "
                            "bits-and-blooms, go-zero) record 64-bit integer keys");
          }
          save(f, path);
        }
      },
      filter);
}

filter_kind kind_of(const any_filter& filter) noexcept {
  return std::visit(kind_visitor{}, filter);
}

}  // namespace bloomkit
