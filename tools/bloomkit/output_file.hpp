#pragma once
// The file a command writes (create, add, remove, build, merge, import, export, redis pull):
// locked from before the command reads anything until the new version is in place, so that
// concurrent writers serialize and none is lost (docs/CLI.md, "Concurrent writers and replacing
// files"; the library's lock_for_update). Saves of it are staged; commit() prints the command's
// result line, flushes stdout and only then replaces the file: a command that cannot report
// its result changes nothing.

#include <string>
#include <string_view>

#include "bloomkit/file_writer.hpp"

namespace bloomkit::cli {

class output_file {
 public:
  // Waits for the lock; throws bloomkit::error naming `name` when its target is not a regular
  // file (a directory, FIFO, device) or cannot be locked.
  explicit output_file(const std::string& name);

  // Throws bloomkit::error naming both when `input` is this same file (after symlinks and hard
  // links), which `command` would replace.
  void require_distinct_from(const std::string& input, std::string_view command) const;

  // Writes `result_line` to stdout and flushes it, then puts what was saved in place.
  void commit(std::string_view result_line);

 private:
  std::string name_;
  file_lock lock_;
};

}  // namespace bloomkit::cli
