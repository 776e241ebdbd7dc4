#include "bloomkit/compat/any_filter.hpp"

namespace bloomkit::compat {

using ops = any_filter_ops<filters>;

any_filter load_any(const std::filesystem::path& path) {
  return ops::load(path);
}
any_filter map_any(const std::filesystem::path& path, verify check) {
  return ops::map(path, check);
}
void save(const any_filter& filter, const std::filesystem::path& path, key_type keys) {
  ops::save(filter, path, keys);
}
filter_kind kind_of(const any_filter& filter) noexcept {
  return ops::kind_of(filter);
}
void check_mapped_file(const any_filter& filter) {
  ops::check_mapped_file(filter);
}

}  // namespace bloomkit::compat
