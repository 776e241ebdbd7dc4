#include "bloomkit/any_filter.hpp"

#include <string>

namespace bloomkit {

namespace {

// Opens `path` as the alternative its header names: open.template operator()<Filter>() is
// load<Filter> or map<Filter>.
template <class Open>
any_filter open_any(const std::filesystem::path& path, Open open) {
  const file_header h = read_header(path);
  switch (h.kind) {
    case filter_kind::classic:
      if (h.scheme == bloom_filter::scheme()) return open.template operator()<bloom_filter>();
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

void save(const any_filter& filter, const std::filesystem::path& path) {
  std::visit([&](const auto& f) { save(f, path); }, filter);
}

filter_kind kind_of(const any_filter& filter) noexcept {
  struct kind_visitor {
    filter_kind operator()(const bloom_filter&) const noexcept { return filter_kind::classic; }
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
  return std::visit(kind_visitor{}, filter);
}

}  // namespace bloomkit
