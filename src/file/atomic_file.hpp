#pragma once
// Internal: the one writer of every file bloomkit replaces (save() of every kind, write_file(),
// the CLI's commands); what it guarantees is in include/bloomkit/file_writer.hpp.
//
//   atomic_file out(path);  // locks path's target (or re-enters the caller's lock), checks it
//   out.write(bytes);       // ... into a temp file beside it
//   out.commit();           // fsync, rename over the target, fsync the directory
//
// Destroyed without commit(), it leaves the target as it was and no temp file.

#include <filesystem>
#include <span>
#include <string>

#include "bloomkit/file_writer.hpp"
#include "temp_file.hpp"

namespace bloomkit::detail {

class atomic_file {
 public:
  explicit atomic_file(const std::filesystem::path& path);

  void write(std::span<const unsigned char> bytes) { temp_.write(bytes); }
  // Puts the new version in place; under file_lock::defer_saves(), stages it for commit().
  void commit();

 private:
  file_lock lock_;
  temp_file temp_;  // declared after the lock: gone before the lock is released
};

}  // namespace bloomkit::detail
