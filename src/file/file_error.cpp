#include "file_error.hpp"

#include <cerrno>
#include <cstring>

namespace bloomkit::detail {

void fail_file(errc code, const std::string& source, const std::string& problem) {
  throw error(code, source + ": " + problem);
}

void fail_file(const file_problem& problem, const std::string& source) {
  fail_file(problem.code, source, problem.message);
}

void fail_errno(const std::string& source, const std::string& action) {
  fail_file(errc::io_error, source, action + ": " + std::strerror(errno));
}

}  // namespace bloomkit::detail
