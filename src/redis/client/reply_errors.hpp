#pragma once
// Error replies of the filters' commands as bloomkit::error (internal, shared by the filters).

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

// The integer of a reply; `what` names the command in the error of any other reply.
inline long long as_integer(const reply& r, const std::string& what) {
  check_reply(r, what);
  if (r.type() != reply::kind::integer) {
    throw error(errc::server_error, what + ": unexpected reply " + r.to_string());
  }
  return r.integer();
}

}  // namespace bloomkit::redis::detail
