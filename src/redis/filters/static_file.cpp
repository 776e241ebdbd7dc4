// A static filter file as the image of a Redis static generation and back (push, pull).
#include "bloomkit/error.hpp"
#include "static_scheme.hpp"

namespace bloomkit::redis::detail {

static_image load_static_file(const std::filesystem::path& file) {
  throw error(errc::unsupported, file.string() + ": static files are not readable yet");
}

void save_static_file(const static_image&, const std::filesystem::path& file) {
  throw error(errc::unsupported, file.string() + ": static files are not writable yet");
}

}  // namespace bloomkit::redis::detail
