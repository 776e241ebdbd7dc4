#pragma once
// Internal: the files a fatal signal must not leave behind (a writer's named temp file and its
// lock file). While a name is registered, the handlers of SIGHUP, SIGINT, SIGQUIT, SIGTERM and
// SIGPIPE remove it, then end the process as the signal would have (default action, re-raised).
// The handlers are installed on the first registration, for the signals whose action is then the
// default one: an ignored signal stays ignored, and a program's own handler is called instead
// (it decides whether the process ends; the writer's destructors clean up if it carries on).

#include <signal.h>

#include <string_view>

namespace bloomkit::detail {

// Registers `name`, in the directory open as `dir_fd` (which must stay open while registered),
// for removal by a fatal signal; unregisters it on destruction. A name longer than 47 bytes, or
// more than 64 names at once, are not registered (the writer's own names are 31 bytes at most).
class signal_cleanup {
 public:
  signal_cleanup(int dir_fd, std::string_view name);
  ~signal_cleanup();
  signal_cleanup(const signal_cleanup&) = delete;
  signal_cleanup& operator=(const signal_cleanup&) = delete;

 private:
  int slot_ = -1;
};

// Blocks those signals in the calling thread while alive, so that creating a name and
// registering it (or renaming it away and unregistering it) is one step for a signal.
class signal_block {
 public:
  signal_block() noexcept;
  ~signal_block();
  signal_block(const signal_block&) = delete;
  signal_block& operator=(const signal_block&) = delete;

 private:
  sigset_t previous_;
};

}  // namespace bloomkit::detail
