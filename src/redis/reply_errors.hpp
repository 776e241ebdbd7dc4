#pragma once
// Error replies of the filters' commands as bloomkit::error (internal, shared by redis_filter and
// go_zero_filter).

#include <string>

#include "bloomkit/error.hpp"
#include "bloomkit/redis/client.hpp"

namespace bloomkit::redis::detail {

// Turns an error reply into the matching bloomkit::error; `what` names the key or operation.
// WRONGTYPE is errc::wrong_type, any other error reply errc::server_error.
inline void check_reply(const reply& r, const std::string& what) {
  if (!r.is_error()) return;
  const std::string& text = r.str();
  if (text.rfind("WRONGTYPE", 0) == 0) {
    throw error(errc::wrong_type, what + " holds a value of another type (" + text + ")");
  }
  throw error(errc::server_error, what + ": " + text);
}

}  // namespace bloomkit::redis::detail
