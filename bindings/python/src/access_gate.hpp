#pragma once
// One filter object used from several Python threads: the batched calls release the GIL, so two
// threads may be inside the C++ code of one filter at once. The C++ filters allow concurrent
// lookups but a single writer (filter.hpp, "Thread safety"); the gate enforces that: any number
// of readers or one writer.
//
// Nobody holding the gate waits for the GIL: batches take it after releasing the GIL and give it
// back before taking the GIL again. A caller holding the GIL that must wait for the gate releases
// the GIL meanwhile (gate_lock), so neither lock can wait for the other.

#include <atomic>
#include <thread>

#include <pybind11/pybind11.h>

namespace bloomkit::python {

class access_gate {
 public:
  // Readers: state_ > 0 counts them; a writer: state_ == -1.
  bool try_read() noexcept {
    int s = state_.load(std::memory_order_relaxed);
    while (s >= 0) {
      if (state_.compare_exchange_weak(s, s + 1, std::memory_order_acquire)) return true;
    }
    return false;
  }
  bool try_write() noexcept {
    int expected = 0;
    return state_.compare_exchange_strong(expected, -1, std::memory_order_acquire);
  }
  void end_read() noexcept { state_.fetch_sub(1, std::memory_order_release); }
  void end_write() noexcept { state_.store(0, std::memory_order_release); }

 private:
  std::atomic<int> state_{0};
};

enum class access { read, write };
enum class gil { held, released };

// Holds the gate for one operation (RAII).
template <access Mode>
class gate_lock {
 public:
  gate_lock(access_gate& gate, gil state) : gate_(gate) {
    if (try_once()) return;
    if (state == gil::held) {
      pybind11::gil_scoped_release unlocked;
      wait();
    } else {
      wait();
    }
  }
  ~gate_lock() {
    if constexpr (Mode == access::read) {
      gate_.end_read();
    } else {
      gate_.end_write();
    }
  }
  gate_lock(const gate_lock&) = delete;
  gate_lock& operator=(const gate_lock&) = delete;

 private:
  bool try_once() noexcept {
    if constexpr (Mode == access::read) {
      return gate_.try_read();
    } else {
      return gate_.try_write();
    }
  }
  void wait() noexcept {
    while (!try_once()) std::this_thread::yield();
  }
  access_gate& gate_;
};

using read_lock = gate_lock<access::read>;
using write_lock = gate_lock<access::write>;

}  // namespace bloomkit::python
