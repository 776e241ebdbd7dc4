// A static filter file as the image of a Redis static generation and back (push, pull): the
// registry's file codec (bloomkit::load / save), the image conversion of static_scheme.
#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/kinds.hpp"
#include "bloomkit/redis/static_filter.hpp"
#include "static_scheme.hpp"

namespace bloomkit::redis {

bool redis_static_filter::is_static_file(const std::filesystem::path& file) {
  const auto opened = bloomkit::detail::open_filter_file(file);
  return bloomkit::detail::header_of(*opened).kind == kind_traits<static_filter>::kind;
}

}  // namespace bloomkit::redis

namespace bloomkit::redis::detail {

static_image load_static_file(const std::filesystem::path& file) {
  return image_of(bloomkit::load<bloomkit::static_filter>(file));
}

void save_static_file(const static_image& image, const std::filesystem::path& file) {
  bloomkit::save(filter_of(image), file);
}

}  // namespace bloomkit::redis::detail
