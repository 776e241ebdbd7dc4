#pragma once
// A progress line on stderr for long runs (`bloomkit build`): keys, bytes, MB/s, and a bar with
// percent and ETA when the input size is known. Drawn only when stderr is a terminal; anywhere
// else (a file, a pipe, a CI log) the tool stays silent and the object does nothing.
// Workers report with add() (two relaxed atomic adds per block of keys); a background thread
// redraws a few times a second.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace bloomkit::cli {

class progress_bar {
 public:
  // Draws on stderr when `enabled` (by default: when stderr is a terminal). `total_bytes` is
  // the input size when known.
  explicit progress_bar(std::optional<std::uint64_t> total_bytes);
  progress_bar(std::optional<std::uint64_t> total_bytes, bool enabled);
  ~progress_bar();
  progress_bar(const progress_bar&) = delete;
  progress_bar& operator=(const progress_bar&) = delete;

  static bool stderr_is_terminal() noexcept;

  void add(std::uint64_t keys, std::uint64_t bytes) noexcept {
    keys_.fetch_add(keys, std::memory_order_relaxed);
    bytes_.fetch_add(bytes, std::memory_order_relaxed);
  }
  // Stops redrawing and erases the line. Idempotent; also done by the destructor.
  void finish();

 private:
  void run();
  std::string line(double seconds) const;

  std::optional<std::uint64_t> total_;
  bool enabled_;
  std::atomic<std::uint64_t> keys_{0};
  std::atomic<std::uint64_t> bytes_{0};
  std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace bloomkit::cli
