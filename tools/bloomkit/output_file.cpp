#include "output_file.hpp"

#include <sys/stat.h>

#include <cstdio>

#include <fmt/core.h>

#include "bloomkit/error.hpp"
#include "cli_error.hpp"
#include "output.hpp"

namespace bloomkit::cli {

output_file::output_file(const std::string& name) : name_(name), lock_(lock_for_update(name)) {
  lock_.defer_saves();
}

void output_file::require_distinct_from(const std::string& input, std::string_view command) const {
  struct stat in {};
  struct stat out {};
  if (::stat(input.c_str(), &in) != 0 || ::stat(name_.c_str(), &out) != 0) return;
  if (in.st_dev == out.st_dev && in.st_ino == out.st_ino) {
    throw error(errc::invalid_argument,
                fmt::format("cannot {} {} to {}: they are the same file, which {} would replace",
                            command, quoted_name(input), quoted_name(name_), command));
  }
}

void output_file::commit(std::string_view result_line) {
  fmt::print("{}", result_line);
  flush_stdout();
  lock_.commit();
}

}  // namespace bloomkit::cli
