#pragma once
// Internal: errors of the file layer name their file: "<source>: <problem>". Validators return
// the problem (file_check); the reader or writer that called them throws it, once.

#include <optional>
#include <string>

#include "bloomkit/error.hpp"

namespace bloomkit::detail {

// What is wrong with a file: errc::corrupt_file for damage or inconsistent fields,
// errc::unsupported for what this build does not read.
struct file_problem {
  errc code;
  std::string message;
};
// The problem a validator found, or none.
using file_check = std::optional<file_problem>;

// A header field that contradicts the others or the format: "inconsistent header: <what>".
inline file_problem inconsistent_header(const std::string& what) {
  return {errc::corrupt_file, "inconsistent header: " + what};
}
// The error op() throws (a check of parameters read from the header) as an inconsistent header,
// or none.
template <class Op>
file_check header_problem_of(Op op) {
  try {
    op();
  } catch (const error& e) {
    return inconsistent_header(e.what());
  }
  return {};
}

// Throws bloomkit::error(code, "<source>: <problem>").
[[noreturn]] void fail_file(errc code, const std::string& source, const std::string& problem);
[[noreturn]] void fail_file(const file_problem& problem, const std::string& source);
// Throws `*check` naming `source`, if there is one.
inline void throw_if(const file_check& check, const std::string& source) {
  if (check) fail_file(*check, source);
}
// Throws bloomkit::error(errc::io_error, "<source>: <action>: <strerror(errno)>").
[[noreturn]] void fail_errno(const std::string& source, const std::string& action);

}  // namespace bloomkit::detail
