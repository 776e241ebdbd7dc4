// The lock writers take on a target (include/bloomkit/file_writer.hpp). Between processes: an
// flock()ed lock file beside the target, `.bloomkit-lock-<XXH64 of the name, 16 hex>` (short,
// so that a 255-byte target name works), created on demand and unlinked by its holder before
// it lets go. A waiter that then gets the lock on the unlinked file sees that the name no longer
// leads to the file it holds, and tries again. Within a process: a registry of held locks, so
// that the thread holding a lock may take it again (a save() inside a load-change-save cycle)
// and other threads wait for it (two flock()s of one process on separate open files would
// exclude each other too, but a thread would also exclude itself).

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <map>
#include <mutex>
#include <utility>

#include "file_error.hpp"
#include "lock_state.hpp"
#include "target.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace bloomkit {

namespace detail {

namespace {

std::string lock_name_for(const std::string& name) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(XXH64(name.data(), name.size(), 0)));
  return std::string(".bloomkit-lock-") + hex;
}

class lock_registry {
 public:
  static lock_registry& instance() {
    static lock_registry registry;
    return registry;
  }

  // The state of `key`, now held by this thread: true when newly taken (the caller takes the
  // file lock), false when this thread already held it (reentered).
  std::pair<lock_state*, bool> enter(const lock_key& key) {
    std::unique_lock guard(mutex_);
    std::unique_ptr<lock_state>& entry = states_[key];
    if (!entry) {
      entry = std::make_unique<lock_state>();
      entry->key = key;
    }
    lock_state* state = entry.get();
    const std::thread::id me = std::this_thread::get_id();
    if (state->depth > 0 && state->owner == me) {
      ++state->depth;
      return {state, false};
    }
    ++state->waiters;
    released_.wait(guard, [&] { return state->depth == 0; });
    --state->waiters;
    state->owner = me;
    state->depth = 1;
    return {state, true};
  }

  // Drops one level; the last one releases the file lock.
  void leave(lock_state* state) noexcept {
    std::lock_guard guard(mutex_);
    if (--state->depth > 0) return;
    release(*state);
    state->owner = {};
    if (state->waiters > 0) {
      released_.notify_all();
    } else {
      const lock_key key = state->key;
      states_.erase(key);
    }
  }

 private:
  static void release(lock_state& state) noexcept {
    state.staged.reset();  // an uncommitted deferred save: discarded
    state.defer_saves = false;
    if (state.lock_file) {
      // Unlinked while still held: a waiter on this file then sees it is gone and retries.
      const signal_block block;
      state.lock_cleanup.reset();
      ::unlinkat(state.dir.get(), state.lock_name.c_str(), 0);
      state.lock_file.reset();
    }
    state.dir.reset();
    state.target.clear();
  }

  std::mutex mutex_;
  std::condition_variable released_;
  std::map<lock_key, std::unique_ptr<lock_state>> states_;
};

// Whether `fd` is (still) the file named `name` in `dir_fd`.
bool is_named(int fd, int dir_fd, const std::string& name) {
  struct stat held {};
  struct stat named {};
  return ::fstat(fd, &held) == 0 &&
         ::fstatat(dir_fd, name.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
         held.st_dev == named.st_dev && held.st_ino == named.st_ino;
}

void take_lock_file(lock_state& state, const std::string& source) {
  const std::string lock_path = (state.target.parent_path() / state.lock_name).string();
  // Keeps `fd`, locked, when it is still the lock file (its holder may have unlinked it while we
  // waited); call with signals blocked.
  const auto hold = [&](unique_fd& fd) {
    if (!is_named(fd.get(), state.dir.get(), state.lock_name)) return false;
    state.lock_cleanup = std::make_unique<signal_cleanup>(state.dir.get(), state.lock_name);
    state.lock_file = std::move(fd);
    return true;
  };
  while (true) {
    unique_fd fd;
    {
      // Created, locked and registered as one step, when nobody else holds it.
      const signal_block block;
      // Read-only is enough for flock(), and lets writers share a lock file another user made.
      fd.reset(::openat(state.dir.get(), state.lock_name.c_str(),
                        O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666));
      if (!fd) fail_errno(source, "cannot create the lock file " + lock_path);
      if (::flock(fd.get(), LOCK_EX | LOCK_NB) == 0) {
        if (hold(fd)) return;
        continue;
      }
      if (errno != EWOULDBLOCK && errno != EINTR) fail_errno(source, "cannot lock " + lock_path);
    }
    // Another writer holds it: wait (signals act normally meanwhile; the file is theirs).
    while (::flock(fd.get(), LOCK_EX) != 0) {
      if (errno != EINTR) fail_errno(source, "cannot lock " + lock_path);
    }
    const signal_block block;
    if (hold(fd)) return;
  }
}

}  // namespace

lock_state& state_of(const file_lock& lock) {
  if (lock.state_ == nullptr) throw error(errc::invalid_argument, "file_lock: no lock is held");
  return *lock.state_;
}

}  // namespace detail

file_lock lock_for_update(const std::filesystem::path& path) {
  const std::string source = path.string();
  // A symlink put in place of the target between resolving and locking is followed again.
  for (int attempt = 0;; ++attempt) {
    const std::filesystem::path target = detail::resolve_symlinks(path, source);
    const std::string name = target.filename().string();
    if (name.empty() || name == "." || name == "..") {
      detail::fail_file(errc::io_error, source, "names a directory, not a regular file");
    }
    std::filesystem::path dir_path = target.parent_path();
    if (dir_path.empty()) dir_path = ".";
    detail::unique_fd dir(::open(dir_path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir) detail::fail_errno(source, "cannot open its directory " + dir_path.string());
    struct stat dir_stat {};
    if (::fstat(dir.get(), &dir_stat) != 0) detail::fail_errno(source, "cannot stat its directory");

    auto [state, taken] =
        detail::lock_registry::instance().enter({dir_stat.st_dev, dir_stat.st_ino, name});
    file_lock lock(state);  // released by its destructor if anything below throws
    if (!taken) return lock;
    state->target = target;
    state->dir = std::move(dir);
    state->lock_name = detail::lock_name_for(name);
    detail::take_lock_file(*state, source);

    struct stat st {};
    if (::fstatat(state->dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno != ENOENT) detail::fail_errno(source, "cannot stat");
      return lock;  // a new file
    }
    if (S_ISLNK(st.st_mode) && attempt < 40) continue;
    detail::require_regular_file(st, target, source);
    return lock;
  }
}

file_lock::file_lock(file_lock&& other) noexcept : state_(std::exchange(other.state_, nullptr)) {}

file_lock& file_lock::operator=(file_lock&& other) noexcept {
  if (this != &other) {
    unlock();
    state_ = std::exchange(other.state_, nullptr);
  }
  return *this;
}

file_lock::~file_lock() {
  unlock();
}

const std::filesystem::path& file_lock::target() const {
  return detail::state_of(*this).target;
}

void file_lock::defer_saves() {
  detail::state_of(*this).defer_saves = true;
}

void file_lock::commit() {
  detail::lock_state& state = detail::state_of(*this);
  if (!state.staged) return;
  state.staged->replace_target();
  state.staged.reset();
}

void file_lock::unlock() noexcept {
  if (state_ != nullptr) detail::lock_registry::instance().leave(std::exchange(state_, nullptr));
}

}  // namespace bloomkit
