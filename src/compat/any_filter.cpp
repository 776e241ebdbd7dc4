#include "bloomkit/compat/any_filter.hpp"

namespace bloomkit::compat {

opened<any_filter> open_any(const std::filesystem::path& path, open_mode mode, verify check,
                            const header_check& before) {
  return open_any_of<filters>(path, mode, check, before);
}
any_filter load_any(const std::filesystem::path& path) {
  return load_any_of<filters>(path);
}
any_filter map_any(const std::filesystem::path& path, verify check) {
  return map_any_of<filters>(path, check);
}

}  // namespace bloomkit::compat
