#pragma once
// How bloomkit replaces a file: every save() (file.hpp), write_file() below, and every command of
// the bloomkit tool go through one writer, which
//
//   - serializes writers: it holds an advisory lock on the target (a hidden lock file beside it,
//     `.bloomkit-lock-<hash of the name>`, removed again when the lock is released) from before
//     the file is read until the new version is in place, so concurrent load-change-save cycles
//     of processes and threads all land, none is lost. Readers never take the lock and never
//     block: rename is atomic, so they see the old file or the new one, whole;
//   - writes through a symlink (a chain; relative targets relative to the link's directory) to
//     the file it names, and the link stays a link; a loop is an error;
//   - refuses a target that exists and is not a regular file (a directory, FIFO, device node,
//     socket), with an error naming it, and changes nothing;
//   - gives a new file the mode 0666 & ~umask; a replaced file keeps its mode, and its owner and
//     group where the process may set them;
//   - writes the new version to an unnamed temp file in the target's directory (O_TMPFILE; a
//     short hidden `.bloomkit-tmp-XXXXXXXX` name where the file system has none), fsyncs it,
//     renames it over the target and fsyncs the directory: a crash leaves the old file or the
//     new one under the target's name, never half of one. SIGINT, SIGTERM, SIGHUP, SIGQUIT and
//     SIGPIPE remove the temp and lock files before the process ends as the signal says (the
//     handlers are installed on first use, only for signals whose action is the default one;
//     SIGKILL can leave a lock file, which the next writer reuses).
//
// A load-change-save cycle that must not lose a concurrent writer's change holds the lock across
// it:
//
//   bloomkit::file_lock lock = bloomkit::lock_for_update("ids.bloom");
//   auto ids = bloomkit::load("ids.bloom");
//   ids.insert("42");
//   bloomkit::save(ids, "ids.bloom");  // takes the lock again: reentrant in this thread
//
// save() takes the lock by itself when its caller holds none.

#include <filesystem>
#include <span>

namespace bloomkit {

class file_lock;
namespace detail {
struct lock_state;
lock_state& state_of(const file_lock& lock);  // for the writer (src/file/)
}  // namespace detail

// The exclusive right to replace one file. Other processes and other threads wait for it (in
// lock_for_update() or any save() of that file); the thread holding it may lock and save the
// same file again.
class file_lock {
 public:
  file_lock() noexcept = default;  // holds nothing
  file_lock(file_lock&& other) noexcept;
  file_lock& operator=(file_lock&& other) noexcept;
  file_lock(const file_lock&) = delete;
  file_lock& operator=(const file_lock&) = delete;
  ~file_lock();  // unlock()

  bool owns_lock() const noexcept { return state_ != nullptr; }
  // The regular file that is written: the path after following symlinks.
  const std::filesystem::path& target() const;

  // Two-phase saves, for a caller that must succeed at something else (reporting the result)
  // before the file changes: from now on, a save of this file from this thread writes and fsyncs
  // the new version but does not replace the target; commit() does. A staged version that is
  // not committed when the lock is released is discarded: nothing changed.
  void defer_saves();
  // Replaces the target with the staged version (if any), renames, fsyncs the directory.
  void commit();

  // Releases the lock (discarding an uncommitted staged version). Does nothing when not held.
  void unlock() noexcept;

 private:
  friend file_lock lock_for_update(const std::filesystem::path& path);
  friend detail::lock_state& detail::state_of(const file_lock& lock);
  explicit file_lock(detail::lock_state* state) noexcept : state_(state) {}

  detail::lock_state* state_ = nullptr;
};

// Waits until no other process or thread holds the lock on `path`'s target, and takes it.
// Throws bloomkit::error (errc::io_error, naming `path`) when the target is not a regular file,
// a symlink loop, or its directory cannot be opened or written.
[[nodiscard]] file_lock lock_for_update(const std::filesystem::path& path);

// Replaces `path` with `bytes`, like save() does with a filter.
void write_file(const std::filesystem::path& path, std::span<const unsigned char> bytes);

}  // namespace bloomkit
