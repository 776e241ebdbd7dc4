#pragma once
// Internal: the new version of a file, written in the target's directory and renamed over the
// target when complete. It has no name at all until then where the file system supports
// O_TMPFILE; elsewhere a short hidden one (`.bloomkit-tmp-XXXXXXXX`, so that a 255-byte target
// name works), removed on failure and by a fatal signal (signal_cleanup.hpp).

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "signal_cleanup.hpp"
#include "unique_fd.hpp"

namespace bloomkit::detail {

class temp_file {
 public:
  // An empty temp file for replacing `target`, whose directory is open as `dir_fd` (which must
  // outlive this object): with the mode, owner and group of `target` where it exists (the owner
  // and group where the process may set them), else 0666 & ~umask. Errors name `source`.
  temp_file(int dir_fd, const std::filesystem::path& target, std::string source);
  temp_file(temp_file&& other) noexcept;
  temp_file& operator=(temp_file&&) = delete;
  ~temp_file();  // discards the file unless it was put in place

  void write(std::span<const unsigned char> bytes);
  void sync();  // fsync
  // Renames the file over the target and fsyncs the directory.
  void replace_target();

 private:
  void create_named();
  void discard_name() noexcept;

  int dir_fd_ = -1;
  std::string target_name_;
  std::string source_;
  unique_fd fd_;
  std::string name_;  // empty while the file has no name
  std::unique_ptr<signal_cleanup> cleanup_;
};

// A scratch file in `dir` that never outlives the process, whatever ends it (the static
// builder's spilled hashes): O_TMPFILE, or where the file system lacks it a fresh hidden name
// removed at once (with fatal signals blocked in between). Errors name `source`.
unique_fd open_scratch_file(const std::filesystem::path& dir, const std::string& source);

// For tests: named temp files even where O_TMPFILE works.
void use_named_temp_files(bool named) noexcept;

}  // namespace bloomkit::detail
