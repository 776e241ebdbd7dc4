#pragma once
// Internal: what a held file_lock (include/bloomkit/file_writer.hpp, file_lock.cpp) knows, for
// the writer (atomic_file.hpp) that works under it.

#include <sys/types.h>

#include <compare>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "bloomkit/file_writer.hpp"
#include "signal_cleanup.hpp"
#include "temp_file.hpp"
#include "unique_fd.hpp"

namespace bloomkit::detail {

// A lock is per target: its directory (device and inode) and its name there.
struct lock_key {
  dev_t dir_device = 0;
  ino_t dir_inode = 0;
  std::string name;
  auto operator<=>(const lock_key&) const = default;
};

struct lock_state {
  // Kept by the process-wide registry (file_lock.cpp) under its mutex.
  lock_key key;
  std::thread::id owner;
  int depth = 0;  // how many file_locks the owner holds
  int waiters = 0;

  // Set while held.
  std::filesystem::path target;  // the regular file written (symlinks followed)
  unique_fd dir;                 // its directory
  std::string lock_name;         // the lock file's name in `dir`
  unique_fd lock_file;           // flock()ed
  std::unique_ptr<signal_cleanup> lock_cleanup;
  bool defer_saves = false;
  std::optional<temp_file> staged;  // a deferred save waiting for commit()
};

}  // namespace bloomkit::detail
