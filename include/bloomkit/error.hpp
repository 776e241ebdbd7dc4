#pragma once
// bloomkit::error: the one exception type the library throws. Its message names the input
// (file, parameter, filter) and the problem; code() lets callers branch without parsing text.

#include <stdexcept>
#include <string>
#include <string_view>

namespace bloomkit {

enum class errc {
  invalid_argument = 1,  // a parameter out of range (n, p, m, k, ...)
  too_large,             // a size that cannot be represented or allocated
  incompatible,          // merge / intersect of filters with different parameters or schemes
  read_only,             // a write to a filter that maps a file read-only
  io_error,              // open / read / write / fsync / rename / mmap failed
  corrupt_file,          // bad magic, truncation, checksum mismatch, inconsistent fields
  unsupported,           // a valid file of a version, kind or scheme this build does not handle
  // Redis (bloomkit::redis); messages name the server (host:port) or the key.
  unreachable,     // cannot connect to a server, or the connection was lost and retries ran out
  auth_failed,     // AUTH refused (wrong user / password), or the server demands one (NOAUTH)
  timeout,         // a command got no reply within the command timeout
  server_error,    // the server answered with an error the caller cannot handle
  wrong_type,      // a key holds another type than the filter expects (WRONGTYPE)
  not_found,       // a filter that does not exist
  already_exists,  // a filter that exists already (with other parameters)
  conflict,        // other clients kept changing a filter (its generation, its meta) under a call
                   // past its retries (rebuilds in a tight loop); retry the call later
};

std::string_view to_string(errc code) noexcept;

class error : public std::runtime_error {
 public:
  error(errc code, const std::string& message) : std::runtime_error(message), code_(code) {}
  errc code() const noexcept { return code_; }

 private:
  errc code_;
};

namespace detail {
// Runs op() and returns what it returns; a bloomkit::error from it is thrown again as
// error(code, context() + its message), context() called only then: the one shape of the places
// that say what they were doing when a call below them failed. Without `code`, the error keeps
// its own.
template <class Context, class Op>
decltype(auto) with_context(errc code, Context context, Op op) {
  try {
    return op();
  } catch (const error& e) {
    throw error(code, std::string(context()) + e.what());
  }
}
template <class Context, class Op>
decltype(auto) with_context(Context context, Op op) {
  try {
    return op();
  } catch (const error& e) {
    throw error(e.code(), std::string(context()) + e.what());
  }
}
}  // namespace detail

}  // namespace bloomkit
