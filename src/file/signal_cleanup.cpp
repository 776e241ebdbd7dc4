#include "signal_cleanup.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

namespace bloomkit::detail {

namespace {

constexpr int fatal_signals[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE};
constexpr std::size_t cleanup_slots = 64;
constexpr std::size_t max_name = 48;

// A registered name. The handler reads `name` and `pid` only after seeing dir_fd >= 0 (acquire),
// which the registration stores after writing them (release); nothing here allocates or locks.
struct slot {
  std::atomic<bool> claimed{false};
  std::atomic<int> dir_fd{-1};
  pid_t pid = 0;  // the registering process: a forked child killed by a signal removes nothing
  char name[max_name] = {};
};
slot slots[cleanup_slots];

// What each signal did before our handler: the handler chains to it or restores it.
struct sigaction previous_actions[NSIG];

void remove_registered_names() noexcept {
  const pid_t me = ::getpid();
  for (slot& s : slots) {
    const int dir_fd = s.dir_fd.load(std::memory_order_acquire);
    if (dir_fd >= 0 && s.pid == me) ::unlinkat(dir_fd, s.name, 0);
  }
}

extern "C" void on_fatal_signal(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const struct sigaction& before = previous_actions[sig];
  if ((before.sa_flags & SA_SIGINFO) != 0) {
    before.sa_sigaction(sig, info, context);
  } else if (before.sa_handler != SIG_DFL && before.sa_handler != SIG_IGN) {
    before.sa_handler(sig);
  } else {
    remove_registered_names();
    // End as the signal would have: it is blocked while this handler runs, so the re-raised one
    // is delivered, with the default action restored, as soon as the handler returns.
    struct sigaction default_action {};
    default_action.sa_handler = SIG_DFL;
    sigemptyset(&default_action.sa_mask);
    ::sigaction(sig, &default_action, nullptr);
    ::raise(sig);
  }
  errno = saved_errno;
}

void install_handlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction ours {};
    ours.sa_sigaction = on_fatal_signal;
    ours.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&ours.sa_mask);
    for (const int sig : fatal_signals) sigaddset(&ours.sa_mask, sig);
    for (const int sig : fatal_signals) {
      struct sigaction current {};
      if (::sigaction(sig, nullptr, &current) != 0) continue;
      // An ignored signal ends nothing; a program's own handler is chained to.
      if ((current.sa_flags & SA_SIGINFO) == 0 && current.sa_handler == SIG_IGN) continue;
      previous_actions[sig] = current;
      ::sigaction(sig, &ours, nullptr);
    }
  });
}

}  // namespace

signal_cleanup::signal_cleanup(int dir_fd, std::string_view name) {
  if (name.size() >= max_name) return;
  install_handlers();
  for (std::size_t i = 0; i < cleanup_slots; ++i) {
    bool free = false;
    if (!slots[i].claimed.compare_exchange_strong(free, true, std::memory_order_acquire)) continue;
    std::memcpy(slots[i].name, name.data(), name.size());
    slots[i].name[name.size()] = '\0';
    slots[i].pid = ::getpid();
    slots[i].dir_fd.store(dir_fd, std::memory_order_release);
    slot_ = static_cast<int>(i);
    return;
  }
}

signal_cleanup::~signal_cleanup() {
  if (slot_ < 0) return;
  slots[slot_].dir_fd.store(-1, std::memory_order_release);
  slots[slot_].claimed.store(false, std::memory_order_release);
}

signal_block::signal_block() noexcept {
  sigset_t blocked;
  sigemptyset(&blocked);
  for (const int sig : fatal_signals) sigaddset(&blocked, sig);
  ::pthread_sigmask(SIG_BLOCK, &blocked, &previous_);
}

signal_block::~signal_block() {
  ::pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

}  // namespace bloomkit::detail
