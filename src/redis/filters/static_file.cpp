// A static filter file as the image of a Redis static generation and back (push, pull).
#include "bloomkit/error.hpp"
#include "bloomkit/file.hpp"
#include "bloomkit/redis/static_filter.hpp"
#include "static_scheme.hpp"

namespace bloomkit::redis {

bool redis_static_filter::is_static_file(const std::filesystem::path& file) {
  const auto opened = bloomkit::detail::open_filter_file(file);
  return static_cast<std::uint32_t>(bloomkit::detail::header_of(*opened).kind) == 7;
}

}  // namespace bloomkit::redis

namespace bloomkit::redis::detail {

static_image load_static_file(const std::filesystem::path& file) {
  throw error(errc::unsupported, file.string() + ": static files are not readable yet");
}

void save_static_file(const static_image&, const std::filesystem::path& file) {
  throw error(errc::unsupported, file.string() + ": static files are not writable yet");
}

}  // namespace bloomkit::redis::detail
