#pragma once
// A blocking multi-producer, multi-consumer queue of at most `limit` items, for handing work
// between threads (parallel_fill.hpp): push() waits while the queue is full, so a fast producer
// never runs more than `limit` items ahead of its consumers; pop() waits while it is empty.
// close() ends it once drained; abort() ends it at once, for both sides (a failed worker).

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <utility>

namespace bloomkit::cli {

template <class T>
class bounded_queue {
 public:
  explicit bounded_queue(std::size_t limit) : limit_(limit) {}

  // Returns false (dropping the item) once the queue was aborted.
  bool push(T item) {
    std::unique_lock lock(mutex_);
    not_full_.wait(lock, [&] { return aborted_ || items_.size() < limit_; });
    if (aborted_) return false;
    items_.push_back(std::move(item));
    not_empty_.notify_one();
    return true;
  }
  // The next item; nothing once the queue is closed and drained, or aborted.
  std::optional<T> pop() {
    std::unique_lock lock(mutex_);
    not_empty_.wait(lock, [&] { return aborted_ || closed_ || !items_.empty(); });
    if (aborted_ || items_.empty()) return std::nullopt;
    T item = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return item;
  }
  // No more pushes: pop() returns what is left, then nothing.
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    not_empty_.notify_all();
  }
  // Drops what is queued and wakes every waiter: push() returns false, pop() nothing.
  void abort() {
    std::lock_guard lock(mutex_);
    aborted_ = true;
    items_.clear();
    not_empty_.notify_all();
    not_full_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable not_empty_;
  std::condition_variable not_full_;
  std::deque<T> items_;
  std::size_t limit_;
  bool closed_ = false;
  bool aborted_ = false;
};

}  // namespace bloomkit::cli
