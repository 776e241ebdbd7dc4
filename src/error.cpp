#include "bloomkit/error.hpp"

namespace bloomkit {

std::string_view to_string(errc code) noexcept {
  switch (code) {
    case errc::invalid_argument:
      return "invalid argument";
    case errc::too_large:
      return "too large";
    case errc::incompatible:
      return "incompatible";
    case errc::read_only:
      return "read-only";
    case errc::io_error:
      return "I/O error";
    case errc::corrupt_file:
      return "corrupt file";
    case errc::unsupported:
      return "unsupported";
    case errc::unreachable:
      return "unreachable";
    case errc::auth_failed:
      return "authentication failed";
    case errc::timeout:
      return "timeout";
    case errc::server_error:
      return "server error";
    case errc::wrong_type:
      return "wrong type";
    case errc::not_found:
      return "not found";
    case errc::already_exists:
      return "already exists";
  }
  return "unknown error";
}

}  // namespace bloomkit
